import { paymentStatusLabel } from '../lib/labels.js';
import { hrefFor } from '../lib/route.js';

/**
 * A payment's state as a pill. A held payment is no error: it waits for the owner's yes, so its pill
 * leads to Approvals, where it is approved or denied.
 */
export function PaymentStatus({ status }: { status: string }) {
  if (status === 'held') {
    return (
      <a className="pill held" href={hrefFor({ page: 'approvals' })} title="Its policy asks you first: approve or deny it in Approvals">
        {paymentStatusLabel(status)}
      </a>
    );
  }
  return <span className={`pill ${status}`}>{paymentStatusLabel(status)}</span>;
}
