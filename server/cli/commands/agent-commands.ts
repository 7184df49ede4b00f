import { paymentWhenDecided } from '../../client/held-payment.js';
import { withdrawnIfInterrupted } from '../held-interrupt.js';
import { CofferApiError } from '../../client/client-error.js';
import { DEFAULT_TERMS_SECONDS } from '../../wire/paywall-nonce.js';
import { nextStep } from '../next-step.js';
import { payOnBaseInstead } from './pay-on-base-instead.js';
import { agentCommandLine } from '../agent-command-line.js';
import { isEvmAddress } from '../../wire/rails.js';
import { lateReceiptWords, payPickUpCommand, pickedUpPayment, type PayTerms } from './pay-pick-up.js';
import type { Killed, ResumedAll, StillLanding, Withdrawn } from '../../wire/answers/agents.js';
import { ownerClient } from '../owner-connection.js';
import { linkedClient, ownerOf, type Actor } from '../who-acts.js';
import { agentCredentials } from '../../linked-agent/agent-config.js';
import { openBrowser } from '../open-browser.js';
import { asksWords, budgetLines, endWords, spentOfItWords } from './policy.js';
import { localTime } from '../local-time.js';
import { railName } from '../../wire/rail-words.js';
import { walletLines } from './rail-lines.js';
import { breakerWords, stoppedByBreakerWords } from '../../wire/policy/breaker.js';
import { spendCells } from './activity.js';
import { aligned } from '../columns.js';
import { paysOnWords, usdcWords } from '../../wire/network-words.js';
import { shellCommand } from '../../boot/cli-invocation.js';

/** "1 agent", "2 agents". */
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

type Out = NodeJS.WritableStream;

/** `coffer status`: the linked agent's balance and wallet on each rail, policy, what it spent in the last 24 h, and its last payments. */
export async function status(configPath: string, options: { json?: boolean } = {}, out: Out = process.stdout): Promise<number> {
  const { agent, api } = linkedClient(configPath);
  const [balance, policy, history, health] = await Promise.all([
    api.balance(agent.agentId),
    api.policy(agent.agentId),
    api.spendHistory(agent.agentId, 5),
    // The network it pays on, so that test money reads as such (as the owner's status says it).
    api.health().catch(() => null),
  ]);
  if (options.json) {
    out.write(`${JSON.stringify({ balance, policy, payments: history.payments }, null, 2)}\n`);
    return 0;
  }
  const p = policy.policy;
  const paysOn = typeof health?.network === 'string' ? `, ${paysOnWords(health.network, health.base?.network ?? null)}` : '';
  out.write(`Agent ${agent.agentId} at ${agent.url}${paysOn}\n`);
  const stopped =
    balance.status !== 'suspended'
      ? 'active'
      : `STOPPED${balance.statusReason === undefined ? '' : ` (${balance.statusReason})`}: every payment is refused until the owner resumes it`;
  out.write(`  status   ${stopped}\n`);
  // A line a rail: what its wallet holds there, and its address there (Base's only where that rail is open).
  const [first, ...more] = walletLines(balance.wallets, balance.balances, balance.baseNetwork);
  out.write(`  balance  ${first}\n${more.map((line) => `           ${line}\n`).join('')}`);
  // Held and unsettled payments count against the budget unpaid: said apart, so "spent" is not read as paid.
  out.write(`  spent    ${policy.spent24h} of ${p.dailyBudget} USDC in the last 24 h${spentOfItWords(policy, "the owner's")}\n`);
  out.write(
    `  policy   ${p.dailyBudget} USDC in any 24 hours, at most ${p.maxPerPayment} a payment, cooldown ${p.cooldownSeconds} s, services: ${p.allowedServices.length ? p.allowedServices.join(', ') : 'any'}\n`,
  );
  // Each budget beyond the daily one, now, its end and what waits for the owner (`coffer policy` says the rest).
  for (const line of budgetLines(policy, 9)) out.write(`  ${line}\n`);
  const end = endWords(policy);
  if (end !== null) out.write(`  ends     ${end}: every payment is refused after it\n`);
  const asks = asksWords(policy);
  if (asks !== null) out.write(`  asks     the owner before ${asks}\n`);
  // What stops it by itself: too many refusals, or spending too fast (the owner resumes it).
  const breaker = breakerWords(p.breaker);
  if (breaker !== null) out.write(`  breaker  ${breaker}\n`);
  out.write(history.payments.length ? `  recent payments (${agentCommandLine(['activity'], configPath)}: more):\n` : '  no payments yet\n');
  if (history.payments.length > 0) out.write(aligned(history.payments.map(spendCells), '    '));
  return 0;
}

