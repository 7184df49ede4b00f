/**
 * Whether two moments fall on one calendar day in a time zone (the runtime's own when none is
 * named): the rule by which a time is said as the clock alone (today) or with its date, in the
 * terminal (cli/local-time.ts) and on the dashboard (renderer/src/lib/time.ts). Browser-safe.
 */
export function onSameDay(a: Date, b: Date, timeZone?: string): boolean {
  const day = (moment: Date) => moment.toLocaleDateString('en-CA', { timeZone });
  return day(a) === day(b);
}
