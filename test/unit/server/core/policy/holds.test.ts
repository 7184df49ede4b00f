import { describe, expect, it } from 'vitest';
import { holdReason } from '../../../../../server/core/policy/holds.js';

/** Whether the owner's yes comes first, and the words the owner and the agent read for why. */
describe('a payment held for the owner', () => {
  const never = () => false;
  it('above the threshold: says the amount and the threshold', () => {
    expect(holdReason({ askAbove: 2_000_000n, askNewRecipient: false }, 2_500_000n, never)).toEqual({
      code: 'ask_above',
      message: "2.50 USDC is above 2.00 USDC: above that, the policy waits for the owner's yes",
    });
    expect(holdReason({ askAbove: 2_000_000n, askNewRecipient: false }, 2_000_000n, never)).toBeNull();
  });

  it('asked above nothing: every payment, said so rather than as a threshold of 0.00', () => {
    expect(holdReason({ askAbove: 0n, askNewRecipient: false }, 10_000n, never)).toEqual({
      code: 'ask_above',
      message: "the policy asks the owner's yes before every payment",
    });
  });

  it('a new recipient, where asked: its first payment', () => {
    expect(holdReason({ askAbove: null, askNewRecipient: true }, 10_000n, never)).toMatchObject({ code: 'new_recipient' });
    expect(holdReason({ askAbove: null, askNewRecipient: true }, 10_000n, () => true)).toBeNull();
  });
});
