import { paymentStatusLabel } from '../lib/labels.js';
import { hrefFor } from '../lib/route.js';
import { failureLabel, failureWords } from '../../../server/wire/payment-failure.js';
import type { PaymentProtocol } from '../../../server/wire/answers/payments.js';

const WITH_THE_SELLER =
  'Signed by the agent for the seller, whose facilitator sends it; Coffer counts it as spent until it lands, or frees it once it can no longer land';

/**
 * A payment's state as a pill. A held payment is no error: it waits for the owner's yes, so its pill
 * leads to Approvals, where it is approved or denied; once approved (an x402 purchase the agent has
 * not bought yet) it says so, and leads nowhere. A failed one says why where it is the owner's
 * doing ("Denied", "Expired"), and why in words on hover. A pending x402 payment waits on its seller.
 */
export function PaymentStatus({
  status,
  errorCode,
  protocol,
  approvedAt,
}: {
  status: string;
  errorCode?: string;
  protocol?: PaymentProtocol;
  /** On a held payment the owner approved that the agent has not bought yet: nothing left for the owner to answer. */
  approvedAt?: string;
}) {
  // An x402 payment is not Coffer's to send: the agent signed it, the seller's facilitator sends it
  // (on Base, up to its authorization's end, an hour or so), so "Sending" would say the wrong thing.
  if (status === 'pending' && protocol === 'x402') {
    return (
      <span className="pill pending" title={WITH_THE_SELLER}>
        With the seller
      </span>
    );
  }
  if (status === 'held' && approvedAt !== undefined) {
    return (
      <span className="pill held" title="You approved it: the agent buys it when it asks the seller again; nothing is paid until then">
        Approved, not bought yet
      </span>
    );
  }
  if (status === 'held') {
    return (
      <a className="pill held" href={hrefFor({ page: 'approvals' })} title="Its policy asks you first: approve or deny it in Approvals">
        {paymentStatusLabel(status)}
      </a>
    );
  }
  if (status === 'failed') {
    return (
      <span className="pill failed" title={errorCode === undefined ? undefined : failureWords(errorCode)}>
        {failureLabel(errorCode) ?? paymentStatusLabel(status)}
      </span>
    );
  }
  return <span className={`pill ${status}`}>{paymentStatusLabel(status)}</span>;
}
