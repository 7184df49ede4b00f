/**
 * The owner's time zone (GET /v1/settings) on this page: calendar budgets begin, and a day a policy
 * names ends, at midnight there, which need not be this browser's midnight. Days and times are read
 * and shown in that zone, each built from its parts in the zone (Temporal, as the server's
 * server/wire/policy/windows.ts and expiry.ts do), never by parsing a string in the browser's own zone.
 */
import { Temporal } from 'temporal-polyfill';
import { dayIn } from '../../../server/wire/policy/expiry.js';
import { currentZoneName, sameTimeZone } from '../../../server/wire/time-zones.js';

/** The zone this browser reads and shows local times in. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Whether `timeZone` is another zone than this browser's (an alias of the same zone is the same). */
export const differsFromBrowser = (timeZone: string, browser: string = browserTimeZone()): boolean => !sameTimeZone(timeZone, browser);

/** Said once beside times shown in the owner's zone, where it is not the browser's: "times in Europe/Berlin". */
export const zoneNote = (timeZone: string, browser: string = browserTimeZone()): string | null =>
  differsFromBrowser(timeZone, browser) ? `times in ${timeZone}` : null;

const pad = (n: number) => String(n).padStart(2, '0');

const localIn = (at: number, timeZone: string) => Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(timeZone);

/** A moment as a datetime-local input holds it, in a zone: "2026-12-31T18:00" (seconds only when there are some). */
export function wallTimeIn(at: number, timeZone: string): string {
  const local = localIn(at, timeZone);
  const seconds = local.second;
  return `${dayIn(at, timeZone)}T${pad(local.hour)}:${pad(local.minute)}${seconds === 0 ? '' : `:${pad(seconds)}`}`;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The moment a datetime-local value ("2026-12-31T18:00") names in a zone, or NaN for anything that is
 * no such value (a 31st of February included: the parts are checked, not rolled over).
 */
export function instantOfWallTime(text: string, timeZone: string): number {
  const parts = WALL_TIME.exec(text.trim());
  if (parts === null) return Number.NaN;
  const [year, month, day, hours, minutes, seconds] = parts.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hours > 23 || minutes > 59 || seconds > 59) return Number.NaN;
  // A wall time a daylight-saving change skips or repeats is read as the clocks would ('compatible').
  return Temporal.ZonedDateTime.from({ year, month, day, hour: hours, minute: minutes, second: seconds, timeZone }).epochMilliseconds;
}

/** A day ("2026-12-31") in words, as the browser writes a date: "Dec 31, 2026" (the day itself, in no zone). */
export function dayWords(day: string): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date, 12)).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
}

/** A zone's offset from UTC at a moment (now by default): "UTC+14:00", "UTC-03:30", "UTC"; empty for no zone. */
export function offsetOf(timeZone: string, at: number = Date.now()): string {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at);
    const offset = parts.find((part) => part.type === 'timeZoneName')?.value ?? '';
    return offset.replace(/^GMT/, 'UTC').replace(/^UTC[+-]00:00$/, 'UTC');
  } catch {
    return '';
  }
}

/** A zone to pick, with its offset now (searched too: "+14" finds Kiritimati). */
export interface ZoneChoice {
  name: string;
  offset: string;
}

/**
 * Every zone this browser knows by name (Intl.supportedValuesOf), UTC first, and `also` (the zone in
 * force, which an older name may spell outside the list), each with its offset now.
 */
export function zoneChoices(also: readonly string[] = [], at: number = Date.now()): ZoneChoice[] {
  const listed = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const names = [...new Set(['UTC', ...listed.map(currentZoneName), ...also])];
  return names.map((name) => ({ name, offset: offsetOf(name, at) }));
}

/** A name or query as searched: lower case, "_" and "/" as spaces ("new york" finds America/New_York). */
const searchable = (text: string) => text.toLowerCase().replace(/[_/]/g, ' ');

/** The zones every word of `query` is found in (name or offset); all of them for an empty query. */
export function matchZones(choices: readonly ZoneChoice[], query: string): ZoneChoice[] {
  const words = searchable(query).split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...choices];
  return choices.filter((choice) => {
    const text = `${searchable(choice.name)} ${choice.offset.toLowerCase()}`;
    return words.every((word) => text.includes(word));
  });
}
