import type { PolicyResponse } from '../../wire/answers/policy.js';
import { WINDOW_WORDS } from '../../wire/policy/budget.js';
import { breakerWords } from '../../wire/policy/breaker.js';
import { clientFor, type Actor } from '../who-acts.js';
import { PolicyFlagError, policyUpdateOf, type PolicyFlags } from '../policy-flags.js';
import type { PolicyWhatIf } from '../../wire/answers/policy.js';
import { asksOwner, holdWords, whatIfWords } from '../../wire/policy/what-if-words.js';
import { policyChangeWords } from '../../wire/describe-request.js';
import { printJson } from './print-json.js';
import { aligned } from '../columns.js';
import { localTime } from '../local-time.js';
import { loosenings, treasuryHolds } from '../../wire/policy/loosenings.js';
import { dayEndingAt } from '../../wire/policy/expiry.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { askYes, canAsk } from '../ask-yes.js';
import { CofferApiError } from '../../client/client-error.js';
import { railName } from '../../wire/rail-words.js';
import { tryParseUsdc } from '../../wire/money.js';
import { heldOfItWords, pendingOfItWords } from '../../wire/policy/asks.js';
import { shellCommand } from '../../boot/cli-invocation.js';

type Out = NodeJS.WritableStream;
type BudgetNow = NonNullable<PolicyResponse['budgets']>[number];

/** A budget now, in words: "50.00 USDC a month: 12.00 spent, 38.00 left, starts afresh 1 Dec 2026, 00:00", in the owner's time zone. */
function budgetLine(budget: BudgetNow, timeZone: string): string {
  const scope = budget.service !== undefined ? ` for ${budget.service}` : budget.recipient !== undefined ? ` to ${budget.recipient}` : '';
  const held =
    'count' in budget
      ? `${budget.count} payment${budget.count === 1 ? '' : 's'} ${WINDOW_WORDS[budget.window]}${scope}: ${budget.made} made, ${budget.remaining} left`
      : `${budget.amount} USDC ${WINDOW_WORDS[budget.window]}${scope}: ${budget.spent} spent, ${budget.remaining} left`;
  return budget.resetsAt === null ? held : `${held}, starts afresh ${localTime(budget.resetsAt, { timeZone })}`;
}

/**
 * Each budget now, as lines ("budgets   50.00 USDC a month: …", then indented), the words after a
 * label as wide as the lines around them have (`coffer policy`'s 10, `coffer status`'s 9).
 */
export const budgetLines = (answer: PolicyResponse, labelWidth = 10): string[] =>
  (answer.budgets ?? []).map(
    (budget, index) => `${(index === 0 ? 'budgets' : '').padEnd(labelWidth)}${budgetLine(budget, answer.timeZone)}`,
  );

/** "Policy of researcher", or an archived agent's, said as such: kept as it was, limiting nothing. */
const policyHeading = (answer: PolicyResponse): string =>
  answer.archivedAt === undefined
    ? `Policy of ${answer.agentId}`
    : `Policy of ${answer.agentId}, archived ${localTime(answer.archivedAt)}: kept as it was; it pays nothing any more`;

/**
 * What of the sum spent is not paid (held for a yes) or not settled yet (signed or sent), in words
 * after it: " (0.05 of it held for the owner's yes, not paid; 0.18 of it signed or sent, not settled
 * yet)", or "" (helpers 185, 190: "spent" alone read as paid). An older Coffer's answer says neither.
 */
