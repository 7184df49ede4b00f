/**
 * Whether a call can be made as asked, before anything is called: payingFetch calls the web's APIs
 * over HTTP, so a `file:` or `data:` URL is no call it makes (`data:` would answer without any server),
 * a password in a URL is refused by fetch itself (and would be repeated in the words of its failure),
 * a header no HTTP request carries is the caller's mistake, not the host out of reach, and so are a
 * GET or HEAD with a body and a body read once: a paid call is sent twice (asked, then with its
 * payment), so a stream's body would be gone by the paid call, after the payment was made.
 */
import type { PayingFetchOptions } from './paying-fetch-options.js';
import { PaymentError } from './payment-error.js';
import { isRail } from '../../wire/rails.js';

const NOTHING = 'nothing was called or paid';
/** The most tries again of a call lost in transport (each waits twice the one before). */
const MOST_RETRIES = 10;

/**
 * The options a program gave (from JavaScript, unchecked by types): one that is none is the caller's
 * mistake, said before anything is called, not a refusal after the seller was asked (a rail Coffer
 * then refuses) nor a loop that never tries (retries below 0).
 */
export function checkOptions(options: PayingFetchOptions): void {
  const invalid = (words: string) => new PaymentError('invalid_request', `${words}: ${NOTHING}`);
  if (options.rail !== undefined && !isRail(options.rail)) throw invalid('rail must be "sol" or "base", or left out');
  const { retries, chainWaitMs } = options;
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0 && retries <= MOST_RETRIES)) {
    throw invalid(`retries must be a whole number from 0 to ${MOST_RETRIES}, or left out (2)`);
  }
  if (chainWaitMs !== undefined && !(Number.isFinite(chainWaitMs) && chainWaitMs >= 0)) {
    throw invalid('chainWaitMs must be a number of milliseconds from 0, or left out (60 s)');
  }
}

export function checkCallable(url: string, init: RequestInit): void {
  // The URL is never repeated: what is not a URL, or carries a password, may hold a secret.
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null) throw new PaymentError('invalid_request', `the URL is not a URL: ${NOTHING}`);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new PaymentError(
      'invalid_request',
      `the URL carries a user name or password, which no request sends in its URL: send credentials in a header (${NOTHING})`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PaymentError('invalid_request', `the URL is ${JSON.stringify(parsed.protocol)}, not http or https: ${NOTHING}`);
  }
  const method = (init.method ?? 'GET').toUpperCase();
  if (init.body != null && (method === 'GET' || method === 'HEAD')) {
    throw new PaymentError('invalid_request', `a ${method} carries no body: ${NOTHING}`);
  }
  if (init.body != null && !resendable(init.body)) {
    throw new PaymentError(
      'invalid_request',
      `the body is a stream, read once: a paid call is sent twice (asked, then paid), so its body must be one that can be sent again (a string, bytes, a Blob, FormData or URLSearchParams): ${NOTHING}`,
    );
  }
  const bad = uncarriedHeader(init.headers);
  if (bad !== null) {
    throw new PaymentError(
      'invalid_request',
      `the header ${JSON.stringify(bad.slice(0, 100))} is one no HTTP request can carry (a name that is not one word, or a line break or control character in its value): ${NOTHING}`,
    );
  }
}

/** The name of the first header fetch would refuse to send; null where it sends them all. Its value is not repeated (a line break in it would be). */
function uncarriedHeader(headers: RequestInit['headers']): string | null {
  if (headers === undefined || headers instanceof Headers) return null;
  const pairs = Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of pairs) {
    try {
      new Headers([[String(name), String(value)]]);
    } catch {
      return String(name);
    }
  }
  return null;
}

/** Whether fetch can send a body again as it was: anything but a stream (a ReadableStream, an async iterable). */
const resendable = (body: NonNullable<RequestInit['body']>): boolean =>
  typeof body === 'string' ||
  body instanceof ArrayBuffer ||
  ArrayBuffer.isView(body) ||
  body instanceof Blob ||
  body instanceof URLSearchParams ||
  body instanceof FormData;
