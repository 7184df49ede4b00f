import { paymentStatusLabel } from '../lib/labels.js';
import { hrefFor } from '../lib/route.js';
import { failureLabel, failureWords } from '../../../server/wire/payment-failure.js';

/**
 * A payment's state as a pill. A held payment is no error: it waits for the owner's yes, so its pill
 * leads to Approvals, where it is approved or denied. A failed one says why where it is the owner's
 * doing ("Denied", "Expired"), and why in words on hover.
 */
export function PaymentStatus({ status, errorCode }: { status: string; errorCode?: string }) {
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
