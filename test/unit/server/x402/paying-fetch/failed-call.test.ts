import { describe, expect, it } from 'vitest';
import { afterFailedCall } from '../../../../../server/x402/paying-fetch/failed-call.js';
import type { PaymentMade } from '../../../../../server/x402/paying-fetch/paid-response.js';

const unsettled = (rail: PaymentMade['rail']): PaymentMade => ({
  protocol: 'x402',
  paymentId: 'pay_1',
  txSignature: null,
  amount: '0.01',
  status: 'pending',
  header: { name: 'PAYMENT-SIGNATURE', value: 'x' },
  rail,
  network: 'base-sepolia',
});

describe('coffer fetch, after a paid call failed', () => {
  it('says how long an x402 payment the seller did not settle holds its budget, by its rail', () => {
    // Solana: the transaction's blockhash ends within about a minute.
    expect(afterFailedCall(unsettled('sol'))).toMatch(/until its transaction lands or can no longer land \(about a minute\)/);
    // Base: the authorization stays good until its validBefore, the seller's time to pay (an hour at most).
    const onBase = afterFailedCall(unsettled('base'));
    expect(onBase).toMatch(/until its authorization is used or ends \(the seller's time to pay, an hour at most\)/);
    expect(onBase).not.toMatch(/about a minute/);
  });

  it('a payment made is said to be made', () => {
    expect(afterFailedCall({ ...unsettled('base'), protocol: 'coffer', status: 'confirmed' })).toBe(
      'The payment pay_1 (0.01 USDC) was made; do not pay again.',
    );
  });

  it('a payment Coffer found failed after the call is said to have moved nothing, not to be made', () => {
    expect(afterFailedCall({ ...unsettled('base'), status: 'failed' })).toBe(
      'The payment pay_1 (0.01 USDC) never landed: nothing was paid.',
    );
  });
});
