/**
 * payingFetch, fetch for agents: the first call, and which kind of 402 it met (Coffer's own terms,
 * coffer-402.ts; an x402 offer, x402-offer.ts).
 */
import { readOffer } from '../payment-required.js';
import { checkCallable } from './callable.js';
import { guarded } from './caller-callbacks.js';
import { payCoffers402 } from './coffer-402.js';
import { hostOf, whyUnreachable } from './fetch-retries.js';
import { unpaid, type PaidResponse } from './paid-response.js';
import type { PayingFetchOptions } from './paying-fetch-options.js';
import { PaymentError } from './payment-error.js';
import { sellerAsked } from './seller-402.js';
import { answerWait, callSeller } from './seller-call.js';
import { payX402Offer } from './x402-offer.js';

/**
 * fetch for agents: calls the URL; on a 402 pays it through the agent's Coffer and retries once with
 * the payment. An x402 offer (a PAYMENT-REQUIRED header or an x402 body) is handed to Coffer's x402
 * endpoint, which pays it under the agent's policy (or refuses it, before any money moves) and gives
 * the header to retry with; the seller's answer tells Coffer which transaction it settled. Otherwise
 * Coffer's own terms are read: anything that is not USDC on this Coffer's network (on the rail paid)
 * is refused here, and a price above what the registry lists for the recipient's wallet when the 402 names no listed
 * service; the rest is Coffer's to judge: it pays through the agent's `/pay` (inside its policy, a
 * listed service held to its price and its recipient; a refusal comes back as a PaymentError, with
 * `price_above_registry` and `recipient_mismatch` keeping their names), and retries with `X-Payment`. One call pays at most once: the payment carries an
 * Idempotency-Key (a retried /pay returns the same payment), and a paid request lost in transport or
 * answered "not yet" (chain lag, verifier down) is retried with the same receipt. A receipt buys one
 * answer: if the API refuses it (for example because that answer was lost after it was accepted), the
 * call fails with `paid_call_failed` and the receipt, and is never paid again.
 * The request body must be re-sendable (a string, bytes or URLSearchParams).
 */
export async function payingFetch(url: string, init: RequestInit, given: PayingFetchOptions): Promise<PaidResponse> {
  const options: PayingFetchOptions = {
    ...given,
    ...(given.onHeld === undefined ? {} : { onHeld: guarded(given.onHeld) }),
    ...(given.onChainWait === undefined ? {} : { onChainWait: guarded(given.onChainWait) }),
  };
  checkCallable(url, init);
  answerWait(options.answerWaitMs);
  let first: Response;
  try {
    first = await callSeller(url, init, options);
  } catch (error) {
    // Picking a request up, the owner's yes may have paid already (Coffer's 402 is paid at the yes):
    // the request stands, for the next try to pick up again.
    const paid =
      options.approvalId === undefined
        ? 'nothing was paid'
        : `nothing was paid by this call; request ${options.approvalId} stands (a yes to a Coffer 402 paid it at once): try again with it, not without`;
    throw new PaymentError('url_unreachable', `${hostOf(url)} could not be reached (${whyUnreachable(error)}); ${paid}`);
  }
  if (first.status !== 402) return unpaid(first);

  // The URL that asked for payment: the one asked, or where its redirects led (http to https, a
  // site's other name). The payment is for that seller, and its paid call goes there: sent to the URL
  // asked, its redirects would take the payment along to whatever site they lead to next.
  const offeredAt = first.redirected && URL.canParse(first.url) ? first.url : url;
  const seller = await sellerAsked(offeredAt, init, first);
  const offer = readOffer(first.headers, seller.body);
  if (offer === null) {
    throw new PaymentError('unreadable_402', `${offeredAt} asked for payment in a form Coffer cannot pay (USDC on Solana)`);
  }
  // Sign-in is tried where offered, never after a redirect: the proof would be for the URL asked, not
  // the one that answered.
  if (offer.kind === 'x402') return payX402Offer(offeredAt, init, seller, offer.signIn && !first.redirected, options);
  return payCoffers402(offeredAt, init, offer.instructions, options);
}
