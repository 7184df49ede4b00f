/**
 * payingFetch, fetch for agents: the first call, and which kind of 402 it met (Coffer's own terms,
 * coffer-402.ts; an x402 offer, x402-offer.ts).
 */
import { readOffer } from '../payment-required.js';
import { checkCallable, checkOptions } from './callable.js';
import { CallerAborted, guarded } from './callers-own.js';
import { payCoffers402 } from './coffer-402.js';
import { hostOf, unreadableAnswer, whyUnreachable } from './fetch-retries.js';
import { unpaid, type PaidResponse } from './paid-response.js';
import type { PayingFetchOptions } from './paying-fetch-options.js';
import { PaymentError } from './payment-error.js';
import { sellerAsked } from './seller-402.js';
import { answerWait, callSellerFollowing, clearTextRefusal, type SellerRequest } from './seller-call.js';
import { payX402Offer } from './x402-offer.js';
import { urlAsSent } from '../../wire/url-as-sent.js';

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
export async function payingFetch(asked: string, init: RequestInit, given: PayingFetchOptions): Promise<PaidResponse> {
  try {
    return await purchase(asked, init, given);
  } catch (error) {
    // Given up while the owner decided: the signal's reason, as fetch throws it (nothing was paid).
    if (error instanceof CallerAborted) throw error.reason;
    throw error;
  }
}

async function purchase(asked: string, init: RequestInit, given: PayingFetchOptions): Promise<PaidResponse> {
  const options: PayingFetchOptions = {
    ...given,
    ...(given.onHeld === undefined ? {} : { onHeld: guarded(given.onHeld) }),
    ...(given.onChainWait === undefined ? {} : { onChainWait: guarded(given.onChainWait) }),
  };
  checkCallable(asked, init);
  checkOptions(options);
  // The URL as fetch sends it: the one called, paid and recorded, as every later call of this
  // purchase (a redirect's, the held request picked up) names it.
  const url = urlAsSent(asked);
  answerWait(options.answerWaitMs);
  let first: Response;
  let reached: SellerRequest;
  try {
    ({ response: first, request: reached } = await callSellerFollowing(url, init, options));
  } catch (error) {
    if (error instanceof PaymentError) throw new PaymentError(error.code, `${error.message}; ${nothingPaid(options)}`);
    // The caller's own signal, aborted before anything was paid: its reason, as fetch throws it (it was
    // worded as the host out of reach).
    if (init.signal?.aborted === true) throw init.signal.reason;
    const unreadable = unreadableAnswer(error, hostOf(url));
    if (unreadable !== null) throw new PaymentError('unreadable_402', `${unreadable}; ${nothingPaid(options)}`);
    throw new PaymentError('url_unreachable', `${hostOf(url)} could not be reached (${whyUnreachable(error)}); ${nothingPaid(options)}`);
  }
  if (first.status !== 402) return unpaid(first);

  // The request that was asked for payment: the one made, or where its redirects led (http to https,
  // a site's other name), as they changed it (a 303's GET, the credentials of the site left dropped).
  // The payment is for that seller, and its paid call goes there as that request: sent as the call
  // made, its redirects would take the payment along to whatever site they lead to next.
  const { url: offeredAt, init: offeredInit } = reached;
  const inTheClear = clearTextRefusal(url, offeredAt);
  if (inTheClear !== null) throw new PaymentError('unsupported_offer', `${inTheClear}; ${nothingPaid(options)}`);
  const seller = await sellerAsked(offeredAt, offeredInit, first);
  const offer = readOffer(first.headers, seller.body);
  if (offer === null) {
    throw new PaymentError(
      'unreadable_402',
      `${offeredAt} asked for payment in a form Coffer cannot pay: neither an x402 offer nor Coffer's own 402 terms in USDC (on Solana or Base); ${nothingPaid(options)}`,
    );
  }
  // Sign-in is tried where offered, at the URL that asked for payment (where the call's redirects led):
  // its challenge is for that site, the one the payment would go to, and the proof goes nowhere else.
  if (offer.kind === 'x402') return payX402Offer(offeredAt, offeredInit, seller, offer.signIn, options);
  return payCoffers402(offeredAt, offeredInit, offer.instructions, options);
}

/**
 * That nothing was paid, in words. Picking a request up, the owner's yes may have paid already
 * (Coffer's 402 is paid at the yes): the request stands, for the next try to pick up again.
 */
const nothingPaid = (options: PayingFetchOptions): string =>
  options.approvalId === undefined
    ? 'nothing was paid'
    : `nothing was paid by this call; request ${options.approvalId} stands (a yes to a Coffer 402 paid it at once): try again with it, not without`;
