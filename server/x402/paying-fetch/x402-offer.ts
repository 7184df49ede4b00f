/**
 * An x402 offer bought through the agent's Coffer (`/x402`): sign-in first where offered, held for
 * the owner where the policy says so, the seller called again with the header, its answer reported.
 */
import { randomUUID } from 'node:crypto';
import type { CofferClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import { approvedOrThrow, withdrawHeld } from '../../client/held-payment.js';
import type { Approval } from '../../wire/answers/approvals.js';
import { cofferOf, unreachableOr } from './coffer-reach.js';
import { sleep, hostOf, unreadableAnswer, whyUnreachable, withRetries } from './fetch-retries.js';
import { stoppedOf, unpaid, railOf, networkOf, type PaymentMade, type PaidResponse } from './paid-response.js';
import type { PayingFetchOptions } from './paying-fetch-options.js';
import { PaymentError, refusedBy, refusal, OWN_CODES, type PaymentErrorCode } from './payment-error.js';
import { approvedFor } from './picked-up.js';
import { CallerAborted, asCallers, givingUpOf, unlessGivenUp } from './callers-own.js';
import { sellerAsked, headersOf, type SellerAsked } from './seller-402.js';
import { NoAnswer, RedirectFailure, callSellerCarrying, callSellerFollowing, paidButNoAnswer, type SellerRequest } from './seller-call.js';

/**
 * The x402 path: the 402 goes to Coffer as it came, Coffer answers the header to retry with (or
 * refuses, having moved nothing). A retry lost in transport is sent again with the same header (the
 * transaction in it lands once at most). The seller's answer is handed back to Coffer so the payment
 * is settled at once; if that report is lost, Coffer finds the transaction itself.
 */
export async function payX402Offer(
  url: string,
  init: RequestInit,
  asked: SellerAsked,
  signInFirst: boolean,
  options: PayingFetchOptions,
): Promise<PaidResponse> {
  const api = cofferOf(options.agent, options.fetch ?? fetch);
  // A seller that offers sign-in may let the agent in on an earlier purchase: asked first, so that
  // nothing is bought twice. Its answer, if it still asks for payment, is the offer paid below.
  const signIn = signInFirst ? await signedInCall(url, init, asked, options, api) : null;
  if (signIn?.response.ok) return { ...unpaid(signIn.response), signedIn: { address: signIn.address } };
  // To a caller that asked to see redirects (`redirect: 'manual'`), the seller's redirect of the
  // signed-in call is its answer, handed over as fetch hands it: not bought, and not said to be let in
  // (a redirect to a login page is one too).
  if (signIn !== null && init.redirect === 'manual' && isRedirect(signIn.response.status)) return unpaid(signIn.response);
  // Not let in: the seller's fresh 402 is the offer paid (any other answer, or a 402 its redirects
  // led to elsewhere, which is another URL's offer: the first one).
  const offered = signIn?.response.status === 402 && signIn.at === url ? await sellerAsked(url, init, signIn.response) : asked;
  const bought = await boughtByCoffer(url, init, offered, options, api);
  if ('unpaid' in bought) return unpaid(bought.unpaid);
  const { paid } = bought;
  const payment: PaymentMade = {
    protocol: 'x402',
    paymentId: paid.paymentId,
    txSignature: null,
    amount: paid.amount,
    status: paid.status,
    header: paid.header,
    rail: paid.rail,
    network: paid.network,
    ...stoppedOf(paid.agentStopped),
  };
  const response = await paidCall(url, init, payment, options);
  const settlement = settlementReported(api, options.agent.agentId, payment, response);
  if (response.status === 402) {
    // What became of the payment, as Coffer finds it now (the settlement report looks on chain): a
    // purchase answered again under its approval, or handed to two pick-ups of one request at once, may
    // have landed by another call the seller served. Made, it is not given back.
    const now = await settlement;
    const after =
      now.status === 'pending'
        ? '; Coffer gives its budget back once the transaction can no longer land'
        : now.status === 'confirmed'
          ? `, but the payment landed${now.txSignature === null ? '' : ` (${now.txSignature})`}: the seller answered another call that carried it, or settled it and refused this one`
          : now.status === 'failed'
            ? '; the payment never landed: nothing was paid'
            : '';
    throw new PaymentError('paid_call_failed', `${url} refused the x402 payment${after}`, { payment: now, response });
  }
  return { response, payment, settlement };
}

const isRedirect = (status: number) => status >= 300 && status < 400;

/** What Coffer paid for an x402 offer: its payment and the header the paid call carries. */
type X402Paid = Pick<PaymentMade, 'paymentId' | 'amount' | 'status' | 'header' | 'rail' | 'network' | 'agentStopped'>;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The seller's 402, for Coffer to pay. */
const x402OfferOf = (asked: SellerAsked, options: PayingFetchOptions) => ({
  ...asked,
  ...(options.description ? { description: options.description.slice(0, 500) } : {}),
  ...(options.rail === undefined ? {} : { rail: options.rail }),
});

/**
 * Coffer's payment of the seller's offer: at once, or, held for the owner's yes, waited for with long
 * polls and then bought with the seller's terms as they stand now (the first may have expired
 * meanwhile), under the approval, once. `unpaid`: the seller no longer asks for payment.
 */
async function boughtByCoffer(
  url: string,
  init: RequestInit,
  first: SellerAsked,
  options: PayingFetchOptions,
  api: CofferClient,
): Promise<{ paid: X402Paid } | { unpaid: Response }> {
  const idempotencyKey = `fetch-${randomUUID()}`;
  const refused = (error: unknown): never => {
    if (!refusal(error)) throw error;
    throw new PaymentError('payment_refused', `Coffer did not pay ${url}: ${error.message}`, refusedBy(error));
  };
  try {
    unlessGivenUp(init);
    // An earlier call's request (options.approvalId): its yes awaited, not asked for again.
    const asked: { paid: X402Paid } | { held: Approval } | { resumed: string } =
      options.approvalId === undefined
        ? await askCofferToPay(api, x402OfferOf(first, options), idempotencyKey, options)
        : { resumed: options.approvalId };
    if ('paid' in asked) return asked;
    let approval: Approval;
    if ('held' in asked) {
      options.onHeld?.(asked.held);
      approval = await approvedOrThrow(api, asked.held, givingUpOf(init, api)).catch(asCallers(init)).catch(refused);
    } else approval = (await approvedFor(api, asked.resumed, { protocol: 'x402', url }, options, init).catch(refused)).approval;
    return await boughtUnderYes(url, init, options, api, approval, `${idempotencyKey}-approved`).catch(async (error: unknown) => {
      // Given up after the yes, before Coffer bought anything under it: the yes is withdrawn, as a
      // wait given up is, so the owner's yes and the caller's abort end alike in either order
      // (nothing paid, its budget back), not an approval held unused for a day.
      // (withdrawHeld: at most its few seconds, a Coffer that does not answer holding back no abort.)
      if (error instanceof CallerAborted) await withdrawHeld(api, approval);
      throw error;
    });
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    throw unreachableOr(options.agent, error);
  }
}

/**
 * The purchase the owner said yes to, bought with the seller's terms as they stand now (asked again:
 * the first may have expired meanwhile), under the approval, once. `unpaid`: the seller no longer
 * asks for payment.
 */
async function boughtUnderYes(
  url: string,
  init: RequestInit,
  options: PayingFetchOptions,
  api: CofferClient,
  approval: Approval,
  idempotencyKey: string,
): Promise<{ paid: X402Paid } | { unpaid: Response }> {
  const { response: again, request: reached } = await sellerAfterYes(url, init, options);
  if (again.status !== 402) return { unpaid: again };
  // The yes was for this URL's terms: a 402 its redirects now lead to is another URL's, not paid.
  if (reached.url !== url) {
    throw new PaymentError(
      'unsupported_offer',
      `${url} now redirects to ${reached.url}, which asked for payment: the owner's yes was for ${url}; nothing was paid`,
    );
  }
  const offer = { ...x402OfferOf(await sellerAsked(url, init, again), options), approvalId: approval.approvalId };
  unlessGivenUp(init);
  const asked = await askCofferToPay(api, offer, idempotencyKey, options);
  if ('held' in asked) throw new PaymentError('payment_refused', `Coffer held ${url} for the owner again after the owner's yes`);
  return asked;
}

/**
 * The seller asked again once the owner said yes, for its terms as they stand now; a transport failure
 * is retried, as any call. One that does not answer is named, not Coffer (it was said to be Coffer):
 * nothing was paid, and the approval is left unused until it ends.
 */
async function sellerAfterYes(
  url: string,
  init: RequestInit,
  options: PayingFetchOptions,
): Promise<{ response: Response; request: SellerRequest }> {
  try {
    return await withRetries(options.retries ?? 2, () => callSellerFollowing(url, init, options), init.signal);
  } catch (error) {
    // Given up as the owner said yes: nothing bought; boughtByCoffer withdraws the yes.
    if (init.signal?.aborted === true) throw new CallerAborted(init.signal.reason);
    if (error instanceof PaymentError) throw new PaymentError(error.code, `${error.message}; nothing was paid`);
    const unreadable = unreadableAnswer(error, hostOf(url));
    if (unreadable !== null) throw new PaymentError('unreadable_402', `${unreadable}; nothing was paid`);
    throw new PaymentError(
      'url_unreachable',
      `${hostOf(url)} could not be reached after the owner's yes (${whyUnreachable(error)}); nothing was paid`,
    );
  }
}

/** Coffer pays the 402 (or holds it for the owner: the approval it waits for); a refusal is a PaymentError. */
function askCofferToPay(
  api: CofferClient,
  offer: ReturnType<typeof x402OfferOf> & { approvalId?: string },
  idempotencyKey: string,
  options: PayingFetchOptions,
): Promise<{ paid: X402Paid } | { held: Approval }> {
  return withRetries(options.retries ?? 2, async () => {
    let body: Record<string, unknown>;
    try {
      const answered = await api.payX402(options.agent.agentId, offer, idempotencyKey);
      if (answered.status === 202) return { held: answered.body };
      body = (answered.body ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (!refusal(error)) throw error;
      const code: PaymentErrorCode = OWN_CODES.has(error.code as PaymentErrorCode) ? (error.code as PaymentErrorCode) : 'payment_refused';
      throw new PaymentError(code, `Coffer did not pay ${offer.url}: ${error.message}`, refusedBy(error));
    }
    const header = body.header as { name?: unknown; value?: unknown } | null;
    if (typeof body.paymentId !== 'string' || typeof header?.name !== 'string' || typeof header.value !== 'string') {
      throw new PaymentError('payment_refused', 'Coffer answered the x402 payment without a header to send');
    }
    return {
      paid: {
        paymentId: body.paymentId,
        amount: String(body.amount),
        status: String(body.status),
        header: { name: header.name, value: header.value },
        rail: railOf(body.rail),
        network: networkOf(body.network),
        ...stoppedOf(body.agentStopped),
      },
    };
  });
}

/** The call again with the payment's header; a transport failure is retried with the same header. */
async function paidCall(url: string, init: RequestInit, payment: PaymentMade, options: PayingFetchOptions): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(payment.header.name, payment.header.value);
  let response: Response;
  for (let attempt = 0; ; attempt += 1) {
    try {
      response = await withRetries(
        options.retries ?? 2,
        () => callSellerCarrying(url, { ...init, headers }, options, payment.header.name),
        init.signal,
      );
    } catch (error) {
      throw new PaymentError('paid_call_failed', paidButNoAnswer(url, error, init), { payment });
    }
    // 503: the seller could not settle yet (its facilitator is busy or still confirming). The same
    // header is presented again; a new payment would be a second one.
    if (response.status !== 503 || attempt >= 4) break;
    await sleep(500 * 2 ** attempt);
  }
  return response;
}

/**
 * The seller's answer goes back to Coffer, which settles the payment by it; the caller does not wait
 * for that (best effort: without the report Coffer still finds the transaction among the agent's).
 * Sent in the next turn, once the caller has its answer: even starting a request costs a few
 * tenths of a millisecond, which the caller would otherwise wait for.
 */
function settlementReported(api: CofferClient, agentId: string, payment: PaymentMade, response: Response): Promise<PaymentMade> {
  const sellerAnswer = headersOf(response);
  return nextTurn()
    .then(() => api.reportX402Settlement(agentId, payment.paymentId, sellerAnswer))
    .then((answer) => {
      const settled = answer as { status?: unknown; txSignature?: unknown };
      return {
        ...payment,
        status: typeof settled.status === 'string' ? settled.status : payment.status,
        txSignature: typeof settled.txSignature === 'string' ? settled.txSignature : payment.txSignature,
      };
    })
    .catch(() => payment);
}

/**
 * Asks Coffer to sign the seller's sign-in challenge with the agent's wallet and calls again with the
 * proof. Null when Coffer does not sign (this agent never paid that seller, another site's challenge,
 * another chain) or cannot be reached: the purchase then goes ahead as without sign-in. A signed-in
 * call that fails is a PaymentError: nothing is paid.
 */
async function signedInCall(
  url: string,
  init: RequestInit,
  asked: SellerAsked,
  options: PayingFetchOptions,
  api: CofferClient,
): Promise<{ response: Response; at: string; address: string } | null> {
  let proof;
  try {
    // The rail asked for names the account to prove first, where the agent paid the seller on both.
    proof = await api.signInX402(options.agent.agentId, { ...asked, ...(options.rail === undefined ? {} : { rail: options.rail }) });
  } catch (error) {
    // A Coffer older than the field refuses it: asked again without it, not left to pay again.
    const olderCoffer = options.rail !== undefined && error instanceof CofferApiError && error.code === 'invalid_request';
    proof = olderCoffer ? await api.signInX402(options.agent.agentId, asked).catch(() => null) : null;
    if (proof === null) return null;
  }
  const headers = new Headers(init.headers);
  headers.set(proof.header.name, proof.header.value);
  try {
    // Its redirects followed as fetch would (a seller may answer a signed-in call with the resource's
    // place): the proof, as a payment's header, goes to this URL's origin only, never past one that left it.
    // A transport failure is tried again, as any call of the purchase is (the same proof).
    const { response, request } = await withRetries(
      options.retries ?? 2,
      () => callSellerFollowing(url, { ...init, headers }, options, proof.header.name),
      init.signal,
    );
    return { response, at: request.url, address: proof.address };
  } catch (error) {
    // A signed-in call that failed is not "not let in": the seller may have taken the proof and let
    // the agent in, its answer (or a redirect's, or one the caller's `redirect: 'error'` refuses) lost
    // after; buying now could pay for what the agent has. It fails, nothing paid; the caller's own
    // abort stops the call as it stops any.
    if (init.signal?.aborted === true) throw error;
    if (error instanceof PaymentError) throw new PaymentError(error.code, `${error.message}; nothing was paid`);
    const why =
      error instanceof NoAnswer
        ? `gave no answer within ${error.waitMs / 1000} s`
        : error instanceof RedirectFailure
          ? `ended where fetch's would: ${error.message}`
          : `could not be answered (${whyUnreachable(error)})`;
    throw new PaymentError('url_unreachable', `the signed-in call to ${hostOf(url)} ${why}; nothing was paid`);
  }
}
