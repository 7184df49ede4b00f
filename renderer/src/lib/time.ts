import { onSameDay } from '../../../server/wire/same-day.js';

/** A moment's date and time as the browser writes them, in `timeZone` (the browser's own when none is named). */
export const dateTime = (iso: string, timeZone?: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone });

/**
 * A stable label for a moment: the clock time today, the date and time before (never goes stale); in
 * `timeZone` (the browser's own when none is named), today included.
 */
export function shortTime(iso: string | null, now = new Date(), timeZone?: string): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  // The hour as dateTime's `timeStyle: 'short'` spells it ("2:56 PM", not "02:56 PM"): one spelling on a page.
  return onSameDay(date, now, timeZone)
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', timeZone })
    : date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone });
}
