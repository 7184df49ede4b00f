import { keyClient } from '../../client/coffer-client.js';
import type { PolicyResponse } from '../../wire/answers/policy.js';
import { agentCredentials } from '../../linked-agent/agent-config.js';
import { WINDOW_WORDS } from '../../wire/policy/budget.js';
import { describeBreaker } from '../../wire/policy/breaker.js';
import { readOwnerConnection } from '../owner-connection.js';
import { PolicyFlagError, policyUpdateOf, type PolicyFlags } from '../policy-flags.js';
import type { PolicyWhatIf } from '../../wire/answers/policy.js';
import { asksOwner, holdWords, whatIfWords } from '../../wire/policy/what-if-words.js';
import { printJson } from './owner-commands.js';
import { aligned } from './activity.js';
import { localTime } from '../local-time.js';

type Out = NodeJS.WritableStream;
type BudgetNow = NonNullable<PolicyResponse['budgets']>[number];

/** A budget now, in words: "50.00 USDC a month: 12.00 spent, 38.00 left, starts afresh 1 Dec 2026, 00:00". */
function budgetLine(budget: BudgetNow): string {
  const scope = budget.service !== undefined ? ` for ${budget.service}` : budget.recipient !== undefined ? ` to ${budget.recipient}` : '';
  const held =
    'count' in budget
      ? `${budget.count} payment${budget.count === 1 ? '' : 's'} ${WINDOW_WORDS[budget.window]}${scope}: ${budget.made} made, ${budget.remaining} left`
      : `${budget.amount} USDC ${WINDOW_WORDS[budget.window]}${scope}: ${budget.spent} spent, ${budget.remaining} left`;
  return budget.resetsAt === null ? held : `${held}, starts afresh ${localTime(budget.resetsAt)}`;
}

/** Each budget now, as lines ("budgets  50.00 USDC a month: …", then indented). */
export const budgetLines = (answer: PolicyResponse): string[] =>
  (answer.budgets ?? []).map((budget, index) => `${index === 0 ? 'budgets ' : '        '}  ${budgetLine(budget)}`);

/** A policy answer as lines for a terminal: the seed's four limits, then each budget now, its end, its warnings and its breaker. */
function policyLines(answer: PolicyResponse): string[] {
  const p = answer.policy;
  const lines = [
    `daily     ${p.dailyBudget} USDC in any 24 hours: ${answer.spent24h} spent`,
    `limits    at most ${p.maxPerPayment} USDC a payment, cooldown ${p.cooldownSeconds} s, services: ${p.allowedServices.length ? p.allowedServices.join(', ') : 'any'}`,
  ];
  lines.push(...budgetLines(answer));
  const end = endWords(answer);
  if (end !== null) lines.push(`ends      ${end}: every payment is refused after it`);
  const warnAt = p.warnAt ?? [80, 95];
  lines.push(`warns at  ${warnAt.length ? warnAt.map((share) => `${share} %`).join(', ') : 'never'} of a budget`);
  if (p.breaker !== undefined)
    lines.push(`breaker   ${describeBreaker({ refusals: p.breaker.refusals ?? null, spending: p.breaker.spending ?? null })}`);
  const asks = asksWords(answer);
  if (asks !== null) lines.push(`asks you  before ${asks}`);
  return lines;
}

/**
 * When a policy ends, as the owner typed it: a day ("at the end of 2026-12-31", in the owner's time
 * zone, where the end is that day's end), else the moment in this machine's time; null: never.
 */
export function endWords(answer: PolicyResponse): string | null {
  const { expiresAt } = answer.policy;
  if (expiresAt === undefined) return null;
  return answer.endsOn === undefined ? localTime(expiresAt) : `at the end of ${answer.endsOn}`;
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
 * `coffer policy [<agent>] [flags]`: shows a policy, each budget now; with flags, changes it first.
 * The linked agent's own by default: what tightens applies at once, what loosens asks the owner.
 * Another agent's, or one named with `--data-dir`, takes the owner's key (the connection file of
 * the running Coffer): the owner's change, at once.
 */
export async function policyCommand(
  configPath: string,
  args: { agentId?: string; dataDir?: string; flags: PolicyFlags; whatIf?: boolean; json?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const update = policyUpdateOf(args.flags);
  let self: { agentId: string; url: string; owner: string; apiKey: string } | null = null;
  try {
    self = agentCredentials(configPath);
  } catch (error) {
    if (args.agentId === undefined) throw error;
  }
  // An agent named with --data-dir: the owner of that data dir's Coffer acts, on the linked agent too
  // (named, so that a terminal linked to another Coffer never sends its own id to this one).
  const asSelf = self !== null && (args.agentId === undefined || (args.agentId === self.agentId && args.dataDir === undefined));
  const connection = asSelf ? null : readOwnerConnection(args.dataDir);
  const api = asSelf
    ? keyClient(self!.url, { owner: self!.owner, key: self!.apiKey })
    : keyClient(connection!.url, { owner: connection!.owner, key: connection!.ownerKey });
  const agentId = args.agentId ?? self!.agentId;
  if (args.whatIf) {
    if (Object.keys(update).length === 0) throw new PolicyFlagError('--what-if tries a change: name it with the flags it would set');
    const whatIf = await api.policyWhatIf(agentId, update);
    if (args.json) return printJson(whatIf, out);
    out.write(whatIfLines(whatIf, asksOwner(update), asSelf ? 'the owner' : 'you'));
    return 0;
  }
  if (Object.keys(update).length > 0) {
    const answer = await api.updatePolicy(agentId, update);
    if (answer.status === 202) {
      out.write(
        args.json
          ? `${JSON.stringify(answer.body, null, 2)}\n`
          : `This loosens ${agentId}'s policy, so it waits for the owner (request ${answer.body.approvalId}): they decide with coffer approve ${answer.body.approvalId}, or in the dashboard, under Approvals.\n`,
      );
      return 0;
    }
    if (!args.json) out.write(`Changed ${agentId}'s policy.\n`);
  }
  const answer = await api.policy(agentId);
  if (args.json) {
    out.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  out.write(
    `Policy of ${agentId}\n${policyLines(answer)
      .map((line) => `  ${line}\n`)
      .join('')}`,
  );
  return 0;
}

/**
 * A change tried on the agent's last 30 days, nothing saved: how many payments it would have refused
 * and why, what it would have held for the owner's yes, then the first it would have refused.
 */
function whatIfLines(whatIf: PolicyWhatIf, asks: boolean, decider: 'you' | 'the owner'): string {
  const held = holdWords(whatIf, asks, decider);
  const examples = whatIf.wouldRefuse.examples.map((example) => [
    localTime(example.at),
    `${example.amount} USDC`,
    example.service,
    example.message,
  ]);
  return (
    [
      `What-if for ${whatIf.agentId}'s policy (nothing was saved):`,
      `  ${whatIfWords(whatIf)}`,
      ...(held === null ? [] : [`  ${held}`]),
      ...(examples.length === 0 ? [] : [`  It would have refused, first:`, aligned(examples, '    ').trimEnd()]),
      `Apply it: the same command without --what-if.`,
    ].join('\n') + '\n'
  );
}
