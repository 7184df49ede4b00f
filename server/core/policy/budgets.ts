/**
 * The refusal of a payment that would pass a budget (issue 25). A payment must fit every budget it
 * falls under. Pure decisions, as rules.ts's: what a budget has spent is read by the caller from the
 * ledger and passed in. A budget as data, and which payments it holds (inScope), is
 * server/wire/policy/budget.ts.
 */
import { wallTimeWords } from '../../wire/policy/expiry.js';
import { CofferError, type Refusal } from '../../wire/errors.js';
import { formatUsdc } from '../../wire/money.js';
import { describeBudget, inScope, type Budget, type ScopedPayment } from '../../wire/policy/budget.js';
import type { Spent } from '../ports/store/spend.js';

/** A payment as a budget sees it: who is paid, under which service id, and how much. */
export interface BudgetedPayment extends ScopedPayment {
  amount: bigint;
}

/**
 * A budget, what its scope has spent in its window now, where that window begins (null: its lifetime)
 * and when it starts afresh (null: at no set time).
 */
export interface BudgetUsage {
  budget: Budget;
  /**
   * What its window spent; on the payment path, for a budget its scope's whole spending keeps far
   * from its limit and the first warning share, that whole spending: a bound that judges the same
   * (budget-usage.ts usagesFor).
   */
  spent: Spent;
  from: number | null;
  resetsAt: number | null;
}

/** Whether one more payment of `amount` stays within a budget that has spent `spent`. */
export const fits = (budget: Budget, spent: Spent, amount: bigint): boolean =>
  budget.count !== null ? spent.payments + 1 <= budget.count : spent.amount + amount <= (budget.amount ?? 0n);

/** What a budget has spent, said as its limit is: "1.50 USDC", "30 made". */
const spentWords = (budget: Budget, spent: Spent) =>
  budget.count !== null ? `${spent.payments} made` : `${formatUsdc(spent.amount)} USDC spent`;

/**
 * The first budget a payment would pass, in the order the budgets are listed, as a refusal that names
 * it, what it has spent and when it frees: a calendar window at its reset (with Retry-After), a
 * rolling one as its payments age out, a lifetime budget never (`timeZone`: the owner's, where its
 * windows were read). Null when the payment fits every
 * budget it falls under.
 */
export function budgetRefusal(usages: BudgetUsage[], payment: BudgetedPayment, now: number, timeZone: string): Refusal {
  for (const { budget, spent, resetsAt } of usages) {
    if (!inScope(budget.scope, payment) || fits(budget, spent, payment.amount)) continue;
    const frees =
      resetsAt !== null
        ? // Said on the owner's wall clock, where they set the window, and as the instant a program reads.
          `it starts afresh at ${wallTimeWords(resetsAt, timeZone)} (${new Date(resetsAt).toISOString()})`
        : budget.window === 'lifetime'
          ? 'it never starts afresh'
          : 'it frees as its payments grow older than its window';
    return new CofferError(
      'budget_exceeded',
      `this payment would pass the budget of ${describeBudget(budget)}: ${spentWords(budget, spent)}; ${frees}`,
      resetsAt === null ? {} : { retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - now) / 1000)) },
    );
  }
  return null;
}