/**
 * `coffer pay <service> <amount>`: pays from the linked agent's wallet and prints the receipt. With
 * `approvalId` (and the service and amount, or neither), picks up that held request's payment instead.
 */
export async function payCommand(
  configPath: string,
  args: PayTerms & { description?: string; receiptOnly?: boolean } & (
      { approvalId?: undefined; service: string; amount: string } | { approvalId: string }
    ),
  out: Out = process.stdout,
): Promise<number> {
  const { agent, api } = linkedClient(configPath);
  const { approvalId } = args;
  // Held for the owner's yes: said on stderr (stdout stays the receipt), then waited for; interrupted,
  // its request is withdrawn; killed outright, `coffer pay --approval` picks it up.
  const paid = withdrawnIfInterrupted(
    api,
    process.stderr,
    async (onHeld) => {
      if (args.approvalId !== undefined) return pickedUpPayment(api, args.approvalId, args, onHeld, configPath);
      const answer = await api.pay(agent.agentId, {
        service: args.service,
        amount: args.amount,
        currency: 'USDC',
        description: args.description ?? 'coffer pay',
        recipient: args.recipient,
        rail: args.rail,
        nonce: args.nonce,
      });
      return paymentWhenDecided(api, answer, onHeld);
    },
    // Soon: what the yes pays is a receipt a Coffer paywall takes for a while after it lands.
    ({ approvalId }) =>
      `${payPickUpCommand(approvalId, configPath)} picks it up (soon: a Coffer paywall takes a receipt for ${DEFAULT_TERMS_SECONDS} s after it lands, by default)`,
  );
  const body = await paid.catch(async (error: unknown) => {
    // Refused: the server's words and code, then what this agent's terminal can do about it (the
    // agent named). Coffer not answering is the caller's to say (its own exit status).
    if (!(error instanceof CofferApiError) || error.status === 0) throw error;
    process.stderr.write(`coffer: ${error.message} (${error.code})\n`);
    // The rail it was asked on: named, or an EVM recipient's (Base); else Solana.
    const rail =
      args.approvalId !== undefined
        ? undefined
        : (args.rail ?? (args.recipient !== undefined && isEvmAddress(args.recipient) ? 'base' : 'sol'));
    const next = nextStep('pay', error.code, { agentId: agent.agentId, rail, configPath, stopped: error.agentStopped !== undefined });
    // Short on Solana by default where Base would pay: the same payment there comes first.
    const instead =
      error.code === 'insufficient_funds' && args.approvalId === undefined && args.rail === undefined && args.recipient === undefined
        ? await payOnBaseInstead(api, agent.agentId, args, configPath)
        : null;
    if (next !== null) process.stderr.write(`next: ${instead === null ? '' : `${instead}; or `}${next}\n`);
    return null;
  });
  if (body === null) return 1;
  // --receipt: the header's value alone, to compose (curl -H "X-Payment: $(coffer pay ... --receipt)").
  if (args.receiptOnly) out.write(`${body.xPaymentHeader}\n`);
  else
    out.write(
      // The rail is the recipient's (an EVM address is paid on Base): said, with the address paid.
      `Paid ${body.amount} ${usdcWords(body.network)} on ${railName(body.rail)} to ${body.recipient} for ${body.service}${approvalId === undefined ? '' : ` under request ${approvalId}`} (${body.paymentId}${approvalId !== undefined && body.status !== 'confirmed' ? `, ${body.status}` : ''}, transaction ${body.txSignature}).\n` +
        `X-Payment: ${body.xPaymentHeader}\n`,
    );
  // Picked up long after the yes paid it: the receipt may be past what a paywall takes (said, not hidden).
  const late = approvalId === undefined ? null : lateReceiptWords(body.timestamp, Date.now());
  if (late !== null) process.stderr.write(`${late}\n`);
  // Paid, and this payment stopped the agent: said on stderr, so the next payment's refusal is not a surprise.
  if (body.agentStopped !== undefined) process.stderr.write(`${afterPaymentStopped(agent.agentId, body.agentStopped.reason)}\n`);
  return 0;
}

