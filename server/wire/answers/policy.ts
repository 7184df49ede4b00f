/**
 * A policy as the wire shows it (money as decimal strings, times as ISO), and what the policy routes
 * answer: the policy with what its budgets spent now, and a change tried on the last 30 days. The
 * engine's own policy (micro-units, epoch ms) is server/wire/policy/policy.ts.
 */
import type { BudgetWindow } from '../policy/windows.js';
import type { Rail } from '../rails.js';

/** Whose payments a budget counts: one registry service's, one recipient's, or (neither said) every payment. */
export type BudgetScopeView = {
  service?: string;
  recipient?: string;
};

/** At most an amount over a window. */
export type AmountBudgetView = BudgetScopeView & {
  amount: string;
  window: BudgetWindow;
};

/** At most a number of payments over a window. */
export type CountBudgetView = BudgetScopeView & {
  count: number;
  window: BudgetWindow;
};

export type BudgetView = AmountBudgetView | CountBudgetView;

/** When an agent stops itself: after so many refusals, or so large a share of a budget spent, within so many minutes. */
export type BreakerView = {
  refusals?: { count: number; minutes: number };
  spending?: { percent: number; minutes: number };
};

/** A policy as every door shows it; what it holds beyond the first four fields is said only when set. */
export type PolicyView = {
  dailyBudget: string;
  maxPerPayment: string;
  cooldownSeconds: number;
  allowedServices: string[];
  budgets?: BudgetView[];
  expiresAt?: string;
  /** The shares of a budget (percent) at which the owner is told; absent: the default shares. */
  warnAt?: number[];
  breaker?: BreakerView;
  /** Payments above this wait for the owner's yes. */
  askAbove?: string;
  /** Payments to a recipient the agent never paid wait for the owner's yes. */
  askNewRecipient?: true;
};

/** The /v1 client's name for a policy as shown. */
export type Policy = PolicyView;

/** An amount budget now: what it spent in its window, what remains, when the window starts afresh (null: never). */
export type AmountBudgetNow = AmountBudgetView & {
  spent: string;
  remaining: string;
  resetsAt: string | null;
};

/** A count budget now: the payments made in its window, how many remain, when the window starts afresh (null: never). */
export type CountBudgetNow = CountBudgetView & {
  made: number;
  remaining: number;
  resetsAt: string | null;
};

export type BudgetNow = AmountBudgetNow | CountBudgetNow;

/** GET and POST /v1/agents/:id/policy: the policy, its daily budget's last 24 h, and each budget now (absent without budgets). */
export type PolicyResponse = {
  agentId: string;
  policy: PolicyView;
  spent24h: string;
  /** Of spent24h, the payments held for the owner's yes: counted against the budget, not paid (and never paid unless approved). */
  held24h: string;
  /**
   * Of spent24h, the payments signed or sent and not settled yet (an x402 authorization no seller has
   * settled, a transaction not yet seen on chain): counted against the budget, and lapsing unsettled.
   */
  pending24h: string;
  budgets?: BudgetNow[];
  /** When the policy ends at the end of a day in the owner's time zone: that day, as typed ("2026-12-31"). */
  endsOn?: string;
  /** The owner's time zone (IANA): where calendar windows start afresh and a day's end falls, for saying those moments there. */
  timeZone: string;
  /** When the agent was archived, for an archived agent's policy (kept as it was; it limits nothing). */
  archivedAt?: string;
};

/** A payment of the last 30 days the changed policy would have refused (or held), and why. */
export type WhatIfExample = {
  paymentId: string;
  at: string;
  service: string;
  amount: string;
  /** The rail it was paid on (one policy judges both alike). */
  rail: Rail;
  code: string;
  message: string;
};

/** Payments a policy tried on the past would have refused (or held): how many, how much, by code, and the first few. */
export type WhatIfTally = {
  payments: number;
  amount: string;
  byCode: Record<string, number>;
  examples: WhatIfExample[];
};

/** POST /v1/agents/:id/policy/what-if: a change tried on the payments from `from` to `to` (`payments` judged). */
export type PolicyWhatIf = {
  agentId: string;
  from: string;
  to: string;
  payments: number;
  wouldRefuse: WhatIfTally;
  wouldHold: WhatIfTally;
};
