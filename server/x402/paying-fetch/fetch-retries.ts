/**
 * A call lost in transport tried again (the same payment, the same header), and why a host did not
 * answer, in words.
 */
import { maxHeaderSize } from 'node:http';
import { CofferApiError } from '../../client/client-error.js';
import { byCaller } from './callers-own.js';
import { PaymentError } from './payment-error.js';
import { NoAnswer, RedirectFailure } from './seller-call.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Retries a transport failure (a thrown fetch, or Coffer not answering), never an HTTP answer, a
 * PaymentError, nor a seller's answer waited for in vain (NoAnswer), nor redirects fetch fails on
 * (RedirectFailure), nor a call its caller gave up (`givenUp`, the call's signal, aborted).
 */
export async function withRetries<T>(retries: number, attempt: () => Promise<T>, givenUp?: AbortSignal | null): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      const answered = error instanceof CofferApiError && (error.status !== 0 || error instanceof PaymentError);
      // An answer too large to read is the seller's answer, not a call lost: not sent again.
      const stop = answered || headersOverflowed(error) || byCaller(error) || givenUp?.aborted === true;
      if (stop || error instanceof NoAnswer || error instanceof RedirectFailure || tries >= retries) throw error;
      await sleep(100 * 2 ** tries);
    }
  }
}

/** The host of a URL, as a person names it ("api.example.com:8443"). */
export const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : url);

/** Why fetch failed, in the words of its cause (ENOTFOUND, ECONNREFUSED, a timeout), else its message. */
export function whyUnreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (error as Error).message;
}

/**
 * Why a seller that answered is not read, where fetch could not read its answer: headers larger than
 * Node reads (http.maxHeaderSize, 16 KiB unless --max-http-header-size says otherwise; an x402 offer of
 * many entries in its PAYMENT-REQUIRED header), whatever its status, which Node does not say. Null for
 * any other failure (the seller not reached).
 */
export function unreadableAnswer(error: unknown, host: string): string | null {
  return headersOverflowed(error)
    ? `${host} answered with headers larger than Coffer reads (${maxHeaderSize / 1024} KiB): its answer, an offer among them, is not read`
    : null;
}

/** Whether fetch failed reading an answer's headers, larger than Node reads (the seller answered). */
const headersOverflowed = (error: unknown): boolean => (error as { cause?: { code?: unknown } }).cause?.code === 'UND_ERR_HEADERS_OVERFLOW';
