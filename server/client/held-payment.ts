// A payment the agent's policy held for the owner (POST /pay answered 202), waited for until decided.
import { CofferApiError } from './client-error.js';
import type { CofferClient } from './coffer-client.js';
import type { MayWait } from './answer.js';
import type { Approval } from '../wire/answers/approvals.js';
import type { Payment } from '../wire/answers/payments.js';

/** A caller that may give up waiting: its signal, and the Coffer its request is withdrawn from then. */
export interface GivingUp {
  signal: AbortSignal;
  api: Pick<CofferClient, 'withdrawRequest'>;
}

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
  givingUp?: GivingUp,
): Promise<Payment> {
  if (answer.status === 200) return answer.body;
  onHeld?.(answer.body);
  return (await approvedOrThrow(api, answer.body, givingUp)).result as Payment;
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
 * `givingUp`'s signal aborted (the caller gives up), the request is withdrawn and the signal's reason thrown:
 * nothing was paid (or, Coffer not answering the withdrawal, the request still waits, for the owner
 * to deny). Where the owner decided first, the wait goes on to the decision's answer: a yes's payment
 * is handed back, never dropped.
 */
export async function approvedOrThrow(api: Pick<CofferClient, 'approval'>, waiting: Approval, givingUp?: GivingUp): Promise<Approval> {
  let approval = waiting;
  // Cleared once the owner is found to have decided first: the decision's answer is then waited for.
  let givenUp = givingUp?.signal;
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
    if (givenUp?.aborted === true) {
      if ((await withdrawHeld(givingUp!.api, approval)).kind !== 'decided') throw givenUp.reason;
      givenUp = undefined;
    }
    try {
      approval = await api.approval(approval.approvalId, POLL_SECONDS, givenUp);
      misses = 0;
    } catch (error) {
      // The caller gave up during the poll: withdrawn at the top of the loop.
      if (givenUp?.aborted === true) continue;
      // Coffer stopping answers its long polls as they stand (`pending`) and refuses what comes in
      // meanwhile (503 shutting_down): a restart, Coffer away as when it does not answer at all.
      const unanswered = error instanceof CofferApiError && (error.status === 0 || error.code === 'shutting_down');
      if (!unanswered || !(Date.now() < until)) throw error;
      await sleep(Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** misses));
      misses += 1;
    }
  }
}

/** How long a withdrawal may take before the caller goes its way anyway. */
const WITHDRAW_TIMEOUT_MS = 5_000;

/** What became of a held payment's withdrawal: made, the owner's decision first, or Coffer not answering. */
export type Withdrawal = { kind: 'withdrawn' | 'decided' | 'unanswered'; words: string };

/**
 * A held payment's request withdrawn, or why not. The owner's answer and the withdrawal are each one
 * conditional update: whichever came first stands, and the outcome says which.
 */
export async function withdrawHeld(api: Pick<CofferClient, 'withdrawRequest'>, approval: Approval): Promise<Withdrawal> {
  const { approvalId } = approval;
  try {
    await Promise.race([
      api.withdrawRequest(approvalId),
      new Promise((_, reject) => {
        const timer = setTimeout(() => reject(new Error('Coffer did not answer in time')), WITHDRAW_TIMEOUT_MS);
        // Holding no process up (in Node; a browser's timer is a number, with nothing to unref).
        (timer as { unref?: () => void }).unref?.();
      }),
    ]);
    return { kind: 'withdrawn', words: `withdrew request ${approvalId}; nothing was paid` };
  } catch (error) {
    // Only Coffer's word that the request is no longer waiting is the owner's decision first; any other
    // refusal (Coffer stopping, a fault) leaves it waiting, as Coffer not answering does.
    if (error instanceof CofferApiError && error.code === 'approval_decided') {
      return { kind: 'decided', words: `request ${approvalId} was decided first (${error.message}); its answer follows` };
    }
    return {
      kind: 'unanswered',
      words: `request ${approvalId} could not be withdrawn (${(error as Error).message}): it still waits for the owner, who can deny it`,
    };
  }
}
