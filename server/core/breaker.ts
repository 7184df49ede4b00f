/**
 * The breaker (issue 25, point 5): the owner says when an agent stops itself, after so many refused
 * payments within so many minutes, or once its payments within so many minutes make up a share of a
 * amount budget they fall under. A tripped breaker suspends the agent with its reason
 * (spending-watch.ts tripBreaker), and only the owner resumes it. Pure decisions; what they judge is read by the caller.
 */
import { formatUsdc } from './money.js';
import { sharesReached, type BudgetStanding } from './budget-warnings.js';
import type { BreakerBody } from './schemas.js';

export interface Breaker {
  refusals: { count: number; minutes: number } | null;
  spending: { percent: number; minutes: number } | null;
}

export const MINUTE_MS = 60_000;

/** A breaker from the wire (schemas.ts breakerSchema). */
export const breakerOf = (body: BreakerBody): Breaker | null =>
  body === null ? null : { refusals: body.refusals ?? null, spending: body.spending ?? null };

/** A breaker as every door shows it: the wire's own shape. */
export const breakerView = (breaker: Breaker) => ({
  ...(breaker.refusals === null ? {} : { refusals: { ...breaker.refusals } }),
  ...(breaker.spending === null ? {} : { spending: { ...breaker.spending } }),
});

/** A breaker in words: "stops after 5 refusals within 10 minutes, or 50 % of a budget spent within 15 minutes". */
export function describeBreaker(breaker: Breaker): string {
  const parts = [
    breaker.refusals === null
      ? null
      : `${breaker.refusals.count} refusal${breaker.refusals.count === 1 ? '' : 's'} within ${minutes(breaker.refusals.minutes)}`,
    breaker.spending === null ? null : `${breaker.spending.percent} % of a budget spent within ${minutes(breaker.spending.minutes)}`,
  ].filter((part) => part !== null);
  return `stops after ${parts.join(', or ')}`;
}

const minutes = (count: number) => `${count} minute${count === 1 ? '' : 's'}`;

/**
 * Whether `next` trips no later than `current`: each part in force stays, tripping on as few
 * refusals (or as small a share) within as long a time; a new part only adds a way to trip.
 */
export function breakerTightens(current: Breaker | null, next: Breaker | null): boolean {
  if (current === null) return true;
  if (next === null) return false;
  const refusalsHold =
    current.refusals === null ||
    (next.refusals !== null && next.refusals.count <= current.refusals.count && next.refusals.minutes >= current.refusals.minutes);
  const spendingHolds =
    current.spending === null ||
    (next.spending !== null && next.spending.percent <= current.spending.percent && next.spending.minutes >= current.spending.minutes);
  return refusalsHold && spendingHolds;
}

/** The reason a breaker trips on refusals: null while fewer than its count fell within its minutes. */
export function refusalsTrip(breaker: Breaker | null, refusedWithin: number): string | null {
  if (breaker?.refusals == null || refusedWithin < breaker.refusals.count) return null;
  return `its breaker tripped: ${refusedWithin} refused payments within ${minutes(breaker.refusals.minutes)}`;
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
