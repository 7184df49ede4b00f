/**
 * A request an earlier call was held under, picked up once the owner decides: only where it is this
 * call's payment.
 */
import { tryParseUsdc } from '../../wire/money.js';
import { coffersNonceRoute } from '../../wire/paywall-nonce.js';
import type { PaymentInstructions } from '../payment-required.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import { approvedOrThrow } from '../../client/held-payment.js';
import type { Approval } from '../../wire/answers/approvals.js';
import type { Payment } from '../../wire/answers/payments.js';
import { withRetries } from './fetch-retries.js';
import { asCallers, givingUpOf } from './callers-own.js';
import type { PayingFetchOptions } from './paying-fetch-options.js';

/** What an earlier call's request must be to be this call's: a payment of these Coffer terms, or an x402 purchase of this URL. */
type PickedUp = { protocol: 'coffer'; instructions: PaymentInstructions } | { protocol: 'x402'; url: string };

/**
 * A request an earlier call was held under (options.approvalId), once the owner decides. It is read
 * first and refused (`approval_mismatch`) unless it is this call's payment, before anything waits:
 * no other request is followed, shown as this call's or withdrawn with it, and a yes to another
 * payment is never waited for as this one's. Then `onHeld` is told while it waits, and the yes's
 * outcome is answered: for Coffer's 402 the payment made at the yes, for x402 the yes, bought next.
 */
export async function approvedFor(
  api: CofferClient,
  approvalId: string,
  expected: PickedUp,
  options: PayingFetchOptions,
  init: RequestInit,
): Promise<{ approval: Approval; result: Record<string, unknown> }> {
  const asked = await withRetries(options.retries ?? 2, () => api.approval(approvalId));
  const notThis = requestMismatch(asked, expected);
  if (notThis !== null) {
    throw new CofferApiError(
      409,
      'approval_mismatch',
      `request ${approvalId} ${notThis}: it is not this call's, and nothing is paid under it here`,
    );
  }
  if (asked.status === 'pending') options.onHeld?.(asked);
  const approval = await approvedOrThrow(api, asked, givingUpOf(init, api)).catch(asCallers(init));
  return { approval, result: (approval.result ?? {}) as Record<string, unknown> };
}

/** Whether a payment of `amount` to `recipient` is one these terms ask: the same sum, to their recipient on either rail. */
const paysTerms = (amount: string, recipient: string, terms: PaymentInstructions) =>
  tryParseUsdc(amount) !== null &&
  tryParseUsdc(amount) === tryParseUsdc(terms.amount) &&
  (recipient === terms.recipient || (terms.base !== null && recipient.toLowerCase() === terms.base.recipient.toLowerCase()));

/**
 * Why a request is not the one this call may pick up, as its approval says it; null where it is. A
 * request held before approvals said what they answer (`resource`, `nonce`) is refused: asked anew.
 */
function requestMismatch(approval: Approval, expected: PickedUp): string | null {
  if (approval.kind !== 'payment') return `is a ${approval.kind} request, not a payment`;
  const request = approval.request as { amount?: unknown; recipient?: unknown; resource?: unknown; nonce?: unknown };
  const resource = typeof request.resource === 'string' ? request.resource : null;
  const nonce = typeof request.nonce === 'string' ? request.nonce : null;
  if (expected.protocol === 'x402') {
    if (resource === null) return 'is not an x402 purchase (it names no URL)';
    // The server's own rule for a purchase under an approval (x402-pay.ts underApproval): origin and path.
    const [was, is] = [new URL(resource), new URL(expected.url)];
    return was.origin === is.origin && was.pathname === is.pathname ? null : `is for ${resource}, not ${expected.url}`;
  }
  if (resource !== null) return `is an x402 purchase of ${resource}`;
  // A payment asked without a seller's 402 (`coffer pay`, /pay without a nonce) was made for no call:
  // it is nobody's to pick up here.
  if (nonce === null) return "is a payment asked without a seller's 402 (it names no nonce), not this call's";
  const { instructions } = expected;
  if (!paysTerms(String(request.amount), String(request.recipient), instructions)) {
    return `is for ${String(request.amount)} USDC to ${String(request.recipient)}, and this 402 asks ${instructions.amount} USDC to ${instructions.recipient}`;
  }
  // A Coffer paywall's nonce is bound to its route: a receipt for another route would be refused.
  const [was, is] = [coffersNonceRoute(nonce), instructions.nonce === null ? null : coffersNonceRoute(instructions.nonce)];
  return was !== null && is !== null && was !== is ? "is for another route of this seller (its 402's nonce names another)" : null;
}

/** Coffer's 402 paid at the owner's yes to an earlier call's request: that payment, where it is the one these terms ask. */
export async function paidUnderApproval(
  api: CofferClient,
  approvalId: string,
  instructions: PaymentInstructions,
  options: PayingFetchOptions,
  init: RequestInit,
): Promise<Payment> {
  return (await approvedFor(api, approvalId, { protocol: 'coffer', instructions }, options, init)).result as unknown as Payment;
}
