import { describe, expect, it } from 'vitest';
import { failureLabel, failureWords } from '../../../../server/wire/payment-failure.js';

describe('why a failed payment failed, in words', () => {
  it("says the owner's doing, and a held request's end, in words; a code it does not name as itself", () => {
    expect(failureWords('payment_denied')).toBe('denied by the owner');
    // A held payment's request ends with its day, or with the seller's terms (a paywall nonce).
    expect(failureWords('approval_expired')).toMatch(
      /no answer in time \(24 h, or the seller's terms' end\), or an approved purchase never made/,
    );
    expect(failureLabel('nonce_expired')).toBe('Expired');
    expect(failureWords('nonce_expired')).toMatch(/^the seller's terms ended before the owner's yes/);
    // Withdrawn by a brake, or by the agent that stopped waiting.
    expect(failureWords('approval_withdrawn')).toMatch(/the agent was stopped, or stopped waiting/);
    // A held payment approved when its wallet no longer held it: in words, not its code.
    expect(failureWords('insufficient_funds')).toBe('its wallet did not hold the amount; nothing moved');
    expect(failureLabel('insufficient_funds')).toBeNull();
    expect(failureWords('something_new')).toBe('something_new');
  });
});