/** The payment made, then its agent stopped by its breaker, in a line. */
export const afterPaymentStopped = (agentId: string, reason: string) => `After this payment, ${stoppedByBreakerWords(agentId, reason)}.`;

/**
 * `coffer kill [agent] | --all`: an agent can always stop itself; stopping another agent or all of
 * them takes the owner's key (the connection file of the running Coffer). Who acts is who-acts.ts's
 * one rule: the owner wherever `--data-dir` is given, so the owner's brake never goes through a linked
 * terminal's key that names the same agent (one replaced as leaked, or another Coffer's agent). The
 * owner's brake on an agent named is never held back by the linked terminal either: where its key is
 * refused (401: replaced by the owner) the owner's connection file stops the agent, and where the
 * linked config cannot be read the command acts as the owner (table/agents.ts).
 */
export async function kill(actor: Actor, agentId: string | undefined, out: Out = process.stdout): Promise<number> {
  if (actor.as === 'agent') {
    try {
      return await killSelf(actor.configPath, out);
    } catch (error) {
      // The linked agent's key refused (the owner replaced it, a leaked key): the owner's connection
      // file, where one answers here, stops it all the same, whether this terminal named the agent
      // or not (plain `coffer kill` is this terminal's own agent; helper 177 found it did nothing).
      if (!(error instanceof CofferApiError) || error.status !== 401) throw error;
      const self = agentId ?? agentCredentials(actor.configPath).agentId;
      let api;
      try {
        api = ownerClient(undefined).api;
      } catch {
        // No owner here: where the owner runs Coffer, the owner's kill stops it.
        throw new CofferApiError(
          error.status,
          error.code,
          `${error.message}; where Coffer runs, the owner stops it: ${shellCommand(['kill', self])}`,
        );
      }
      return ownerKill(api, self, out);
    }
  }
  return ownerKill(ownerOf(actor, `stopping ${agentId!}`).api, agentId!, out);
}

async function ownerKill(api: ReturnType<typeof ownerClient>['api'], agentId: string, out: Out): Promise<number> {
  const body = await api.kill(agentId);
  out.write(`${stoppedWords(body)}\n${withdrawnLine(body.withdrawn, 'it', 'you')}${stillLandingLine(body.stillLanding, 'it')}`);
  return 0;
}

/** `coffer kill --all` (owner): every agent stopped at once. */
export async function killAll(args: { dataDir?: string }, out: Out = process.stdout): Promise<number> {
  const body = await ownerClient(args.dataDir).api.killAll();
  out.write(
    body.suspended.length
      ? `Stopped ${plural(body.suspended.length, 'agent')}: ${body.suspended.join(', ')}\n${withdrawnLine(body.withdrawn, 'they', 'you')}${stillLandingLine(body.stillLanding, 'they')}`
      : `Every agent was already stopped.\n${stillLandingLine(body.stillLanding, 'they')}`,
  );
  return 0;
}

async function killSelf(configPath: string, out: Out): Promise<number> {
  const { agent, api } = linkedClient(configPath);
  const body = await api.kill(agent.agentId);
  out.write(`${stoppedWords(body)}\n${withdrawnLine(body.withdrawn, 'it', 'the owner')}${stillLandingLine(body.stillLanding, 'it')}`);
  return 0;
}

/** A stop's answer in a line: stopped now, stopped already, or archived (stopped for good: nothing to resume). */
function stoppedWords(body: Killed): string {
  if (body.archivedAt !== undefined)
    return `${body.agentId} was archived ${localTime(body.archivedAt)}: it is stopped for good, and there was nothing to stop.`;
  // `was` left out: an older Coffer's answer, said as a stop.
  if (body.was === 'suspended') return `${body.agentId} was stopped already: its payments are refused until the owner resumes it.`;
  return `Stopped ${body.agentId}: its payments are refused until the owner resumes it.`;
}

/**
 * What a stop withdrew of what was waiting for the owner, as a line ("" for nothing): a held payment
 * withdrawn is never paid, which the one who stopped it should not have to find out later.
 */
function withdrawnLine(withdrawn: Withdrawn | undefined, who: 'it' | 'they', asked: 'you' | 'the owner'): string {
  // `undefined`: an older Coffer's answer says nothing of it.
  if (withdrawn === undefined) return '';
  const parts = [
    ...(withdrawn.heldPayments > 0 ? [`${plural(withdrawn.heldPayments, 'held payment')} (never paid)`] : []),
    ...(withdrawn.requests > 0 ? [plural(withdrawn.requests, 'request')] : []),
  ];
  return parts.length === 0 ? '' : `Withdrew what ${who} had asked ${asked}: ${parts.join(' and ')}.\n`;
}

