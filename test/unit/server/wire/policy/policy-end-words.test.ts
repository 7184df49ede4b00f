import { describe, expect, it } from 'vitest';
import { expiryOf, policyEndWords } from '../../../../../server/wire/policy/expiry.js';

/**
 * A policy's end in words (refusals, the day-before warning): in the owner's zone, as the owner set
 * it, with the instant a program reads after it.
 */
describe("a policy's end in words", () => {
  it('is the end of the day the owner named, in their zone, where it closes that day', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    const endOfYear = expiryOf('2026-12-31', now, 'America/New_York')!;
    expect(policyEndWords(endOfYear, 'America/New_York')).toBe('at the end of 2026-12-31 in America/New_York (2027-01-01T05:00:00.000Z)');
    // The same instant to an owner elsewhere is a wall time of theirs, not a day's end.
    expect(policyEndWords(endOfYear, 'Europe/Lisbon')).toBe('at 2027-01-01 05:00 Europe/Lisbon (2027-01-01T05:00:00.000Z)');
  });

  it('is a wall time with its zone for any other moment', () => {
    expect(policyEndWords(Date.parse('2026-11-23T14:00:00Z'), 'America/New_York')).toBe(
      'at 2026-11-23 09:00 America/New_York (2026-11-23T14:00:00.000Z)',
    );
  });

  it('is the instant alone in a zone this runtime does not know', () => {
    expect(policyEndWords(Date.parse('2026-11-23T14:00:00Z'), 'Mars/Olympus_Mons')).toBe('at 2026-11-23T14:00:00.000Z');
  });
});

describe("a policy's end from the wire", () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it('is one an ISO time writes back as it was read: before the year 10000', () => {
    expect(new Date(expiryOf('9999-12-30', now, 'UTC')!).toISOString()).toBe('9999-12-31T00:00:00.000Z');
    expect(new Date(expiryOf('9999-12-31T23:59:59Z', now, 'UTC')!).toISOString()).toBe('9999-12-31T23:59:59.000Z');
    // "9999-12-31" ends at 10000-01-01 (written "+010000-01-01T…", which no policy takes back), and in
    // a zone west of UTC its last day's end is later still.
    for (const [text, timeZone] of [
      ['9999-12-31', 'UTC'],
      ['9999-12-31', 'America/New_York'],
      ['9999-12-31T23:00:00-05:00', 'UTC'],
    ] as const) {
      expect(() => expiryOf(text, now, timeZone), `${text} ${timeZone}`).toThrow(
        expect.objectContaining({
          code: 'invalid_policy',
          message: `Expires ${text} is past the end of the year 9999; name an earlier day or time, or null for never`,
        }),
      );
    }
  });
});
