import type { Ref } from 'react';
import { railName } from '../../../server/wire/rail-words.js';
import type { Approval } from '../api/types.js';
import { heldPaymentOf } from '../lib/held-payment.js';
import { readableUsdc } from '../lib/money.js';
import { spendingKey } from '../lib/spending-key.js';
import { dateTime } from '../lib/time.js';
import { useAgentName, useDashboard } from '../state/store.js';
import { AgentRequestSummary } from './AgentRequestSummary.js';
import { DecisionButtons } from './DecisionButtons.js';
import { ErrorNote } from './ErrorNote.js';
import { HeldPaymentCard } from './HeldPaymentCard.js';

/**
 * One waiting request, with its Deny and Approve: a held payment as a card (HeldPaymentCard), any other
 * request in words; when it was asked and when it expires, in the owner's time zone. The request its
 * link opened is marked `focused` (and given `focusedRef`).
 */
export function ApprovalCard({
  approval,
  focused,
  focusedRef,
  busy,
  error,
  timeZone,
  onDecide,
}: {
  approval: Approval;
  focused: boolean;
  focusedRef: Ref<HTMLLIElement>;
  busy: boolean;
  error: string | undefined;
  timeZone: string;
  onDecide: (decision: 'approve' | 'deny') => void;
}) {
  const agents = useDashboard((s) => s.dashboard?.agents);
  const agentOf = (agentId: string) => agents?.find((a) => a.agentId === agentId);
  const payment = heldPaymentOf(approval);
  const name = useAgentName(approval.agentId);
  // A policy request is judged against the policy it would replace, as live as the dashboard.
  const policyNow = agentOf(approval.targetAgentId)?.policy ?? null;
  return (
    <li
      ref={focused ? focusedRef : undefined}
      aria-current={focused ? 'true' : undefined}
      className={`approval${payment ? ' held-payment' : approval.kind === 'policy' ? ' policy-request' : ''}${focused ? ' focused' : ''}`}
      data-testid="approval"
      aria-label={payment ? `${name} asks to pay ${readableUsdc(payment.amount)} USDC on ${railName(payment.rail)}` : undefined}
    >
      <div className="approval-body">
        {payment ? (
          <HeldPaymentCard approval={approval} payment={payment} refreshKey={spendingKey(agentOf(approval.agentId))} />
        ) : (
          <AgentRequestSummary approval={approval} policy={policyNow} />
        )}
        <div className="muted">
          asked {dateTime(approval.createdAt, timeZone)} · expires{' '}
          <span data-testid="approval-expires">{dateTime(approval.expiresAt, timeZone)}</span>
          {payment && ': unanswered by then, it is not paid'}
        </div>
        <ErrorNote error={error} />
      </div>
      <DecisionButtons busy={busy} payment={payment !== null} onDecide={onDecide} />
    </li>
  );
}
