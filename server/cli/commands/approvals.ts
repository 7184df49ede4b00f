/**
 * What waits for the owner, from a terminal: agents' requests (a held payment, a looser policy, funds,
 * being resumed, another agent) and terminals asking to be linked; approved or denied by the owner.
 */
import type { CofferClient } from '../../client/coffer-client.js';
import type { Approval } from '../../wire/answers/approvals.js';
import type { WaitingLinkSession } from '../../wire/answers/link-sessions.js';
import { describeRequest } from '../../wire/describe-request.js';
import { failureWords } from '../../wire/payment-failure.js';
import { startingLimits } from '../../wire/policy/policy.js';
import { localTime } from '../local-time.js';
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import { printJson } from './print-json.js';
import { refusedFirstLines } from './policy.js';
import { CofferApiError } from '../../client/client-error.js';
import { LINK_REQUEST_ID } from '../../wire/schemas.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { budgetSteps, heldAskOf, passesLimit, stepWords } from '../../wire/policy/held-budgets.js';
import type { PolicyResponse, PolicyWhatIf } from '../../wire/answers/policy.js';
import { asksOwner, holdWords, unchangedWords, whatIfWords } from '../../wire/policy/what-if-words.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import { UsageError } from '../command-line.js';

type Out = NodeJS.WritableStream;

/** `coffer approvals [--all]`: what waits for the owner (with --all, what was decided too), newest first. */
export async function listApprovals(args: { all?: boolean; dataDir?: string; json?: boolean }, out: Out = process.stdout) {
  const { api } = ownerClient(args.dataDir);
  const [approvals, links, settings] = await Promise.all([
    api.approvals(args.all ? undefined : 'pending'),
    api.linkRequests(),
    api.settings(),
  ]);
  if (args.json) return printJson({ approvals: approvals.approvals, linkRequests: links.sessions }, out);
  if (approvals.approvals.length === 0 && links.sessions.length === 0) {
    out.write('Nothing waits for you.\n');
    return 0;
  }
  const [policies, whatIfs] = await Promise.all([policiesOfHeld(api, approvals.approvals), whatIfsOfAsked(api, approvals.approvals)]);
  for (const approval of approvals.approvals) {
    out.write(approvalLines(approval, settings.timeZone, policies) + whatIfLines(approval, whatIfs.get(approval.approvalId)));
  }
  for (const session of links.sessions) out.write(linkRequestLines(session, args.dataDir));
  if (approvals.approvals.some((approval) => approval.status === 'pending')) {
    out.write(`Decide with: ${ownerCommandLine(['approve', 'ID'], args.dataDir)}, or ${ownerCommandLine(['deny', 'ID'], args.dataDir)}.\n`);
  }
  return 0;
}

/** Each agent's policy now that has a payment waiting, as the dashboard reads it for its cards; an error's words where it could not be read. */
async function policiesOfHeld(api: CofferClient, approvals: Approval[]): Promise<Map<string, PolicyResponse | string>> {
  const agents = new Set(
    approvals.filter((approval) => approval.kind === 'payment' && approval.status === 'pending').map((a) => a.agentId),
  );
  const read = await Promise.all(
    [...agents].map(async (agentId) => [agentId, await api.policy(agentId).catch((error: Error) => error.message)] as const),
  );
  return new Map(read);
}

/**
 * Each waiting policy request tried on its agent's last 30 days, as the dashboard's card tries it
 * (PolicyRequestWhatIf): the request exactly as it waits; an error's words where it could not be tried.
 */
async function whatIfsOfAsked(api: CofferClient, approvals: Approval[]): Promise<Map<string, PolicyWhatIf | string>> {
  const asked = approvals.filter((approval) => approval.kind === 'policy' && approval.status === 'pending');
  const tried = await Promise.all(
    asked.map(
      async (approval) =>
        [
          approval.approvalId,
          await api.policyWhatIf(approval.targetAgentId, approval.request as PolicyUpdate).catch((error: Error) => error.message),
        ] as const,
    ),
  );
  return new Map(tried);
}

/**
 * A policy request's what-if in the dashboard card's words: plainly where it would have refused and
 * held nothing, else what it would have refused and held, and the first it would have refused (as
 * `coffer policy --what-if` says them).
 */
