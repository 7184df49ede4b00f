import { describe, expect, it } from 'vitest';
import { REFUSAL_REPEAT_MS, RefusalRepeats } from '../../../../../server/core/payments/refusal-repeats.js';

/** Which refusals are repeats (server/core/payments/refusal-repeats.ts), and what it keeps in memory. */
describe('refusal repeats', () => {
  it('tells a repeat within 10 s, among an agent’s last 32, and not after', () => {
    const repeats = new RefusalRepeats();
    expect(repeats.repeats('o|a', 'x', 0)).toBe(false);
    expect(repeats.repeats('o|a', 'y', 1)).toBe(false);
    expect(repeats.repeats('o|a', 'x', 2)).toBe(true);
    expect(repeats.repeats('o|b', 'x', 3)).toBe(false);
    expect(repeats.repeats('o|a', 'x', REFUSAL_REPEAT_MS)).toBe(false);
    for (let i = 0; i < 32; i++) repeats.repeats('o|c', `r${i}`, 100 + i);
    expect(repeats.repeats('o|c', 'r0', 200)).toBe(true);
    for (let i = 0; i < 33; i++) repeats.repeats('o|d', `r${i}`, 100 + i);
    expect(repeats.repeats('o|d', 'r0', 200)).toBe(false);
  });

  it('forgets an agent that paid, and one whose refusals all passed, though it never comes back', () => {
    const repeats = new RefusalRepeats();
    repeats.repeats('o|gone', 'x', 0);
    repeats.repeats('o|paid', 'x', 0);
    repeats.forget('o|paid');
    expect(repeats.repeats('o|paid', 'x', 1)).toBe(false);
    expect(repeats.agents).toBe(2);
    repeats.repeats('o|other', 'y', REFUSAL_REPEAT_MS + 1);
    // "gone" and "paid" are long past: only the agent refused now is held.
    expect(repeats.agents).toBe(1);
  });
});
