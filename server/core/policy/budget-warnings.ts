/**
 * Warnings (issue 25, point 4): as a budget's spending passes a share the owner set (80 % and 95 %
 * unless changed), the owner is told, once per budget and share in each of its windows (a calendar
 * window's period, a rolling window's length, a lifetime budget once). Pure: what a budget has spent
 * is read by the caller; what was told, and when, is the notices port's.
 */
import { describeBudget, inScope } from '../../wire/policy/budget.js';
import { type BudgetUsage, type BudgetedPayment } from './budgets.js';
import { formatUsdc } from '../../wire/money.js';
import { dailyWindow } from '../../wire/policy/windows.js';

/** A budget as the owner is told of it: the daily budget, or one of the policy's budgets. */
export interface BudgetStanding {
  /**
   * Names the budget among the agent's whatever its limit (its window, scope and what it counts): an
   * agent lowering a limit by a hair is not a new budget to tell of again.
   */
  key: string;
  /** Its limit in words: "5.00 USDC in any 24 hours", "30 payments in any hour for demo-weather". */
  words: string;
  /** The budget named: "its daily budget of 5.00 USDC", "its budget of 30 payments in any hour". */
  name: string;
  /** Its limit and what counts against it, in what it holds: micro-USDC, or payments. */
  limit: bigint;
  used: bigint;
  counts: 'amount' | 'payments';
  /** Where its window begins now (null: its lifetime): a share told since then is not told again. */
  from: number | null;
}

/** The daily budget with what it has spent (`used`), at `now`. */
export const dailyStanding = (limit: bigint, used: bigint, now: number): BudgetStanding => ({
  key: 'daily',
  words: `${formatUsdc(limit)} USDC in any 24 hours`,
  name: `its daily budget of ${formatUsdc(limit)} USDC`,
  limit,
  used,
  counts: 'amount',
  from: dailyWindow(now).from,
});

/** One of the policy's budgets with what its window has spent. */
export function budgetStanding({ budget, spent, from }: Pick<BudgetUsage, 'budget' | 'spent' | 'from'>): BudgetStanding {
  const counted = budget.count !== null;
  return {
    key: JSON.stringify([budget.window, budget.scope, counted ? 'payments' : 'amount']),
    words: describeBudget(budget),
    name: `its budget of ${describeBudget(budget)}`,
    limit: counted ? BigInt(budget.count ?? 0) : (budget.amount ?? 0n),
    used: counted ? BigInt(spent.payments) : spent.amount,
    counts: counted ? 'payments' : 'amount',
    from,
  };
}

/** How much of its limit a budget has used, in whole percents (more than 100 past it). */
export const percentUsed = (standing: BudgetStanding): number =>
  Number((standing.used * 100n) / (standing.limit > 0n ? standing.limit : 1n));

/** The daily budget and every budget a payment fell under, standing as they do with the payment counted. */
export function standingsAfter(
  daily: { limit: bigint; spentBefore: bigint; now: number },
  usages: BudgetUsage[],
  payment: BudgetedPayment,
): BudgetStanding[] {
  return [
    dailyStanding(daily.limit, daily.spentBefore, daily.now),
    ...usages.filter(({ budget }) => inScope(budget.scope, payment)).map(budgetStanding),
  ].map((standing) => ({ ...standing, used: standing.used + (standing.counts === 'amount' ? payment.amount : 1n) }));
}

/** The shares of `warnAt` a budget has reached (ascending): none while it is below the first. */
export const sharesReached = (standing: BudgetStanding, warnAt: number[]): number[] =>
  warnAt.filter((share) => standing.used * 100n >= standing.limit * BigInt(share));

/** What is told under a share of a budget (the notices port's subject). */
export const warningSubject = (standing: BudgetStanding, share: number) => `budget:${standing.key}:${share}`;

/** What a budget has used, in words: "41.00 USDC spent", "3 made". */
const usedWords = (standing: BudgetStanding): string =>
  standing.counts === 'amount' ? `${formatUsdc(standing.used)} USDC spent` : `${standing.used} made`;

/** The warning in words: "researcher has used 82 % of its budget of 50.00 USDC a month (41.00 USDC spent)". */
export const warningWords = (agentId: string, standing: BudgetStanding): string =>
  `${agentId} has used ${percentUsed(standing)} % of ${standing.name} (${usedWords(standing)})`;
