/**
 * Warnings (issue 25, point 4): as a budget's spending passes a share the owner set (80 % and 95 %
 * unless changed), the owner is told, once per budget and share in each of its windows (a calendar
 * window's period, a rolling window's length, a lifetime budget once). Pure: what a budget has spent
 * is read by the caller; what was told, and when, is the notices port's.
 */
import { describeBudget, inScope, type BudgetUsage, type BudgetedPayment } from './budgets.js';
import { formatUsdc } from './money.js';
import { DAY_MS } from './context.js';

/** A budget as warnings see it: the daily budget, or one of the policy's budgets. */
export interface BudgetStanding {
  /** Names the budget among the agent's: the same budget keeps it, one with another limit is another budget. */
  key: string;
  /** The budget in words: "its daily budget of 5.00 USDC", "its budget of 30 payments in any hour". */
  words: string;
  /** Its limit and what counts against it, in what it holds: micro-USDC, or payments. */
  limit: bigint;
  used: bigint;
  counts: 'amount' | 'payments';
  /** Where its window begins now (null: its lifetime): a share told since then is not told again. */
  from: number | null;
}

/** The daily budget and every budget a payment fell under, standing as they do with the payment counted. */
export function standingsAfter(
  daily: { limit: bigint; spentBefore: bigint; now: number },
  usages: BudgetUsage[],
  payment: BudgetedPayment,
): BudgetStanding[] {
  const standings: BudgetStanding[] = [
    {
      key: `daily:${daily.limit}`,
      words: `its daily budget of ${formatUsdc(daily.limit)} USDC`,
      limit: daily.limit,
      used: daily.spentBefore + payment.amount,
      counts: 'amount',
      // As the daily budget counts: a payment exactly 24 h old is out.
      from: daily.now - DAY_MS + 1,
    },
  ];
  for (const { budget, spent, from } of usages) {
    if (!inScope(budget.scope, payment)) continue;
    const counted = budget.count !== null;
    standings.push({
      key: JSON.stringify([budget.window, budget.scope, budget.amount?.toString() ?? null, budget.count]),
      words: `its budget of ${describeBudget(budget)}`,
      limit: counted ? BigInt(budget.count ?? 0) : (budget.amount ?? 0n),
      used: counted ? BigInt(spent.payments + 1) : spent.amount + payment.amount,
      counts: counted ? 'payments' : 'amount',
      from,
    });
  }
  return standings;
}

/** The shares of `warnAt` a budget has reached (ascending): none while it is below the first. */
export const sharesReached = (standing: BudgetStanding, warnAt: number[]): number[] =>
  warnAt.filter((share) => standing.used * 100n >= standing.limit * BigInt(share));

/** What is told under a share of a budget (the notices port's subject). */
export const warningSubject = (standing: BudgetStanding, share: number) => `budget:${standing.key}:${share}`;

/** The warning in words: "researcher has used 82 % of its budget of 50.00 USDC a month (41.00 USDC spent)". */
export function warningWords(agentId: string, standing: BudgetStanding): string {
  const share = Number((standing.used * 100n) / (standing.limit === 0n ? 1n : standing.limit));
  const used = standing.counts === 'amount' ? `${formatUsdc(standing.used)} USDC spent` : `${standing.used} made`;
  return `${agentId} has used ${share} % of ${standing.words} (${used})`;
}
