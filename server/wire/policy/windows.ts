/**
 * The windows a budget counts payments over (issue 25): rolling (the last hour, 24 h, 7 days or 30
 * days, to the millisecond), calendar (this day, this week from Monday, this month, in the owner's
 * time zone, daylight-saving changes included), or the agent's lifetime. Pure: a time zone's rules
 * come from Temporal (temporal-polyfill) over the platform's own time-zone data; its day starts at
 * its earliest instant whatever zone the process runs in (@date-fns/tz put some days' ends an hour
 * off, on daylight-saving days, in a process of another zone).
 */
import { Temporal } from 'temporal-polyfill';

export const BUDGET_WINDOWS = ['hour', '24h', '7d', '30d', 'day', 'week', 'month', 'lifetime'] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];
type CalendarWindow = 'day' | 'week' | 'month';

const HOUR_MS = 60 * 60 * 1000;
/** A rolling window's length. */
const ROLLING_MS: Record<Exclude<BudgetWindow, CalendarWindow | 'lifetime'>, number> = {
  hour: HOUR_MS,
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
};

/**
 * The daily budget's window at `now`, the one place it is drawn: the payments made after `after`
 * (never one exactly 24 h old, as the `24h` budget counts), `from` being its first millisecond.
 * The ledger's sums take `after` (spentSince, heldSince, spendTotals); a budget's standing, `from`.
 */
export const dailyWindow = (now: number): { after: number; from: number } => ({
  after: now - ROLLING_MS['24h'],
  from: now - ROLLING_MS['24h'] + 1,
});

/** Where the window holding `now` lies: payments made at `from` or later count (null: every payment), until `resetsAt` (null: it never resets at a set time). */
export interface WindowSpan {
  from: number | null;
  /**
   * When the whole window starts afresh: a calendar window's next period. A rolling window frees its
   * spending bit by bit as payments age out of it (when depends on those payments); a lifetime never.
   */
  resetsAt: number | null;
}

/**
 * The span of `window` at `now` (epoch ms). Rolling windows hold the payments of the last hour (24 h,
 * ...) and never one exactly that old, as the daily budget does. Calendar windows begin at the local
 * start of the day, the Monday or the month holding `now` in `timeZone`, and reset at the next one
 * (a day is 23 or 25 hours long across a daylight-saving change, and begins when the zone's clocks say
 * it does, even where midnight itself is skipped).
 */
export function windowSpan(window: BudgetWindow, now: number, timeZone: string): WindowSpan {
  if (window === 'lifetime') return { from: null, resetsAt: null };
  if (window !== 'day' && window !== 'week' && window !== 'month') return { from: now - ROLLING_MS[window] + 1, resetsAt: null };
  // A calendar window is the same until it resets: reading a time zone's rules costs tens of
  // microseconds, a payment's path reads several windows, and the answer depends on nothing else.
  const key = `${window} ${timeZone}`;
  const known = calendarSpans.get(key);
  if (known !== undefined && known.from! <= now && now < known.resetsAt!) return known;
  const span = calendarSpan(window, now, timeZone);
  calendarSpans.set(key, span);
  return span;
}

const calendarSpans = new Map<string, WindowSpan>();

function calendarSpan(window: CalendarWindow, now: number, timeZone: string): WindowSpan {
  const local = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(timeZone);
  // Each period from its first day's start to the next one's: calendar arithmetic on the local date,
  // then the earliest instant of that date (a day whose midnight is skipped starts when it exists).
  const start = (
    window === 'day' ? local : window === 'week' ? local.subtract({ days: local.dayOfWeek - 1 }) : local.with({ day: 1 })
  ).startOfDay();
  const next = start.add(window === 'day' ? { days: 1 } : window === 'week' ? { weeks: 1 } : { months: 1 }).startOfDay();
  return { from: start.epochMilliseconds, resetsAt: next.epochMilliseconds };
}
