/** Times as a terminal shows them. */
import { sameTimeZone } from '../wire/time-zones.js';
import { onSameDay } from '../wire/same-day.js';

/** The time zone this terminal shows times in (TZ, else the machine's). */
const terminalZone = (): string => new Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * A moment as a clock shows it: the time alone on the same day as `now`, the date too on another
 * day. In the terminal's zone, unless another is asked (the owner's, for when a budget starts afresh
 * or a policy ends: moments the owner set in their zone); a zone other than the terminal's is named,
 * so "00:00" is not read as the terminal's midnight (an alias of the terminal's zone is not another).
 */
export function localTime(
  iso: string,
  { now = new Date(), timeZone, terminal = terminalZone() }: { now?: Date; timeZone?: string; terminal?: string } = {},
): string {
  const zone = timeZone ?? terminal;
  const at = new Date(iso);
  const text = onSameDay(at, now, zone)
    ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: zone })
    : at.toLocaleString(undefined, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: zone,
      });
  return sameTimeZone(zone, terminal) ? text : `${text} (${zone})`;
}