/**
 * What a stop cannot take back, as a line ("" for nothing): x402 payments signed and handed out before
 * it, which a seller may still settle. "Refused" alone would have the owner think no more money can leave.
 * Handed to the agent, not known to have reached a seller; a stop of all names whose (helper 190: "they
 * handed to sellers" said of payments no seller had, of an agent stopped before).
 */
export function stillLandingLine(still: StillLanding | undefined, who: 'it' | 'they'): string {
  // `undefined`: an older Coffer's answer says nothing of it.
  if (still === undefined || still.payments === 0) return '';
  const until = still.until === null ? 'within about a minute (on Solana)' : `until ${localTime(still.until)} at the latest`;
  // An older Coffer's answer names no agents: said as before it did.
  const whose = who === 'it' || still.agents === undefined ? '' : `, for ${namesOf(still.agents)}`;
  return `Signed before the stop${whose}: ${plural(still.payments, 'x402 payment')} (${still.amount} USDC) handed out, which a seller holding them may still settle, ${until}; unsettled, each lapses and its budget comes back.\n`;
}

/** Up to five agents by name, then how many more. */
const namesOf = (agents: readonly string[]) =>
  agents.length <= 5 ? agents.join(', ') : `${agents.slice(0, 5).join(', ')} and ${agents.length - 5} more`;

/**
 * Which agents a resume of all started again that their breaker had stopped, and why ("" for none):
 * a breaker's stop is undone with the rest, and the owner is told so (helper 190).
 */
export function breakerStopsLine(stops: ResumedAll['breakerStops'] | undefined): string {
  // `undefined`: an older Coffer's answer says nothing of it.
  if (stops === undefined || stops.length === 0) return '';
  const named = stops.map(({ agentId, reason }) => `${agentId} (${reason.replace(/^its breaker tripped: /, '')})`);
  return `Among them, stopped by their breaker: ${named.join('; ')}.\n`;
}

/**
 * `coffer resume [agent] | --all`: resuming another agent, or all of them, takes the owner's key;
 * without either, the linked agent asks the owner to resume it (a request the owner decides).
 */
export async function resume(
  configPath: string,
  args: { agentId?: string; all: boolean; dataDir?: string },
  out: Out = process.stdout,
): Promise<number> {
  if (!args.all && args.agentId === undefined) {
    const { agent, api } = linkedClient(configPath);
    const answer = await api.resume(agent.agentId);
    out.write(
      answer.status === 202
        ? `Asked the owner to resume ${agent.agentId} (request ${answer.body.approvalId}): they decide with ${shellCommand(['approve', answer.body.approvalId])}, or in the dashboard, under Approvals.\n`
        : `${agent.agentId} is ${answer.body.status === 'active' ? 'active' : answer.body.status}.\n`,
    );
    return 0;
  }
  const { api } = ownerClient(args.dataDir);
  if (args.all) {
    const body = await api.resumeAll();
    out.write(
      body.resumed.length
        ? `Resumed ${plural(body.resumed.length, 'agent')}: ${body.resumed.join(', ')}\n${breakerStopsLine(body.breakerStops)}`
        : 'No agent was stopped.\n',
    );
    return 0;
  }
  const answer = await api.resume(args.agentId!);
  // The owner's resume applies at once (a 200); `was` tells one that changed nothing from one that did.
  const already = answer.status === 200 && answer.body.was === 'active';
  out.write(
    already
      ? `${args.agentId} was not stopped: it may pay, within its policy.\n`
      : `Resumed ${args.agentId}: it may pay again, within its policy.\n`,
  );
  return 0;
}

/** `coffer open`: the dashboard, signed in through a fresh one-time login link (owner only). */
export async function open(args: { dataDir?: string }, out: Out = process.stdout): Promise<number> {
  const { api } = ownerClient(args.dataDir);
  const body = await api.loginLink();
  const opened = await openBrowser(body.url);
  out.write(opened ? `Opened the dashboard in your browser.\n` : `Open this one-time link in your browser (10 minutes):\n  ${body.url}\n`);
  return 0;
}
