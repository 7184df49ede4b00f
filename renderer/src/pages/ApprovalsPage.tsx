import { useDashboard, useTimeZone } from '../state/store.js';
import { useApprovalDecision } from '../lib/use-approval-decision.js';
import { useDecidedApprovals } from '../lib/use-decided-approvals.js';
import { useFocusedApproval } from '../lib/use-focused-approval.js';
import { ApprovalList } from '../components/ApprovalList.js';
import { DecidedApprovals } from '../components/DecidedApprovals.js';
import { FocusEndedNote } from '../components/FocusEndedNote.js';
import { LinkRequests } from '../components/LinkRequests.js';

/**
 * The approvals inbox: what agents asked for that only the owner may grant. A payment its policy held
 * reads as a card: who pays how much to whom, why it waits, where its budgets stand before and after
 * it, and when it expires. A request to change its policy is tried on its last 30 days (what it would
 * have refused or held), once per request. Times are the owner's time zone's.
 */
export function ApprovalsPage() {
  const pendingApprovals = useDashboard((s) => s.pendingApprovals);
  const timeZone = useTimeZone();
  const { recent, waiting } = useDecidedApprovals();
  // A request opened by its own link: its card is marked and brought into view; one no longer waiting says how it ended.
  const { focus, waits, ended, focusedRef } = useFocusedApproval(recent);
  const { decide, busy, errors, said } = useApprovalDecision();
  return (
    <>
      <section className="card" aria-labelledby="approvals-title">
        <h2 id="approvals-title">Waiting for you ({pendingApprovals.length})</h2>
        {focus !== undefined && !waits && waiting !== null && !waiting.has(focus) && <FocusEndedNote ended={ended} timeZone={timeZone} />}
        {said && (
          <p className={`decision-said ${said.tone}`} role={said.tone === 'failed' ? 'alert' : 'status'} data-testid="decision-said">
            {said.text}
          </p>
        )}
        {pendingApprovals.length === 0 ? (
          <p className="empty">
            Nothing waits. When an agent asks for more than it may take itself (a looser policy, funds, to resume, another agent, a payment
            its policy asks you about), it appears here.
          </p>
        ) : (
          <ApprovalList
            approvals={pendingApprovals}
            focus={focus}
            focusedRef={focusedRef}
            busy={busy}
            errors={errors}
            timeZone={timeZone}
            onDecide={decide}
          />
        )}
      </section>
      <LinkRequests />
      {recent.length > 0 && <DecidedApprovals recent={recent} timeZone={timeZone} />}
    </>
  );
}