export function whatIfLines(approval: Pick<Approval, 'request'>, whatIf: PolicyWhatIf | string | undefined): string {
  if (whatIf === undefined) return '';
  if (typeof whatIf === 'string') return `  what-if: it could not be tried on the last 30 days (${whatIf})\n`;
  const held = holdWords(whatIf, asksOwner(approval.request));
  const unchanged = unchangedWords(whatIf);
  if (unchanged !== null) return `  what-if: ${unchanged}\n`;
  return [`  what-if: ${[whatIfWords(whatIf), ...(held === null ? [] : [held])].join(' ')}`, ...refusedFirstLines(whatIf, '  ')]
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * A waiting payment's budgets, before → after it (server/wire/policy/held-budgets.ts), as its card in
 * the dashboard shows them: one line each, and what a yes would meet where it passes one now.
 */
function heldBudgetLines(approval: Approval, timeZone: string, policy: PolicyResponse | string | undefined): string {
  const ask = heldAskOf(approval.request);
  if (approval.kind !== 'payment' || approval.status !== 'pending' || ask === null || policy === undefined) return '';
  if (typeof policy === 'string') return `  budget: its budgets could not be read (${policy})\n`;
  return budgetSteps(ask, policy, Date.parse(approval.createdAt), Date.now(), timeZone)
    .map((step) => `  budget: ${step.words}: ${stepWords(step)}${passesLimit(step) ? ' (over it now: a yes would be refused)' : ''}\n`)
    .join('');
}

/** One request: its id and state, who asks for what, why it waits, its budgets before and after, and until when. */
function approvalLines(approval: Approval, timeZone: string, policies: Map<string, PolicyResponse | string>): string {
  const what = describeRequest(approval.kind, approval.request, beforeOf(approval), timeZone);
  const reason = (approval.request.reason as { message?: string } | undefined)?.message;
  // Approved but not carried out: why, in words (the seller's terms ended, the budget ran out…).
  const failed =
    approval.status !== 'failed'
      ? ''
      : `: ${approval.error ?? (approval.errorCode === undefined ? 'not carried out' : failureWords(approval.errorCode))}`;
  const state =
    approval.status === 'pending'
      ? `waits until ${localTime(approval.expiresAt)}`
      : `${approval.status}${approval.decidedAt ? ` ${localTime(approval.decidedAt)}` : ''}${failed}`;
  const asker = approval.targetAgentId === approval.agentId ? approval.agentId : `${approval.agentId} (for ${approval.targetAgentId})`;
  // What a payment buys, as the agent said it (`coffer fetch GET <url>`): two held alike tell apart.
  // Its first line that says anything (a payment sent without one has ""; one may start on line 2).
  const said = approval.kind === 'payment' && typeof approval.request.description === 'string' ? approval.request.description : '';
  const description =
    said
      .split(/\r?\n/)
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  return (
    `${approval.approvalId}  ${asker}: ${what}\n` +
    (description === '' ? '' : `  for: ${description}\n`) +
    `  ${reason === undefined ? '' : `why: ${reason}; `}${state}\n` +
    heldBudgetLines(approval, timeZone, policies.get(approval.agentId))
  );
}

/** A terminal asking to be linked: its code, who says it asks, and how to answer it. */
function linkRequestLines(session: WaitingLinkSession, dataDir?: string): string {
  const client = Object.entries(session.client)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
  return (
    `link request ${session.id}  code ${session.code}  (${client || 'no details'}), since ${localTime(session.createdAt)}\n` +
    `  approve with the link its terminal shows (URL), after checking the code: ${ownerCommandLine(['approve', 'URL', '--code', session.code], dataDir)}; or clear it: ${ownerCommandLine(['deny', session.id], dataDir)}\n`
  );
}

/** What `coffer approve` takes for a link request: the new agent's name and start, as the link page offers. */
export interface LinkChoices {
  /** The code the asking terminal shows: the owner's check that this URL is that terminal's. */
  code?: string;
  agent?: string;
  name?: string;
  daily?: string;
  max?: string;
  fund?: string;
  /** The rail `fund` moves on (Solana when left out). */
  rail?: Rail;
}

/**
 * `coffer approve <id | link URL>`: an agent's request carried out as asked (once, whoever clicks
 * first); or a terminal's link request completed: a new agent for it, with the limits given.
 */
export async function approve(
  args: { id: string; dataDir?: string; json?: boolean } & LinkChoices,
  out: Out = process.stdout,
  err: Out = process.stderr,
) {
  const { api } = ownerClient(args.dataDir);
  const token = linkToken(args.id);
  if (token !== null) return completeLink(api, token, { ...args, deny: ownerCommandLine(['deny', args.id], args.dataDir) }, out);
  const decided = await api.approve(args.id);
  // A yes that could not be carried out fails, with --json as without (helper 178: it exited 0).
  if (args.json) {
    printJson(decided, out);
    return decided.status === 'approved' ? 0 : 1;
  }
  if (decided.status !== 'approved') {
    // A failure, said where every command's is (stderr, `coffer: … (code)`), for a script to see.
    err.write(
      `coffer: approved ${decided.approvalId}, but it could not be carried out: ${decided.error ?? `see ${ownerCommandLine(['approvals', '--all'], args.dataDir)}`} (${decided.errorCode ?? 'failed'})\n`,
    );
    return 1;
  }
  const asked = `Approved ${decided.approvalId}: ${describeRequest(decided.kind, decided.request, beforeOf(decided), await endsZone(api, decided))}`;
  out.write(
    // An x402 purchase: the seller's terms may not outlive the yes, so the yes moves nothing itself.
    decided.result?.protocol === 'x402' && decided.result.status === 'approved'
      ? `${asked}; nothing is paid yet: the agent buys it when it asks the seller again, before ${localTime(decided.expiresAt)}.\n`
      : `${asked}${carriedOutWords(decided.result)}.\n`,
  );
  return 0;
}

/**
 * What a yes came to: a held payment paid, named by its payment as the dashboard names it (helper 192:
 * "carried out" said nothing of money moving); any other request ", carried out".
 */
function carriedOutWords(result: Record<string, unknown> | undefined): string {
  const { paymentId, status } = result ?? {};
  if (typeof paymentId !== 'string') return ', carried out';
  return `: paid (payment ${paymentId}, ${status === 'confirmed' ? 'confirmed' : 'pending on chain'})`;
}

/** A terminal's link request carried out, once its code is the one typed; `deny`, the command that refuses this request. */
async function completeLink(
  api: CofferClient,
  token: string,
  args: { json?: boolean; deny: string } & LinkChoices,
  out: Out,
): Promise<number> {
  const details = await api.linkDetails(token);
  // As on the dashboard's link page, the owner links a terminal only once its code is compared: a
  // URL sent by someone else would otherwise hand a new agent's key to their terminal. Said as a
  // usage error is (stderr, exit 2): nothing was done, and the command wants another word.
  if (args.code === undefined) {
    throw new UsageError(
      `this link request's code is ${details.code}: compare it with the code its terminal shows. The same: run again with --code ${details.code}; not the same: ${args.deny}`,
      'approve',
    );
  }
  if (args.code.trim().toUpperCase() !== details.code) {
    throw new CofferApiError(
      0,
      'link_code_mismatch',
      `the code typed (${args.code}) is not this request's: nothing was linked; ${args.deny} if you did not start it`,
    );
  }
  const completed = await api.completeLink(token, {
    ...(args.agent === undefined ? {} : { agentId: args.agent }),
    ...(args.name === undefined ? {} : { displayName: args.name }),
    ...startingLimits(args.daily, args.max),
    ...(args.fund === undefined ? {} : { fund: args.fund, ...(args.rail === undefined ? {} : { fundRail: args.rail }) }),
  });
  if (args.json) return printJson(completed, out);
  const funded =
    completed.funding === undefined
      ? ''
      : completed.funding.status === 'funded'
        ? `, funded with ${completed.funding.allocation.amount} USDC on ${railName(completed.funding.allocation.rail)}`
        : `; not funded: ${completed.funding.error}`;
  out.write(`Linked the terminal that showed code ${details.code} as agent ${completed.agentId}${funded}. It collects its key now.\n`);
  return 0;
}

/**
 * `coffer deny <id | link URL | link request id> | --links`: an agent's request refused (a held
 * payment is never paid), or a terminal's link request dropped (by its URL, or by the id `coffer
 * approvals` lists), or every waiting one (the dashboard's Clear all).
 */
export async function deny(args: { id?: string; links?: boolean; dataDir?: string; json?: boolean }, out: Out = process.stdout) {
  const { api } = ownerClient(args.dataDir);
  if (args.links || (args.id !== undefined && LINK_REQUEST_ID.test(args.id))) {
    const cleared = await api.clearLinkRequests(args.links ? undefined : [args.id!]);
    // One named that no terminal waits under is a refusal, said the same with --json or without.
    if (!args.links && cleared.cleared === 0)
      throw new CofferApiError(
        404,
        'link_not_found',
        `no terminal waits to be linked with the id ${args.id} (${ownerCommandLine(['approvals'], args.dataDir)} lists them)`,
      );
    if (args.json) return printJson(cleared, out);
    out.write(
      cleared.cleared === 0
        ? 'No terminal was waiting to be linked.\n'
        : `Cleared ${cleared.cleared} link request${cleared.cleared === 1 ? '' : 's'}: ${cleared.cleared === 1 ? 'its terminal is' : 'their terminals are'} told there is nothing to wait for.\n`,
    );
    return 0;
  }
  const token = linkToken(args.id!);
  if (token !== null) {
    const denied = await api.denyLink(token);
    if (args.json) return printJson(denied, out);
    out.write('Denied the link request: its terminal is told there is no such request.\n');
    return 0;
  }
  const denied = await api.deny(args.id!);
  if (args.json) return printJson(denied, out);
  const words = describeRequest(denied.kind, denied.request, beforeOf(denied), await endsZone(api, denied));
  out.write(`Denied ${denied.approvalId}: ${words}; nothing was carried out.\n`);
  return 0;
}

/** What a policy request would change, as it stood when asked: shown beside what it asks ("0.50 → 0.60 USDC"). */
const beforeOf = (approval: Approval) => (approval.before as Parameters<typeof describeRequest>[2]) ?? null;

/** The owner's time zone, read only for a request that names an end (said as the day they typed). */
const endsZone = async (api: CofferClient, approval: Approval): Promise<string | null> =>
  'expiresAt' in approval.request && approval.request.expiresAt !== null ? (await api.settings()).timeZone : null;

/** The token of a link request, from the URL its terminal printed or the token alone; null for an approval id. */
function linkToken(id: string): string | null {
  if (id.startsWith('lnk_')) return id;
  if (!URL.canParse(id)) return null;
  return new URL(id).searchParams.get('token');
}
