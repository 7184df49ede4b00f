/**
 * Time zones by their IANA names, as this runtime's Intl knows them: the owner's (settings), a
 * policy's end, and the calendar windows of budgets read them.
 */
/** A time zone by its IANA name ("Europe/Berlin", "UTC"), as this runtime's Intl knows it. */
export const isTimeZone = (name: string): boolean => canonicalTimeZone(name) !== null;

/**
 * A time zone's one spelling, as this runtime's Intl writes it ("utc" and "Etc/UTC" are "UTC",
 * "europe/berlin" is "Europe/Berlin"), or null for a name it does not know.
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.length === 0) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Whether two names are one zone ("Etc/UTC" and "UTC"; "Asia/Kolkata" and "Asia/Calcutta"), as this runtime's Intl knows them. */
export const sameTimeZone = (a: string, b: string): boolean => (canonicalTimeZone(a) ?? a) === (canonicalTimeZone(b) ?? b);
