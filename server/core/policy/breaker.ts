/**
 * When a breaker trips (issue 25, point 5): after so many refused payments within its minutes, or
 * once the payments within its minutes reach its share of an amount budget. A tripped breaker
 * suspends the agent with its reason (spending-watch.ts tripBreaker), and only the owner resumes it.
 * Pure decisions; what they judge is read by the caller. A breaker as data is
 * server/wire/policy/breaker.ts.
 */
import { formatUsdc } from '../../wire/money.js';
import { sharesReached, type BudgetStanding } from './budget-warnings.js';
import { minutes, type Breaker } from '../../wire/policy/breaker.js';

export const MINUTE_MS = 60_000;

/** The reason a breaker trips on refusals: null while fewer than its count fell within its minutes. */
export function refusalsTrip(breaker: Breaker | null, refusedWithin: number): string | null {
  if (breaker?.refusals == null || refusedWithin < breaker.refusals.count) return null;
  return `its breaker tripped: ${refusedWithin} refused payment${refusedWithin === 1 ? '' : 's'} within ${minutes(breaker.refusals.minutes)}`;
}

/**
 * The reason a breaker trips on spending: the first amount budget (the daily one included) whose
 * payments within the breaker's minutes (`used`) reached its percent of the limit.
 */
export function spendingTrip(breaker: Breaker | null, recent: BudgetStanding[]): string | null {
  const spending = breaker?.spending;
  if (spending == null) return null;
  const hit = recent.find((standing) => standing.counts === 'amount' && sharesReached(standing, [spending.percent]).length > 0);
  if (hit === undefined) return null;
  return (
    `its breaker tripped: ${formatUsdc(hit.used)} USDC spent within ${minutes(spending.minutes)}, ` +
    `${spending.percent} % or more of ${hit.name}`
  );
}
