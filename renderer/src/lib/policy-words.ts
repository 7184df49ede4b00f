import { budgetOf, describeBudget } from '../../../server/wire/policy/budget.js';
import { breakerOf, describeBreaker } from '../../../server/wire/policy/breaker.js';
import type { BreakerBody, BudgetBody } from '../../../server/wire/schemas.js';
import { dayEndingAt as dayEndingAtInstant } from '../../../server/wire/policy/expiry.js';
import { readableUsdc, tryParseUsdc } from './money.js';
import { dateTime } from './time.js';
import { dayWords } from './time-zone.js';

/** A budget in the engine's own words: "50.00 USDC a month", "30 payments in any hour for demo-weather". */
export const budgetWords = (budget: BudgetBody): string => describeBudget(budgetOf(budget));

/** A breaker in the engine's own words ("stops after 5 refusals within 10 minutes"), or that there is none. */
export function breakerWords(breaker: BreakerBody | undefined): string {
  const parsed = breakerOf(breaker ?? null);
  return parsed === null ? 'none: it stops only when you stop it' : describeBreaker(parsed);
}

/**
 * The day an end closes, when it is the end of a day in the owner's time zone (the server keeps
 * "2026-12-31" as the next midnight there, server/wire/policy/expiry.ts), else null: such an end is said, and edited,
 * as that day ("2026-12-31"): the day its last moment falls on, when the server's own reading of
 * that day gives this very end.
 */
export function dayEndingAt(expiresAt: string, timeZone: string): string | null {
  const at = Date.parse(expiresAt);
  return Number.isNaN(at) ? null : dayEndingAtInstant(at, timeZone);
}

/** A policy's end named, as read in the owner's time zone: "the end of Dec 31, 2026", or its date and time. */
export function endNamed(expiresAt: string, timeZone: string): string {
  const day = dayEndingAt(expiresAt, timeZone);
  return day === null ? dateTime(expiresAt, timeZone) : `the end of ${dayWords(day)}`;
}

/** When a policy ends: "at the end of Dec 31, 2026", or its date and time. */
export const endWords = (expiresAt: string, timeZone: string): string =>
  dayEndingAt(expiresAt, timeZone) === null ? endNamed(expiresAt, timeZone) : `at ${endNamed(expiresAt, timeZone)}`;

/**
 * Which payments wait for the owner's yes, as a policy says it (`askAbove`, `askNewRecipient`): "payments
 * above 2.00 USDC and the first payment to a new recipient", "every payment"; null when none waits.
 */
export function asksWords({ askAbove, askNewRecipient }: { askAbove?: string; askNewRecipient?: boolean }): string | null {
  const threshold = askAbove === undefined ? null : (tryParseUsdc(askAbove) ?? 0n);
  if (threshold === 0n) return 'every payment';
  const asks = [
    ...(threshold === null ? [] : [`payments above ${readableUsdc(threshold)} USDC`]),
    ...(askNewRecipient === true ? ['the first payment to a new recipient'] : []),
  ];
  return asks.length === 0 ? null : asks.join(' and ');
}

/**
 * Why an agent stopped, short enough for a row: "its breaker tripped: 5 refused payments within 10
 * minutes" reads "Breaker tripped: 5 refused payments within 10 minutes".
 */
export function shortReason(reason: string): string {
  const text = reason.replace(/^its /, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Addresses in words shortened for a narrow place ("93ug…Dnrx", "0x5aAe…eAed"); the full words go in its title. */
export const shortAddresses = (text: string): string =>
  text
    .replace(/\b0x[0-9a-fA-F]{40}\b/g, (address) => `${address.slice(0, 6)}…${address.slice(-4)}`)
    .replace(/\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g, (address) => `${address.slice(0, 4)}…${address.slice(-4)}`);
