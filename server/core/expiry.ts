/**
 * A policy's end (issue 25, point 3): after `expiresAt` every payment of the agent is refused with its
 * own code, and the owner is told a day before (expiry-notices.ts). Pure decisions.
 */
import { Temporal } from 'temporal-polyfill';
import { CofferError, type Refusal } from './errors.js';

/** The owner is told this long before a policy ends. */
const EXPIRY_NOTICE_MS = 24 * 60 * 60 * 1000;

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
  return at;
}

/** The end of a day ("2026-12-31") in a time zone: the earliest instant of the next day there. */
const endOfLocalDay = (day: string, timeZone: string): number =>
  Temporal.PlainDate.from(day).add({ days: 1 }).toZonedDateTime({ timeZone }).epochMilliseconds;

/** After its end a policy allows no payment: the first refusal of every payment then. */
export const expiredRefusal = (expiresAt: number | null, now: number): Refusal =>
  expiresAt === null || now < expiresAt
    ? null
    : new CofferError(
        'policy_expired',
        `this agent's policy ended at ${new Date(expiresAt).toISOString()}: its payments are refused until the owner sets a later end, or none`,
      );

/** Whether `next` ends no later than `current` (a policy without an end is the loosest). */
export const expiryTightens = (current: number | null, next: number | null): boolean =>
  next !== null && (current === null || next <= current);

/**
 * What is told under a policy's coming end (the notices port's subject): once, whatever end the agent
 * itself brings closer (it could otherwise have the owner told every minute); an end the owner sets
 * is told afresh (their change forgets what was told).
 */
export const EXPIRY_SUBJECT = 'expiry';

/** Whether the owner is to be told of a policy's end now: it ends within a day and has not ended yet. */
export const endsSoon = (expiresAt: number | null, now: number): expiresAt is number =>
  expiresAt !== null && now < expiresAt && expiresAt - now <= EXPIRY_NOTICE_MS;

/** The reminder in words: "researcher's policy ends at 2026-12-31T23:00:00.000Z: its payments are refused after that". */
export const expiryWords = (agentId: string, expiresAt: number) =>
  `${agentId}'s policy ends at ${new Date(expiresAt).toISOString()}: its payments are refused after that, unless you set a later end`;
