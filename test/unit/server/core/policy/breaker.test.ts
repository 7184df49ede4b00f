import { describe, expect, it } from 'vitest';
import { refusalsTrip } from '../../../../../server/core/policy/breaker.js';

describe('a breaker on refusals', () => {
  const breaker = (count: number) => ({ refusals: { count, minutes: 5 }, spending: null });

  it('trips at its count, saying how many refusals in words that agree with the number', () => {
    expect(refusalsTrip(breaker(3), 2)).toBeNull();
    expect(refusalsTrip(breaker(3), 3)).toBe('its breaker tripped: 3 refused payments within 5 minutes');
    expect(refusalsTrip(breaker(1), 1)).toBe('its breaker tripped: 1 refused payment within 5 minutes');
    expect(refusalsTrip(null, 10)).toBeNull();
  });
});
