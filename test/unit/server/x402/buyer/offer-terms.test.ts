import { describe, expect, it } from 'vitest';
import { toRequirement } from '../../../../../server/x402/buyer/offer-terms.js';

/** An accepts entry as a seller writes it, its amount as given. */
const entry = (amount: string, field: 'amount' | 'maxAmountRequired' = 'amount') => ({
  scheme: 'exact',
  network: 'eip155:84532',
  [field]: amount,
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x00000000000000000000000000000000000000aa',
  maxTimeoutSeconds: 60,
  extra: { name: 'USDC', version: '2' },
});

describe("a seller's x402 entry in Coffer's terms", () => {
  it('reads an amount written as a decimal in one spelling (v2 amount, v1 maxAmountRequired)', () => {
    for (const field of ['amount', 'maxAmountRequired'] as const) {
      expect(toRequirement(entry('10000', field)).amount).toBe(10_000n);
      expect(toRequirement(entry('0', field)).amount).toBe(0n);
      expect(toRequirement(entry('9'.repeat(20), field)).amount).toBe(BigInt('9'.repeat(20)));
    }
  });

  it('reads no amount from any other spelling: never judged as one sum and signed as another', () => {
    // "0100" was judged as 100 and refused by the signed payload's read-back, answering 500.
    for (const amount of ['0100', '00', '+1', '1e3', ' 1', '1 ', '1.0', '0x10', '', '9'.repeat(21)]) {
      expect(toRequirement(entry(amount)).amount, amount).toBe(-1n);
    }
  });
});
