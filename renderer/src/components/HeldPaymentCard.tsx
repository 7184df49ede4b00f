import type { Approval } from '../api/types.js';
import type { HeldPayment } from '../lib/held-payment.js';
import { AgentLink } from './AgentLink.js';
import { HeldPaymentBudgets } from './HeldPaymentBudgets.js';
import { Money } from './Money.js';
import { railName } from '../../../server/wire/rail-words.js';

/** A held payment: who pays how much, on which rail (named on each, as the approvals' other words do), to whom, why it waits, and its budgets before and after it. */
export function HeldPaymentCard({ approval, payment, refreshKey }: { approval: Approval; payment: HeldPayment; refreshKey: string }) {
  const { reason } = payment;
  return (
    <>
      <p className="approval-ask">
        <AgentLink agentId={approval.agentId} strong /> asks to pay <Money micro={String(payment.amount)} className="ask-amount" />
        {` on ${railName(payment.rail)}`} to <strong>{payment.service}</strong>
      </p>
      {reason && (
        <p className="approval-why">
          <span className="label-like">Why it waits:</span> {reason.message.endsWith('.') ? reason.message : `${reason.message}.`}
        </p>
      )}
      {payment.purchase && <p className="approval-buys">For {payment.purchase}</p>}
      <p className="muted approval-detail">
        {payment.description && <>“{payment.description}” · </>}
        to <code className="address">{payment.recipient}</code>
      </p>
      <HeldPaymentBudgets agentId={approval.agentId} payment={payment} heldAt={Date.parse(approval.createdAt)} refreshKey={refreshKey} />
    </>
  );
}
