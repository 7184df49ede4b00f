import { describe, expect, it } from 'vitest';
import { localTime } from '../../../../server/cli/local-time.js';

/** Times as a terminal shows them: in its own zone unnamed, or in the owner's, named where it is another zone. */
describe('localTime', () => {
  const now = new Date('2026-11-27T12:00:00Z');

  it("names the owner's zone where it is not the terminal's, and says the moment there", () => {
    const text = localTime('2026-11-27T15:00:00Z', { now, terminal: 'UTC', timeZone: 'Asia/Tokyo' });
    // Midnight of the 28th in Tokyo: another day there than `now` (the 27th, 21:00), so the date is said.
    expect(text).toMatch(/28/);
    expect(text).toMatch(/\b(12:00 AM|00:00)\b/);
    expect(text).toMatch(/ \(Asia\/Tokyo\)$/);
  });

  it("names no zone where the owner's is the terminal's under another spelling", () => {
    expect(localTime('2026-11-27T15:00:00Z', { now, terminal: 'UTC', timeZone: 'Etc/UTC' })).not.toMatch(/\(/);
    expect(localTime('2026-11-27T15:00:00Z', { now, terminal: 'UTC', timeZone: 'UTC' })).not.toMatch(/\(/);
  });

  it('the same day is the same day in the zone it is said in: the time alone', () => {
    const text = localTime('2026-11-27T13:00:00Z', { now, terminal: 'UTC', timeZone: 'Europe/Berlin' });
    expect(text).toMatch(/^\S*\s?(02:00:00 PM|14:00:00) \(Europe\/Berlin\)$/);
  });
});
