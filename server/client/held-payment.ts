// A payment the agent's policy held for the owner (POST /pay answered 202), waited for until decided.
import { CofferApiError } from './client-error.js';
import type { CofferClient } from './coffer-client.js';
import type { Approval, MayWait, Payment } from './wire-types.js';

/** Each long poll of the approval waits this long (the server's most). */
const POLL_SECONDS = 60;

/** The code a request that ended without the owner's yes answers with (the server's, for a replay of the payment). */
const ENDED_CODES: Partial<Record<Approval['status'], string>> = {
  denied: 'payment_denied',
  expired: 'approval_expired',
  withdrawn: 'approval_withdrawn',
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

/**
 * A held payment's request, read with long polls (no busy polling) until the owner decides, answered
 * once approved and carried out (its `result` set). Denied, expired, withdrawn, or refused when
 * approved, it throws CofferApiError with the code the payment ended with (nothing was paid).
 */
export async function approvedOrThrow(api: Pick<CofferClient, 'approval'>, waiting: Approval): Promise<Approval> {
  let approval = waiting;
  for (;;) {
    if (approval.status === 'approved' && approval.result !== undefined) return approval;
    const ended = ENDED_CODES[approval.status];
    if (ended !== undefined) {
      throw new CofferApiError(
        403,
        ended,
        `the owner's answer to payment ${approval.paymentId ?? ''}: ${approval.status}; nothing was paid`,
      );
    }
    if (approval.status === 'failed') {
      throw new CofferApiError(
        409,
        approval.errorCode ?? 'internal',
        `the payment was approved but not made: ${approval.error ?? 'unknown'}`,
      );
    }
    approval = await api.approval(approval.approvalId, POLL_SECONDS);
  }
}
