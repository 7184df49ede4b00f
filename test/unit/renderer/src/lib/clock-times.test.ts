import { describe, expect, it } from 'vitest';
import { dateTime, shortTime } from '../../../../../renderer/src/lib/time.js';

/** The dashboard's clock times (renderer/src/lib/time.ts), one spelling wherever they are shown. */
describe('a clock time on the dashboard', () => {
  it('is spelled the same in a full date and time and in a short one (helper 181: "02:56 PM" beside "2:56 PM")', () => {
    for (const iso of ['2026-12-01T14:56:00.000Z', '2026-12-01T09:05:00.000Z']) {
      const today = shortTime(iso, new Date(iso), 'UTC');
      expect(dateTime(iso, 'UTC')).toContain(today);
      const earlier = shortTime(iso, new Date(Date.parse(iso) + 3 * 86_400_000), 'UTC');
      expect(earlier).toContain(today);
    }
  });
});
