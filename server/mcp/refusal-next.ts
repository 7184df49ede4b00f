/**
 * What an agent can do about a refusal, in the tools it has: the MCP counterpart of the line `coffer
 * pay` and `coffer fetch` print after one (cli/next-step.ts). A model reads the refusal's text and
 * nothing else, so the next call is named there, with its argument.
 */
const ALLOCATE =
  'allocate_budget asks the owner for USDC into this wallet (rail "base" for its account on Base, where this Coffer runs that rail)';

/**
 * The allocation, typed for the rail the refusal says the wallet was short on ("available on Base"):
 * a model copies the call it is given, so one short on Solana is not handed rail "base" (helper 189).
 */
function allocateFor(message: string): string {
  const short = /USDC available on (Solana|Base)\b/.exec(message)?.[1];
  if (short === 'Base') return 'allocate_budget with rail "base" asks the owner for USDC into this wallet\'s account on Base';
  return short === 'Solana' ? 'allocate_budget without rail asks the owner for USDC into this wallet on Solana' : ALLOCATE;
}

/**
 * Short of funds where the refusal says the purchase is payable on the other rail, and how (its own
 * words: server/core/payments/refusals.ts payableElsewhere, x402/paying-fetch/coffer-terms.ts): that
 * call first, then the allocation. Only the way this refusal names is offered (a paragraph covering
 * every way contradicted the refusal before it, helper 174).
 */
const OTHER_RAIL_CALLS: readonly [words: RegExp, call: string][] = [
  [/ask again with the rail "base"/, 'fetch_paid again with rail "base" pays it from this agent\'s wallet on Base'],
  [/ask again with the rail "sol"/, 'fetch_paid again with rail "sol" pays it from this agent\'s wallet on Solana'],
  // /pay's, for a registry service paid on Base too (core/payments/paid-on-base-too.ts).
  [/asked with rail "base", it is paid there/, 'pay again with rail "base" pays it from this agent\'s wallet on Base'],
  [/the owner's yes is for /, 'fetch_paid again without approvalId asks anew on the rail it names'],
  [/with no rail asked/, 'fetch_paid again without rail pays it on the rail it names'],
];

const NEXT_TOOL: Readonly<Record<string, string>> = {
  agent_suspended: 'resume_agent asks the owner to resume this agent; nothing is paid until they do',
  daily_budget_exceeded:
    'the daily budget frees as payments pass 24 hours old; set_policy with a larger dailyBudget asks the owner for more',
  budget_exceeded:
    'get_policy shows each budget, what is spent and left, and when a calendar one starts afresh; set_policy with larger budgets asks the owner for more',
  policy_expired: 'set_policy with a later expiresAt (or null: no end) asks the owner for it',
  cooldown_active: 'call again once it passes; set_policy with a shorter cooldownSeconds asks the owner for it',
  max_per_payment_exceeded: 'set_policy with a higher maxPerPayment asks the owner for it',
  service_not_allowed:
    "set_policy with allowedServices naming it (a registry service's id, else the address it was paid to; and every service to keep) asks the owner to allow it",
  insufficient_funds: ALLOCATE,
  price_above_registry: 'find_service shows the price the registry lists; a registry service is paid that, no more',
  approval_withdrawn:
    'check_balance says whether this agent was stopped (status suspended: resume_agent asks the owner to resume it); else call the tool again to ask anew (pay or fetch_paid, as it was asked, without its approvalId)',
  approval_expired: "call again: the seller's terms are fresh, and the owner is asked again",
  nonce_expired: "call again: the seller's terms are fresh, and the owner is asked again",
};

/** The refusals a tool adds a next call to: the same as the CLI's (cli/next-step.ts). */
export const NEXT_TOOL_CODES: readonly string[] = Object.keys(NEXT_TOOL);

/**
 * The sentence to add after a refusal with `code` (and `message`, its words); null where there is
 * nothing more to do than its words say. After the refusal that tripped the agent's breaker
 * (`stopped`), resuming comes first.
 */
export function nextTool(code: string, stopped = false, message = ''): string | null {
  // Archived, stopped for good: no resume starts it again (agent_archived), so none is offered (helper 178).
  if (code === 'agent_suspended' && / is archived: /.test(message)) return null;
  if (!stopped && code === 'insufficient_funds') {
    const otherRail = OTHER_RAIL_CALLS.find(([words]) => words.test(message));
    return otherRail === undefined ? allocateFor(message) : `${otherRail[1]}; or ${allocateFor(message)}`;
  }
  return NEXT_TOOL[stopped ? 'agent_suspended' : code] ?? null;
}

/** The tool that asks the owner for each kind of request anew. */
const ASKED_WITH: Readonly<Record<string, string>> = {
  allocate: 'allocate_budget',
  policy: 'set_policy',
  deploy: 'deploy_agent',
};

/**
 * What to do about a request that ended without the owner's yes (`withdrawn`, `expired`), by its kind,
 * as check_approval says it: a held payment's as the refusal of the call that waited names it; another
 * request's with the tool that asked it (helper 191: an allocation taken back was told to call
 * fetch_paid, "the seller's terms" fresh). Null for the other statuses.
 */
export function nextAfterEnded(kind: string, status: string): string | null {
  if (status !== 'withdrawn' && status !== 'expired') return null;
  // A held payment's as the refusal of the call that waited names it; expired, without the seller's
  // terms a `fetch_paid`'s refusal speaks of: the hold may be a `pay`'s (helper 193).
  if (kind === 'payment') {
    return status === 'withdrawn'
      ? nextTool('approval_withdrawn')
      : 'the owner did not answer in time: call the tool again (pay or fetch_paid, as it was asked, without its approvalId); the owner is asked again';
  }
  if (kind === 'resume') {
    return status === 'withdrawn'
      ? 'check_balance says whether this agent is active again (the owner resuming it ends its request); else resume_agent asks anew'
      : 'resume_agent asks the owner anew';
  }
  const tool = ASKED_WITH[kind] ?? 'the tool that asked';
  return status === 'withdrawn'
    ? `check_balance says whether this agent was stopped (status suspended: resume_agent asks the owner to resume it); else ${tool} asks the owner anew`
    : `the owner did not answer in time: ${tool} asks anew`;
}
