/**
 * What an agent is told of the payment behind a paid call that failed, wherever it asked (`coffer
 * fetch`, MCP `fetch_paid`): made, so not to be paid again; an x402 payment the seller never
 * settled, what Coffer holds of its budget and until when; or one found failed, that nothing was paid.
 */
import type { PaymentMade } from './paid-response.js';

/**
 * What became of the payment of a paid call that failed. A Coffer receipt was paid on chain. An x402
 * payment the seller did not settle may never have reached the chain: it is not said to be made, but
 * held until its transaction can no longer land (on Base, until its authorization ends).
 */
export function afterFailedCall(paid: PaymentMade): string {
  if (paid.protocol === 'x402' && paid.status === 'pending') {
    const held =
      paid.rail === 'base'
        ? // An EIP-3009 authorization is good until its validBefore: the offer's maxTimeoutSeconds, capped at an hour.
          "until its authorization is used or ends (the seller's time to pay, an hour at most), and frees it if it was never used"
        : 'until its transaction lands or can no longer land (about a minute), and frees it if it never landed';
    return `The seller did not settle the payment ${paid.paymentId} (${paid.amount} USDC): Coffer holds its budget ${held}.`;
  }
  // Failed as Coffer found it after the call (its transaction failed, or its authorization ended unused).
  if (paid.status === 'failed') return `The payment ${paid.paymentId} (${paid.amount} USDC) never landed: nothing was paid.`;
  return `The payment ${paid.paymentId} (${paid.amount} USDC) was made; do not pay again.`;
}