export function spentOfItWords(answer: Pick<PolicyResponse, 'held24h' | 'pending24h'>, whose: 'your' | "the owner's"): string {
  const parts = [
    heldOfItWords(tryParseUsdc(answer.held24h ?? '0') ?? 0n, whose),
    pendingOfItWords(tryParseUsdc(answer.pending24h ?? '0') ?? 0n),
  ].filter((part) => part !== null);
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/** A max that never binds, said so (the dashboard says it beside the field): no payment is larger than a day allows. */
const maxAboveDaily = ({ dailyBudget, maxPerPayment }: PolicyResponse['policy']): string =>
  (tryParseUsdc(maxPerPayment) ?? 0n) > (tryParseUsdc(dailyBudget) ?? 0n)
    ? ` (above the daily budget: no payment can be larger than ${dailyBudget})`
    : '';

/** A policy answer as lines for a terminal: the seed's four limits, then each budget now, its end, its warnings and its breaker. */
function policyLines(answer: PolicyResponse): string[] {
  const p = answer.policy;
  const lines = [
    `daily     ${p.dailyBudget} USDC in any 24 hours: ${answer.spent24h} spent${spentOfItWords(answer, "the owner's")}`,
    `limits    at most ${p.maxPerPayment} USDC a payment${maxAboveDaily(p)}, cooldown ${p.cooldownSeconds} s, services: ${p.allowedServices.length ? p.allowedServices.join(', ') : 'any'}`,
  ];
  lines.push(...budgetLines(answer));
  const end = endWords(answer);
  if (end !== null) lines.push(`ends      ${end}: every payment is refused after it`);
  const warnAt = p.warnAt ?? [80, 95];
  lines.push(
    `warns at  ${warnAt.length ? `${warnAt.map((share) => `${share} %`).join(', ')} of a budget` : 'never: no warning before a budget runs out'}`,
  );
  const breaker = breakerWords(p.breaker);
  if (breaker !== null) lines.push(`breaker   ${breaker}`);
  const asks = asksWords(answer);
  if (asks !== null) lines.push(`asks      the owner before ${asks}`);
  return lines;
}

/**
 * When a policy ends, as the owner typed it: a day ("at the end of 2026-12-31", in the owner's time
 * zone, where the end is that day's end), else the moment in the owner's time zone; null: never.
 */
export function endWords(answer: PolicyResponse): string | null {
  const { expiresAt } = answer.policy;
  if (expiresAt === undefined) return null;
  return answer.endsOn === undefined ? localTime(expiresAt, { timeZone: answer.timeZone }) : `at the end of ${answer.endsOn}`;
}

/** A policy's end named, as a loosening says it: "the end of 2026-12-31" (a day's end in the zone), or its time there. */
function endNamed(iso: string, timeZone: string): string {
  const day = dayEndingAt(Date.parse(iso), timeZone);
  return day === null ? localTime(iso, { timeZone }) : `the end of ${day}`;
}

/** Which payments wait for the owner's yes ("payments above 0.05 USDC and the first payment to a new recipient"); null: none. */
export function asksWords({ policy: p }: PolicyResponse): string | null {
  const asks = [
    ...(p.askAbove === undefined ? [] : [p.askAbove === '0.00' ? 'every payment' : `payments above ${p.askAbove} USDC`]),
    ...(p.askNewRecipient === true ? ['the first payment to a new recipient'] : []),
  ];
  return asks.length === 0 ? null : asks.join(' and ');
}

/**
 * `coffer policy [<agent>] [flags]`: shows a policy, each budget now; with flags, changes it first
 * (or, with --what-if, tries the change on the last 30 days and saves nothing). As the linked agent
 * (who-acts.ts): what tightens applies at once, what loosens asks the owner. As the owner: the
 * owner's change, at once.
 */
export async function policyCommand(
  actor: Actor,
  args: { agentId?: string; flags: PolicyFlags; whatIf?: boolean; json?: boolean; yes?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const update = policyUpdateOf(args.flags);
  // Used wrongly before any Coffer is asked (exit 2, whether or not one runs).
  if (args.whatIf && Object.keys(update).length === 0)
    throw new PolicyFlagError('--what-if tries a change: name it with the flags it would set');
  if (actor.as === 'owner' && args.agentId === undefined)
    throw new PolicyFlagError('name the agent whose policy it is: coffer policy <agent> (as the owner)');
  const acting = clientFor(actor, args.agentId, `the policy of ${args.agentId}`);
  const agentId = acting.agentId!;
  const api = acting.api;
  // The policy before the change, so that what it changes is said field by field (a budget list is
  // replaced whole: one named alone takes the others away, and the words show it).
  const changing = Object.keys(update).length > 0;
  const before = changing && (!args.json || (actor.as === 'owner' && !args.whatIf)) ? await api.policy(agentId) : null;
  const changeWords = before === null ? '' : policyChangeWords(update, before.policy, before.timeZone);
  if (args.whatIf) {
    const whatIf = await api.policyWhatIf(agentId, update);
    if (args.json) return printJson(whatIf, out);
    out.write(whatIfLines(whatIf, asksOwner(update), actor.as === 'agent' ? 'the owner' : 'you', changeWords));
    return 0;
  }
  if (changing) {
    // The owner's loosening applies at once: asked first, as the dashboard asks (an agent's own is
    // held for the owner's yes by the server instead).
    // (An archived agent's is refused by the server as it stands: nothing to ask.)
    if (actor.as === 'owner' && !args.yes && before!.archivedAt === undefined) await confirmLoosening(api, agentId, update, before!);
    const answer = await api.updatePolicy(agentId, update);
    if (answer.status === 202) {
      out.write(
        args.json
          ? `${JSON.stringify(answer.body, null, 2)}\n`
          : `This loosens ${agentId}'s policy, so it waits for the owner (request ${answer.body.approvalId}): they decide with ${shellCommand(['approve', answer.body.approvalId])}, or in the dashboard, under Approvals.\n`,
      );
      return 0;
    }
    if (!args.json) out.write(`Changed ${agentId}'s policy: ${changeWords}.\n`);
  }
  const answer = await api.policy(agentId);
  if (args.json) {
    out.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  out.write(policyText(answer));
  return 0;
}

/**
 * What the owner's change loosens, asked about before it is saved (the dashboard's rule and words,
 * wire/policy/loosenings.ts): at a terminal, a yes saves it; elsewhere (a script, a pipe) it is
 * refused, nothing saved, until it is run again with --yes.
 */
async function confirmLoosening(api: CofferClient, agentId: string, update: PolicyUpdate, before: PolicyResponse): Promise<void> {
  // The treasury's balance judges only a daily budget set: the dashboard (every agent's row) is read
  // for it then, not for every change.
  const treasury =
    update.dailyBudget === undefined
      ? null
      : await api
          .dashboard()
          .then((dashboard) => treasuryHolds(dashboard.treasury))
          .catch(() => null);
  const reasons = loosenings(before.policy, update, treasury, before.timeZone, endNamed);
  if (reasons.length === 0) return;
  const said = `This loosens ${agentId}'s policy:\n${reasons.map((reason) => `  - ${reason}\n`).join('')}`;
  if (!canAsk()) {
    throw new CofferApiError(
      0,
      'loosening_needs_yes',
      `${said
        .trimEnd()
        .replace(/:\n {2}- /, ': ')
        .replace(/\n {2}- /g, ' ')} Nothing was changed: run it again with --yes to save it`,
    );
  }
  process.stderr.write(said);
  if (!(await askYes('Save it? [y/N] '))) throw new CofferApiError(0, 'loosening_declined', 'nothing was changed');
}

/** A policy as `coffer policy` prints it: its heading, then a line for each part, indented. */
export const policyText = (answer: PolicyResponse): string =>
  `${policyHeading(answer)}\n${policyLines(answer)
    .map((line) => `  ${line}\n`)
    .join('')}`;

/** The first payments a change tried would have refused, one aligned line each under a heading (none: nothing). */
export function refusedFirstLines(whatIf: PolicyWhatIf, indent: string): string[] {
  const examples = whatIf.wouldRefuse.examples.map((example) => [
    localTime(example.at),
    `${example.amount} USDC on ${railName(example.rail)}`,
    example.service,
    example.message,
  ]);
  return examples.length === 0 ? [] : [`${indent}It would have refused, first:`, aligned(examples, `${indent}  `).trimEnd()];
}

/**
 * A change tried on the agent's last 30 days, nothing saved: how many payments it would have refused
 * and why, what it would have held for the owner's yes, then the first it would have refused.
 */
function whatIfLines(whatIf: PolicyWhatIf, asks: boolean, decider: 'you' | 'the owner', changeWords: string): string {
  const held = holdWords(whatIf, asks, decider);
  return (
    [
      `What-if for ${whatIf.agentId}'s policy (nothing was saved): ${changeWords}`,
      `  ${whatIfWords(whatIf)}`,
      ...(held === null ? [] : [`  ${held}`]),
      ...refusedFirstLines(whatIf, '  '),
      `Apply it: the same command without --what-if${decider === 'you' ? ' (what loosens the policy is asked first, or takes --yes)' : ''}.`,
    ].join('\n') + '\n'
  );
}
