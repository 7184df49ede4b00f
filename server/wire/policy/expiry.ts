/**
 * A policy's end as data (issue 25, point 3): read from the wire (a day ends at midnight in the
 * owner's time zone) and compared. What an ended policy refuses is the engine's
 * (server/core/policy/expiry.ts).
 */
import { Temporal } from 'temporal-polyfill';
import { CofferError } from '../errors.js';

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * When a policy ends, from the wire (schemas.ts expiresAtSchema): a time as given, or a day at its end
 * in the owner's time zone (the next day's start, so "2026-12-31" holds all of that day). A time not
 * after `now` is refused: a policy that has already ended would only stop the agent, which the kill
 * switch says plainly.
 */
export function expiryOf(text: string | null, now: number, timeZone: string): number | null {
  if (text === null) return null;
  const at = DAY_ONLY.test(text) ? endOfLocalDay(text, timeZone) : Date.parse(text);
  if (at <= now) {
    throw new CofferError(
      'invalid_policy',
      `Expires ${text} is in the past; name a later day or time, or stop the agent with its kill switch`,
    );
  }
  // Answered as an ISO time, which writes a later one as "+010000-…", a time no policy takes back.
  if (at >= YEAR_10000) {
    throw new CofferError(
      'invalid_policy',
      `Expires ${text} is past the end of the year 9999; name an earlier day or time, or null for never`,
    );
  }
  return at;
}

/** 10000-01-01T00:00:00Z: the first instant an ISO time writes with more than four digits of year. */
const YEAR_10000 = Date.UTC(10_000, 0, 1);

/** The end of a day ("2026-12-31") in a time zone: the earliest instant of the next day there. */
const endOfLocalDay = (day: string, timeZone: string): number =>
  Temporal.PlainDate.from(day).add({ days: 1 }).toZonedDateTime({ timeZone }).epochMilliseconds;

/** Whether `next` ends no later than `current` (a policy without an end is the loosest). */
export const expiryTightens = (current: number | null, next: number | null): boolean =>
  next !== null && (current === null || next <= current);

/** The day a moment falls on in a zone, as a date is typed: "2026-12-31". */
export const dayIn = (at: number, timeZone: string): string =>
  Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(timeZone).toPlainDate().toString();

/**
 * The day an end closes, when it is the end of a day in the owner's time zone ("2026-12-31" is kept
 * as the next midnight there, expiryOf), else null: such an end is said, and edited, as that day, the
 * day its last moment falls on, when reading that day again gives this very end.
 */
export function dayEndingAt(at: number, timeZone: string): string | null {
  const last = dayIn(at - 1, timeZone);
  return expiryOf(last, Number.NEGATIVE_INFINITY, timeZone) === at ? last : null;
}

/**
 * An end in words, in the owner's zone: the end of a day as that day ("the end of 2026-12-31"), any
 * other moment as its wall time there with the zone ("2027-01-01 00:30 America/New_York").
 */
export function endWords(text: string, timeZone: string): string {
  if (DAY_ONLY.test(text)) return `the end of ${text}`;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return text;
  const day = dayEndingAt(at, timeZone);
  if (day !== null) return `the end of ${day}`;
  return wallTimeWords(at, timeZone);
}

/**
 * When a policy ends (or ended), as a sentence goes on after "ends"/"ended": in the owner's zone,
 * where they set it, and as the instant a program reads: "at the end of 2026-12-31 in
 * America/New_York (2027-01-01T05:00:00.000Z)", "at 2027-01-01 00:30 America/New_York (…)".
 */
export function policyEndWords(at: number, timeZone: string): string {
  const iso = new Date(at).toISOString();
  try {
    const day = dayEndingAt(at, timeZone);
    return `at ${day === null ? wallTimeWords(at, timeZone) : `the end of ${day} in ${timeZone}`} (${iso})`;
  } catch {
    // A zone this runtime no longer knows (checked when it was set): the instant alone, never a
    // refusal that fails to say itself.
    return `at ${iso}`;
  }
}

/** A moment as the clock on the wall shows it in a zone, with the zone: "2027-01-01 00:30 America/New_York". */
export function wallTimeWords(at: number, timeZone: string): string {
  const wall = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(timeZone).toPlainDateTime();
  return `${wall.toString({ smallestUnit: 'minute' }).replace('T', ' ')} ${timeZone}`;
}
