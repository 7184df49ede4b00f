/** Times as a terminal shows them. */

/** The time zone this terminal shows times in (TZ, else the machine's). */
const terminalZone = (): string => new Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * A moment as a clock shows it: the time alone on the same day as `now`, the date too on another
 * day. In this terminal's zone, unless another is asked (the owner's, for when a budget starts afresh
 * or a policy ends: moments the owner set in their zone); a zone other than the terminal's is named,
 * so "00:00" is not read as the terminal's midnight.
 */
export function localTime(iso: string, { now = new Date(), timeZone }: { now?: Date; timeZone?: string } = {}): string {
  const zone = timeZone ?? terminalZone();
  const at = new Date(iso);
  const dayOf = (moment: Date) => moment.toLocaleDateString('en-CA', { timeZone: zone });
  const text =
    dayOf(at) === dayOf(now)
      ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: zone })
      : at.toLocaleString(undefined, {
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          timeZone: zone,
        });
  return zone === terminalZone() ? text : `${text} (${zone})`;
}
