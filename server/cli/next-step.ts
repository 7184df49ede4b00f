import type { Rail } from '../wire/rails.js';
import { shellCommand } from '../boot/cli-invocation.js';
import { defaultConfigPath } from '../linked-agent/agent-config.js';
import { agentCommandLine } from './agent-command-line.js';

/** How the line's commands are typed: the agent's own (its config named, as its failed call named it), and the owner's. */
interface Commands {
  agent(words: string[]): string;
  owner(words: string[]): string;
}

/**
 * What an agent's terminal can do about a refusal of its payment, in a line after it: the refusal's
 * words say what the policy holds, these say which command asks the owner for more. Only for the
 * commands an agent pays with (pay, fetch): the owner's own commands change the policy outright.
 */
const AGENT_NEXT: Readonly<Record<string, (run: Commands) => string>> = {
  // Only a breaker's stop has a why to show (a person's has none): status says it where there is one.
  agent_suspended: (run) =>
    `${run.agent(['resume'])} asks the owner to resume this agent (where its breaker stopped it, ${run.agent(['status'])} says why)`,
  daily_budget_exceeded: (run) =>
    `it frees as payments pass 24 hours old; ${run.agent(['policy', '--daily', 'AMOUNT'])} asks the owner for a larger daily budget`,
  budget_exceeded: (run) =>
    // A count budget is asked for with --count, and --budget replaces every budget: a hint typed as
    // printed must neither fail on a placeholder nor swap a count for an amount.
    // A rolling window ("any hour") never starts afresh as a whole: what is spent and left is what holds.
    `${run.agent(['policy'])} shows each budget, what is spent and left, and when a calendar one starts afresh; ${run.agent(['policy', '--budget', 'AMOUNT/WINDOW[:SCOPE]'])} (--count N/WINDOW[:SCOPE] for a count of payments; SCOPE as the budget refused names it), naming every budget to keep, asks the owner for more`,
  // Ended: the owner sets a later end, or none (a later end loosens the policy: the owner's).
  policy_expired: (run) => `${run.agent(['policy', '--expires', 'DAY'])} (or --expires never) asks the owner for a later end`,
  // The refusal's words say when the cooldown passes; a shorter one loosens the policy: the owner's.
  cooldown_active: (run) =>
    `ask again once it passes; ${run.agent(['policy', '--cooldown', 'SECONDS'])} asks the owner for a shorter cooldown`,
  max_per_payment_exceeded: (run) => `${run.agent(['policy', '--max', 'AMOUNT'])} asks the owner for a higher max per payment`,
  service_not_allowed: (run) =>
    // Outside the registry a name pins no one: the allowed entry is the address paid, as the refusal names it.
    `${run.agent(['policy', '--allow', 'SERVICE'])} asks the owner to allow it (a registry service's id, else the address it was paid to; with an --allow for every service to keep)`,
  price_above_registry: (run) =>
    `${run.agent(['services', 'SERVICE'])} shows the price the registry lists; a registry service is paid that, no more`,
  // Withdrawn while this very command still waited: the agent was stopped or archived (or another of
  // its processes took the request back). Which, the agent's status says; the kill's own hint follows.
  approval_withdrawn: (run) =>
    `${run.agent(['status'])} says whether this agent was stopped (then ${run.agent(['resume'])} asks the owner to resume it); else ask for the payment anew, without --approval`,
  // A held payment's request ended unanswered (a seller's terms end with it): nothing was paid.
  approval_expired: () =>
    "ask again: the seller's terms are fresh, and the owner is asked again (a Coffer paywall's terms last 5 minutes by default)",
  nonce_expired: () =>
    "ask again: the seller's terms are fresh, and the owner is asked again (a Coffer paywall's terms last 5 minutes by default)",
};

const PAYING_COMMANDS = new Set(['pay', 'fetch']);

/** The refusals a paying command adds a next step to (the bridge answers the same ones, mcp/refusal-next.ts). */
export const NEXT_STEP_CODES: readonly string[] = [...Object.keys(AGENT_NEXT), 'insufficient_funds'];

/** Short of funds: the owner's one command that funds the wallet, on the rail the payment was on where it is known. */
function fundingWords(run: Commands, agent: string, rail: Rail | undefined): string {
  const allocate = ['allocate', agent, 'AMOUNT'];
  if (rail === 'base') return `the owner funds this agent's wallet on Base: ${run.owner([...allocate, '--rail', 'base'])}`;
  const words = `the owner funds this agent's wallet: ${run.owner(allocate)}`;
  return rail === 'sol' ? words : `${words} (with --rail base for its wallet on Base)`;
}

/**
 * The line to print after a refusal of `command` with `code`; null: nothing to add. Where the
 * terminal knows them: `agentId`, the agent (else AGENT stands in the owner's command); `rail`, the
 * rail the refused payment was on; `configPath`, the agent's config the failed call read (named in
 * the agent's commands where it is not the platform's default, as the held pick-up names it);
 * `stopped`, the refusal tripped the agent's breaker (the server's `agentStopped`): then resuming is
 * what comes first, whatever the refusal was.
 */
export function nextStep(
  command: string | undefined,
  refused: string | null,
  where: { agentId?: string; rail?: Rail; configPath?: string; stopped?: boolean } = {},
): string | null {
  const code = where.stopped === true ? 'agent_suspended' : refused;
  if (command === undefined || code === null || !PAYING_COMMANDS.has(command)) return null;
  const configPath = where.configPath ?? defaultConfigPath();
  const run: Commands = { agent: (words) => agentCommandLine(words, configPath), owner: (words) => shellCommand(words) };
  if (code === 'insufficient_funds') return fundingWords(run, where.agentId ?? 'AGENT', where.rail);
  return AGENT_NEXT[code]?.(run) ?? null;
}
