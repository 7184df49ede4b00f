/**
 * A call to the seller's URL, its answer waited for no longer than the caller asked (answerWaitMs):
 * the first call, the call again after the owner's yes, the signed-in call and the paid one.
 */
import type { PayingFetchOptions } from './paying-fetch-options.js';
import { PaymentError } from './payment-error.js';

/**
 * The wait for a seller's answer ran out. Not a transport failure to retry: a seller that took the
 * call and said nothing would say nothing again, and a paid call sent again waits as long once more.
 */
export class NoAnswer extends Error {
  constructor(readonly waitMs: number) {
    super(`no answer within ${waitMs / 1000} s`);
  }
}

/**
 * A seller's redirects that fetch would fail on (more than 20, a Location that is no HTTP(S) URL): an
 * answer, not a transport failure to retry (the same answer would come again).
 */
export class RedirectFailure extends Error {}

/** Why a paid call (the payment made, its header sent) brought no answer, in words. */
export const paidButNoAnswer = (url: string, error: unknown, init: RequestInit): string =>
  init.signal?.aborted === true
    ? `paid, but this call was given up (its signal aborted) before ${url} answered`
    : error instanceof NoAnswer
      ? `paid, but ${url} gave no answer within ${error.waitMs / 1000} s`
      : error instanceof RedirectFailure || error instanceof PaymentError
        ? `paid, but ${error.message}`
        : `paid, but ${url} could not be reached: ${(error as Error).message}`;

/**
 * A fetch given in the options that followed a redirect though asked not to: it would take a payment's
 * header along to wherever the seller sends it. Refused where first seen (the call it answered given up).
 */
const followedItself = (url: string) =>
  new PaymentError(
    'invalid_request',
    `the fetch given followed ${url}'s redirect itself, though asked not to (redirect: 'manual'): payingFetch follows a seller's redirects itself, to keep a payment's header to the site it is for`,
  );

/** The longest a timer waits (setTimeout fires at once past it). */
const LONGEST_WAIT_MS = 2_147_483_647;

/** answerWaitMs as a timer's delay: null where none is given (no limit), refused where no timer can wait it. */
export function answerWait(ms: number | undefined): number | null {
  if (ms === undefined) return null;
  if (!Number.isFinite(ms) || ms <= 0 || ms > LONGEST_WAIT_MS) {
    throw new PaymentError(
      'invalid_request',
      `answerWaitMs must be a number of milliseconds from 1 to ${LONGEST_WAIT_MS}, or left out for no limit`,
    );
  }
  return ms;
}

/** Answers whose body payingFetch reads itself (a 402's terms, a 503's or 402's code after paying). */
const READ_HERE = new Set([402, 503]);

/**
 * The seller's URL called once. Its answer's status and headers are waited for answerWaitMs where it
 * is given (else, as fetch, for as long as it takes), and within the same wait the body of a 402 or
 * 503, which payingFetch reads itself; any other answer's body, as long as its reader reads it.
 * Given up, the call throws NoAnswer ("no answer within 45 s").
 */
