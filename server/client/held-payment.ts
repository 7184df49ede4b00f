// A payment the agent's policy held for the owner (POST /pay answered 202), waited for until decided.
import { CofferApiError } from './client-error.js';
import type { CofferClient } from './coffer-client.js';
import type { MayWait } from './answer.js';
import type { Approval } from '../wire/answers/approvals.js';
import type { Payment } from '../wire/answers/payments.js';

/** Each long poll of the approval waits this long (the server's most). */
const POLL_SECONDS = 60;

/** The code a request that ended without the owner's yes answers with (the server's, for a replay of the payment). */
const ENDED_CODES: Partial<Record<Approval['status'], string>> = {
  denied: 'payment_denied',
  expired: 'approval_expired',
  withdrawn: 'approval_withdrawn',
};

/** How a request that ended without the owner's yes ended, in words. */
const ENDED_WORDS: Partial<Record<Approval['status'], string>> = {
  denied: 'was denied by the owner',
  expired: "expired unanswered (its day, or the seller's terms, ended first)",
  withdrawn: 'was withdrawn (the agent was stopped, or stopped waiting)',
};

/**
 * The payment, once paid: at once when it was not held; otherwise once the owner approved it (see
 * approvedOrThrow). `onHeld` is told once, as the wait begins, what the payment waits for.
 */
export async function paymentWhenDecided(
  api: Pick<CofferClient, 'approval'>,
  answer: MayWait<Payment>,
  onHeld?: (approval: Approval) => void,
): Promise<Payment> {
  if (answer.status === 200) return answer.body;
  onHeld?.(answer.body);
  return (await approvedOrThrow(api, answer.body)).result as Payment;
}

/** After Coffer did not answer (a restart, say), the next ask waits this long, doubling up to the most. */
const RETRY_FIRST_MS = 500;
const RETRY_MOST_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A held payment's request, read with long polls (no busy polling) until the owner decides, answered
 * once approved and carried out (its `result` set). Denied, expired, withdrawn, or refused when
 * approved, it throws CofferApiError with the code the payment ended with (nothing was paid).
 * Coffer not answering (a restart) is asked again, backing off, until the approval would have
 * expired: the owner's decision still stands meanwhile, and a caller that gave up would leave an
 * approved payment behind (and, asking anew, a second request for the owner).
 */
export async function approvedOrThrow(api: Pick<CofferClient, 'approval'>, waiting: Approval): Promise<Approval> {
  let approval = waiting;
  const until = Date.parse(waiting.expiresAt);
  for (let misses = 0; ;) {
    if (approval.status === 'approved' && approval.result !== undefined) return approval;
    const ended = ENDED_CODES[approval.status];
    if (ended !== undefined) {
      throw new CofferApiError(
        403,
        ended,
        // Named by the request the agent was shown (apr_…), and said in words: an expiry may be the seller's terms'.
        `request ${approval.approvalId} ${ENDED_WORDS[approval.status] ?? approval.status}; nothing was paid`,
      );
    }
    if (approval.status === 'failed') {
      throw new CofferApiError(
        409,
        approval.errorCode ?? 'internal',
        `the payment was approved but not made: ${approval.error ?? 'unknown'}`,
      );
    }
    try {
      approval = await api.approval(approval.approvalId, POLL_SECONDS);
      misses = 0;
    } catch (error) {
      const unanswered = error instanceof CofferApiError && error.status === 0;
      if (!unanswered || !(Date.now() < until)) throw error;
      await sleep(Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** misses));
      misses += 1;
    }
  }
}
