/**
 * A held payment the owner approved that stays held: an x402 purchase the agent has not bought yet
 * (bought when it asks the seller again, under the approval: held.ts payHeld). Counted as every held
 * payment is, but no longer the owner's to answer: the history and the activity say when it was approved.
 */
import type { ContextWith } from '../context.js';
import type { ApprovalStore, PaymentRecord } from '../ports/store.js';

/** When the owner approved it; null for any other payment, or one whose request still waits. Read for held rows only (a few). */
export function approvedAtOf(ctx: ContextWith<ApprovalStore>, payment: PaymentRecord): number | null {
  if (payment.status !== 'held') return null;
  const approval = ctx.store.findApprovalByPayment(payment.id);
  return approval?.status === 'approved' ? approval.decidedAt : null;
}