export async function callSeller(url: string, init: RequestInit, options: PayingFetchOptions): Promise<Response> {
  const doFetch = options.fetch ?? fetch;
  const waitMs = answerWait(options.answerWaitMs);
  if (waitMs === null) return doFetch(url, init);
  const unanswered = new AbortController();
  const timer = setTimeout(() => unanswered.abort(new NoAnswer(waitMs)), waitMs);
  try {
    const signal = init.signal == null ? unanswered.signal : AbortSignal.any([init.signal, unanswered.signal]);
    const response = await doFetch(url, { ...init, signal });
    // Read through a copy: the answer keeps its whole body for the reads after, with nothing left to
    // wait for. A body cut short otherwise is left to those reads, which take it as they did.
    if (READ_HERE.has(response.status)) {
      await response
        .clone()
        .arrayBuffer()
        .catch(() => {
          if (signal.aborted) throw signal.reason;
        });
    }
    return response;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * callSeller asked not to follow a redirect: a fetch given in the options that followed one anyway
 * (its answer `redirected`) is refused, its answer given up.
 */
async function callSellerUnfollowed(url: string, init: RequestInit, options: PayingFetchOptions): Promise<Response> {
  const response = await callSeller(url, init, options);
  if (!response.redirected) return response;
  await response.body?.cancel().catch(() => undefined);
  throw followedItself(url);
}

/** The answers fetch follows to their Location. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** fetch's own limit on the redirects of one request. */
const MOST_REDIRECTS = 20;

/** Headers that describe a body, left out where a redirect turns the request into a GET without one. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location', 'content-length'];

/** What fetch (undici) drops on a redirect to another origin: the caller's credentials for the one it leaves. */
const CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

/** A request to the seller as it stands after its redirects: the URL it reached, and how it was asked there. */
export interface SellerRequest {
  url: string;
  init: RequestInit;
}

/**
 * The seller's URL called, its redirects followed here as fetch follows them (301/302 of a POST and
 * 303 asked again as a GET without the body, 20 at most, HTTP(S) only, the caller's credentials
 * dropped on leaving an origin), under one answer wait for them all; answered with the last answer
 * and the request that brought it, which is where a payment for that answer goes. A caller's own
 * `redirect` other than follow is fetch's to apply.
 *
 * Security invariant: `carried`, the header a payment (or a proof) is in, is sent to the origin the
 * call began at only, and never again once a redirect left it, as the credentials are: a payment
 * header another site is sent is the agent's purchase in its hands (a receipt or an authorization it
 * can present, and be answered for, in the agent's place), and fetch itself would send it along.
 */
export async function callSellerFollowing(
  url: string,
  init: RequestInit,
  options: PayingFetchOptions,
  carried: string | null = null,
): Promise<{ response: Response; request: SellerRequest }> {
  // The caller's own 'manual' (or 'error') is asked of the fetch given as it stands.
  if ((init.redirect ?? 'follow') !== 'follow') return { response: await callSellerUnfollowed(url, init, options), request: { url, init } };
  // One wait for the answer over every hop, as fetch's one call waits over its redirects.
  const waitMs = answerWait(options.answerWaitMs);
  const until = waitMs === null ? null : Date.now() + waitMs;
  let request: SellerRequest = { url, init };
  for (let hops = 0; ; hops += 1) {
    const left = until === null ? undefined : Math.max(1, until - Date.now());
    const response = await callSellerUnfollowed(
      request.url,
      { ...request.init, redirect: 'manual' },
      { ...options, answerWaitMs: left },
    ).catch((error: unknown) => {
      throw error instanceof NoAnswer && waitMs !== null ? new NoAnswer(waitMs) : error;
    });
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) return { response, request };
    await response.body?.cancel().catch(() => undefined);
    // Where fetch would fail the call (a network error), so does this.
    if (hops >= MOST_REDIRECTS) throw new RedirectFailure(`${url} redirected more than ${MOST_REDIRECTS} times`);
    const next = URL.canParse(location, request.url) ? new URL(location, request.url) : null;
    if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      throw new RedirectFailure(`${request.url} redirected to ${JSON.stringify(location)}, which is no HTTP(S) URL`);
    }
    const headers = new Headers(request.init.headers);
    if (next.origin !== new URL(request.url).origin) {
      for (const name of CREDENTIALS) headers.delete(name);
      if (carried !== null) headers.delete(carried);
    }
    // As fetch does: a 303 (but to a GET or HEAD), and a 301 or 302 to a POST, is followed as a GET without the body.
    const method = (request.init.method ?? 'GET').toUpperCase();
    const asGet =
      (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((response.status === 301 || response.status === 302) && method === 'POST');
    if (asGet) for (const name of BODY_HEADERS) headers.delete(name);
    request = { url: next.href, init: { ...request.init, headers, ...(asGet ? { method: 'GET', body: null } : {}) } };
  }
}

/**
 * Why a 402 reached through redirects is not paid, in words; null where it may be: the call was asked
 * over HTTPS and the payment was asked for over plain HTTP, where its header would go in the clear.
 */
export const clearTextRefusal = (asked: string, reached: string): string | null =>
  new URL(asked).protocol === 'https:' && new URL(reached).protocol === 'http:'
    ? `${asked} redirected to ${reached}, which asked for payment over plain HTTP: a payment asked over HTTPS is not sent in the clear`
    : null;

/** A paid call (the payment in header `carried`): callSellerFollowing's last answer. */
export const callSellerCarrying = async (url: string, init: RequestInit, options: PayingFetchOptions, carried: string): Promise<Response> =>
  (await callSellerFollowing(url, init, options, carried)).response;
