import { describe, expect, it } from 'vitest';
import { dayIn } from '../../../../../server/wire/policy/expiry.js';
import {
  dayWords,
  differsFromBrowser,
  instantOfWallTime,
  matchZones,
  offsetOf,
  wallTimeIn,
  zoneChoices,
  zoneNote,
} from '../../../../../renderer/src/lib/time-zone.js';
import { dateTime } from '../../../../../renderer/src/lib/time.js';

/** UTC+14 all year: its day begins ten hours before UTC's, so a day there is most often another day in UTC. */
const KIRITIMATI = 'Pacific/Kiritimati';

describe('days and times read and written in a zone, not the browser’s', () => {
  it('the day and the wall time a moment falls on there', () => {
    const at = Date.parse('2026-12-31T10:30:00Z');
    expect(dayIn(at, 'UTC')).toBe('2026-12-31');
    expect(dayIn(at, KIRITIMATI)).toBe('2027-01-01');
    expect(dayIn(at, 'Pacific/Pago_Pago')).toBe('2026-12-30');
    expect(wallTimeIn(at, KIRITIMATI)).toBe('2027-01-01T00:30');
    expect(wallTimeIn(at + 15_000, KIRITIMATI)).toBe('2027-01-01T00:30:15');
    expect(wallTimeIn(at, 'Asia/Kathmandu')).toBe('2026-12-31T16:15');
  });

  it('a datetime-local value names the moment it is there, its parts checked, never rolled over', () => {
    expect(new Date(instantOfWallTime('2026-12-31T18:00', KIRITIMATI)).toISOString()).toBe('2026-12-31T04:00:00.000Z');
    expect(new Date(instantOfWallTime('2026-12-31T18:00:30', 'UTC')).toISOString()).toBe('2026-12-31T18:00:30.000Z');
    expect(new Date(instantOfWallTime('2026-07-01T09:00', 'Europe/Berlin')).toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(new Date(instantOfWallTime('2026-01-01T09:00', 'Europe/Berlin')).toISOString()).toBe('2026-01-01T08:00:00.000Z');
    for (const text of ['', '2026-12-31', '2026-02-29T10:00', '2026-13-01T10:00', '2026-12-31T24:00', '2026-12-31T18:60', 'soon']) {
      expect(instantOfWallTime(text, KIRITIMATI), text).toBeNaN();
    }
    expect(Number.isNaN(instantOfWallTime('2028-02-29T10:00', KIRITIMATI))).toBe(false);
  });

  it('reads back what it wrote, in every zone, through a year of moments (DST changes included)', () => {
    const zones = ['UTC', KIRITIMATI, 'Pacific/Pago_Pago', 'America/New_York', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe'];
    for (const zone of zones) {
      for (let at = Date.parse('2026-01-01T00:17:00Z'); at < Date.parse('2027-01-01T00:00:00Z'); at += 7 * 3_600_000 + 60_000) {
        expect(instantOfWallTime(wallTimeIn(at, zone), zone), `${zone} ${new Date(at).toISOString()}`).toBe(at);
      }
    }
  });

  it('a day in words is that day, whatever the browser’s zone; a moment in words is its time in the zone named', () => {
    expect(dayWords('2026-12-31')).toBe(new Date(2026, 11, 31).toLocaleDateString(undefined, { dateStyle: 'medium' }));
    const at = '2026-11-30T10:00:00.000Z';
    expect(dateTime(at, KIRITIMATI)).toBe(dateTime('2026-12-01T00:00:00.000Z', 'UTC'));
    expect(dateTime(at, KIRITIMATI)).not.toBe(dateTime(at, 'UTC'));
  });
});

describe('the list of zones to pick from', () => {
  const choices = zoneChoices(['Asia/Calcutta'], Date.parse('2026-07-01T00:00:00Z'));
  const names = (query: string) => matchZones(choices, query).map((choice) => choice.name);

  it('every zone the runtime knows, UTC first, the zone in force even if the list spells it otherwise, each with its offset', () => {
    expect(choices[0]).toEqual({ name: 'UTC', offset: 'UTC' });
    expect(choices).toContainEqual({ name: KIRITIMATI, offset: 'UTC+14:00' });
    expect(choices).toContainEqual({ name: 'Asia/Kathmandu', offset: 'UTC+05:45' });
    expect(choices).toContainEqual({ name: 'Europe/Berlin', offset: 'UTC+02:00' });
    expect(choices).toContainEqual({ name: 'America/St_Johns', offset: 'UTC-02:30' });
    expect(choices.filter((choice) => choice.name === 'Asia/Calcutta')).toHaveLength(1);
    expect(choices.length).toBeGreaterThan(300);
    expect(new Set(choices.map((choice) => choice.name)).size).toBe(choices.length);
    expect(offsetOf('Mars/Olympus_Mons')).toBe('');
  });

  it('offers a renamed zone by its name now (the runtime lists some by an older one)', () => {
    expect(names('kolkata')).toEqual(['Asia/Kolkata']);
    expect(names('kyiv')).toEqual(['Europe/Kyiv']);
    expect(names('saigon')).toEqual([]);
    expect(names('ho chi minh')).toEqual(['Asia/Ho_Chi_Minh']);
  });

  it('is searched by any words of a name (case and "_" aside) or by offset', () => {
    expect(names('kiri')).toEqual([KIRITIMATI]);
    expect(names('new york')).toEqual(['America/New_York']);
    expect(names('america york')).toEqual(['America/New_York']);
    expect(names('+14')).toEqual([KIRITIMATI]);
    expect(names('+05:45')).toEqual(['Asia/Kathmandu']);
    expect(names('berlin')).toEqual(['Europe/Berlin']);
    expect(names('Mars')).toEqual([]);
    expect(names('  ')).toHaveLength(choices.length);
  });
});

describe('the zone is said where it is not the browser’s', () => {
  it('names it once another zone is in force, not for the same zone under another name', () => {
    expect(zoneNote('Europe/Berlin', 'UTC')).toBe('times in Europe/Berlin');
    expect(zoneNote(KIRITIMATI, 'Pacific/Kiritimati')).toBeNull();
    expect(zoneNote('Etc/UTC', 'UTC')).toBeNull();
    expect(differsFromBrowser('Europe/Paris', 'Europe/Berlin')).toBe(true);
    expect(differsFromBrowser('Europe/Berlin', 'Europe/Berlin')).toBe(false);
  });
});
