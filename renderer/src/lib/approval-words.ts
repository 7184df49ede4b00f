import { describeRequest } from '../../../server/wire/describe-request.js';
import type { Approval, Decided, Policy } from '../api/types.js';
import { approvedPayment, heldPaymentOf } from './held-payment.js';
import { readableUsdc } from './money.js';
import { railName } from '../../../server/wire/rail-words.js';

/** What the owner's last decision came to, said at the top of Approvals (its request has left the list). */
export type Said = { tone: 'ok' | 'failed'; text: string };

/** The policy a decided policy request was asked against (kept with it): its words keep the old values. */
export const askedAgainst = (approval: Approval): Policy | null =>
  approval.kind === 'policy' && approval.before !== undefined ? (approval.before as Policy) : null;

/** The pill of a decided request: a payment says whether it was paid. */
export function pillWords(approval: Approval): string {
  if (approval.status === 'withdrawn') return 'withdrawn';
  if (approval.kind === 'payment' && approval.status === 'approved') return approvedPayment(approval, '').pill;
  if (approval.kind === 'payment' && approval.status === 'failed') return 'not paid';
  return approval.status;
}

/** What a decision came to, in words: a payment paid (which one) or not, another request carried out or failed. */
export function saidOf(asked: Approval, result: Decided, timeZone: string): Said {
  const payment = heldPaymentOf(asked);
  if (payment === null) {
    return result.status === 'failed'
      ? { tone: 'failed', text: `Approved, but it failed: ${result.error ?? ''}` }
      : {
          tone: 'ok',
          text: `${result.status === 'denied' ? 'Denied' : 'Approved'}: ${asked.agentId}, ${describeRequest(asked.kind, asked.request, askedAgainst(asked), timeZone)}`,
        };
  }
  const what = `${readableUsdc(payment.amount)} USDC on ${railName(payment.rail)} to ${payment.service} for ${asked.agentId}`;
  if (result.status === 'denied') return { tone: 'ok', text: `Denied: ${what}, nothing was paid.` };
  if (result.status === 'failed') return { tone: 'failed', text: `Approved, but not paid (${what}): ${result.error ?? 'it failed'}` };
  return { tone: 'ok', text: `${approvedPayment(result, what).words}.` };
}
