import type { Rail } from '../../../wire/rails.js';
import type { BudgetScope } from '../../../wire/policy/budget.js';

/** Port: what an agent has spent, read from the figures the ledger maintains as payments change. */
export interface AgentSpendTotals {
  lifetimeSpent: bigint;
  lifetimePayments: number;
  spentSince: bigint;
  /** Of spentSince, the payments whose request waits for the owner's yes (counted, not paid): as heldSince. */
  heldSince: bigint;
  lastPaymentAt: number | null;
}

export interface SpendStore {
  /** Sum of held, pending and confirmed payments of an agent created after `since` (a payment exactly 24 h old is out). */
  spentSince(owner: string, agentId: string, since: number): bigint;
  /**
   * Of that sum, the payments whose request waits for the owner's yes (not paid, and never paid unless
   * approved). An approved x402 purchase the agent has not yet bought is held still, but waits for the
   * agent, not the owner: counted in the sum, not here.
   */
  heldSince(owner: string, agentId: string, since: number): bigint;
  /** Sum of pending payments of an agent (money reserved but not yet moved on chain), on one rail or (left out) on both. */
  pendingPaymentsTotal(owner: string, agentId: string, rail?: Rail): bigint;
  lastPaymentAt(owner: string, agentId: string): number | null;
  /** Each agent's totals, and what it spent after `since`; only the agents named, when `agentIds` is given (a page of rows). */
  spendTotals(owner: string, since: number, agentIds?: readonly string[]): Map<string, AgentSpendTotals>;
  /**
   * What the agent's payments in a budget's scope spent (pending and confirmed, not refunded) made at
   * `from` or later, or in all (`from` null). Kept for the scopes its policy's budgets name; never
   * read from its whole history.
   */
  budgetSpent(owner: string, agentId: string, scope: BudgetScope, from: number | null): Spent;
}

/** What the payments in a budget's scope and window add up to: their amount and how many they are (pending and confirmed, not refunded). */
export interface Spent {
  amount: bigint;
  payments: number;
}
