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

/** Why a paid call (the payment made, its header sent) brought no answer, in words. */
export const paidButNoAnswer = (url: string, error: unknown): string =>
  error instanceof NoAnswer
    ? `paid, but ${url} gave no answer within ${error.waitMs / 1000} s`
    : `paid, but ${url} could not be reached: ${(error as Error).message}`;

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
