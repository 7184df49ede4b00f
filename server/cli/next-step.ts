import type { Rail } from '../wire/rails.js';

/**
 * What an agent's terminal can do about a refusal of its payment, in a line after it: the refusal's
 * words say what the policy holds, these say which command asks the owner for more. Only for the
 * commands an agent pays with (pay, fetch): the owner's own commands change the policy outright.
 */
const AGENT_NEXT: Readonly<Record<string, string>> = {
  // Only a breaker's stop has a why to show (a person's has none): status says it where there is one.
  agent_suspended: 'coffer resume asks the owner to resume this agent (where its breaker stopped it, coffer status says why)',
  daily_budget_exceeded: 'it frees as payments pass 24 hours old; coffer policy --daily AMOUNT asks the owner for a larger daily budget',
  budget_exceeded: 'coffer policy shows each budget and when it starts afresh; coffer policy --budget ... asks the owner for more',
  max_per_payment_exceeded: 'coffer policy --max AMOUNT asks the owner for a higher max per payment',
  service_not_allowed: 'coffer policy --allow SERVICE ... asks the owner to allow it (name every service to keep)',
  insufficient_funds: "the owner funds this agent's wallet: coffer allocate AGENT AMOUNT (with --rail base for its wallet on Base)",
  price_above_registry: 'coffer services SERVICE shows the price the registry lists; a registry service is paid that, no more',
  // A held payment's request ended unanswered (a seller's terms end with it): nothing was paid.
  approval_expired:
    "ask again: the seller's terms are fresh, and the owner is asked again (a Coffer paywall's terms last 5 minutes by default)",
  nonce_expired:
    "ask again: the seller's terms are fresh, and the owner is asked again (a Coffer paywall's terms last 5 minutes by default)",
};

const PAYING_COMMANDS = new Set(['pay', 'fetch']);

/** Short of funds on a known rail: the one command that funds the wallet there. */
const FUND_ON: Readonly<Record<Rail, string>> = {
  sol: "the owner funds this agent's wallet: coffer allocate AGENT AMOUNT",
  base: "the owner funds this agent's wallet on Base: coffer allocate AGENT AMOUNT --rail base",
};

/**
 * The line to print after a refusal of `command` with `code` (AGENT: the agent, where its id is
 * known; `rail`: the rail the refused payment was on, where the terminal knows it); null: nothing to add.
 */
export function nextStep(command: string | undefined, code: string | null, agentId?: string, rail?: Rail): string | null {
  if (command === undefined || code === null || !PAYING_COMMANDS.has(command)) return null;
  const next = code === 'insufficient_funds' && rail !== undefined ? FUND_ON[rail] : (AGENT_NEXT[code] ?? null);
  return next === null || agentId === undefined ? next : next.replace(/\bAGENT\b/, agentId);
}
