/**
 * A breaker as data (issue 25, point 5): the owner says when an agent stops itself, after so many
 * refused payments within so many minutes, or once its payments within so many minutes make up a
 * share of an amount budget. Read from the wire, shown, said and compared here; when one trips is
 * the engine's to judge (server/core/policy/breaker.ts).
 */
import type { BreakerBody } from '../schemas.js';
import type { BreakerView } from '../answers/policy.js';

export interface Breaker {
  refusals: { count: number; minutes: number } | null;
  spending: { percent: number; minutes: number } | null;
}

/** A breaker from the wire (schemas.ts breakerSchema). */
export const breakerOf = (body: BreakerBody): Breaker | null =>
  body === null ? null : { refusals: body.refusals ?? null, spending: body.spending ?? null };

/** A breaker as every door shows it: the wire's own shape. */
export const breakerView = (breaker: Breaker): BreakerView => ({
  ...(breaker.refusals === null ? {} : { refusals: { ...breaker.refusals } }),
  ...(breaker.spending === null ? {} : { spending: { ...breaker.spending } }),
});

/**
 * A breaker in words: "stops after 5 refusals within 10 minutes, or 50 % of any amount budget (the
 * daily one too) spent within 15 minutes"; either counts from the owner's last resume.
 */
export function describeBreaker(breaker: Breaker): string {
  const parts = [
    breaker.refusals === null
      ? null
      : `${breaker.refusals.count} refusal${breaker.refusals.count === 1 ? '' : 's'} within ${minutes(breaker.refusals.minutes)}`,
    breaker.spending === null
      ? null
      : `${breaker.spending.percent} % of any amount budget (the daily one too) spent within ${minutes(breaker.spending.minutes)}`,
  ].filter((part) => part !== null);
  return `stops after ${parts.join(', or ')}`;
}

/** A policy's breaker as the wire carries it, in words; null where it has none. */
export const breakerWords = (view: BreakerView | undefined): string | null =>
  view === undefined ? null : describeBreaker({ refusals: view.refusals ?? null, spending: view.spending ?? null });

/** How the breaker's stop ends its words: a refusal that carries them stopped the agent (its answer also carries `agentStopped`). */
export const STOPPED_UNTIL_RESUMED = 'every payment refused until the owner resumes it';

/**
 * An agent its breaker stopped, said after why ("its breaker tripped: …: agent "x" is stopped, every
 * payment refused until the owner resumes it"): in the refusal that tripped it, and after the payment that did.
 */
export const stoppedByBreakerWords = (agentId: string, reason: string) =>
  `${reason}: agent "${agentId}" is stopped, ${STOPPED_UNTIL_RESUMED}`;

/** A number of minutes in words: "1 minute", "15 minutes". */
export const minutes = (count: number) => `${count} minute${count === 1 ? '' : 's'}`;

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
