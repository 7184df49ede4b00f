import { useEffect, useState } from 'react';
import type { Approval, Policy } from '../api/types.js';
import { describeRequest } from '../../../server/core/describe-request.js';
import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { dateTime, shortTime } from '../lib/time.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { TableHead } from '../components/TableHead.js';
import { LinkRequests } from '../components/LinkRequests.js';

/** The approvals inbox: what agents asked for that only the owner may grant. */
export function ApprovalsPage() {
  const { client, refresh, pendingApprovals, dashboard } = useDashboard();
  // A policy request is judged against the policy it would replace, as live as the dashboard.
  const policyOf = (agentId: string): Policy | null => dashboard?.agents.find((a) => a.agentId === agentId)?.policy ?? null;
  const [recent, setRecent] = useState<Approval[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    client?.approvals().then(
      (r) => setRecent(r.approvals.filter((a) => a.status !== 'pending').slice(0, 20)),
      () => undefined,
    );
  }, [client, pendingApprovals]);

  const decide = async (approval: Approval, decision: 'approve' | 'deny') => {
    if (!client) return;
    setBusy(approval.approvalId);
    try {
      const result = await (decision === 'approve' ? client.approve(approval.approvalId) : client.deny(approval.approvalId));
      setErrors((e) => ({
        ...e,
        [approval.approvalId]: result.status === 'failed' ? `Approved, but it failed: ${result.error ?? ''}` : '',
      }));
      await refresh();
    } catch (e) {
      setErrors((all) => ({ ...all, [approval.approvalId]: (e as Error).message }));
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <section className="card" aria-labelledby="approvals-title">
        <h2 id="approvals-title">Waiting for you ({pendingApprovals.length})</h2>
        {pendingApprovals.length === 0 ? (
          <p className="empty">
            Nothing waits. When an agent asks for more than it may take itself (a looser policy, funds, to resume, another agent), it
            appears here.
          </p>
        ) : (
          <ul className="approvals">
            {pendingApprovals.map((approval) => (
              <li key={approval.approvalId} className="approval" data-testid="approval">
                <div>
                  <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>
                    <strong>{approval.agentId}</strong>
                  </a>{' '}
                  asks:{' '}
                  {describeRequest(approval.kind, approval.request, approval.kind === 'policy' ? policyOf(approval.targetAgentId) : null)}
                  <div className="muted">
                    asked {dateTime(approval.createdAt)} · expires {dateTime(approval.expiresAt)}
                  </div>
                  <ErrorNote error={errors[approval.approvalId]} />
                </div>
                <div className="actions">
                  <button type="button" className="button" disabled={busy === approval.approvalId} onClick={() => decide(approval, 'deny')}>
                    Deny
                  </button>
                  <button
                    type="button"
                    className="button primary"
                    disabled={busy === approval.approvalId}
                    onClick={() => decide(approval, 'approve')}
                  >
                    Approve
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      <LinkRequests />
      {recent.length > 0 && (
        <section className="card" aria-labelledby="decided-title">
          <h2 id="decided-title">Decided</h2>
          <div className="table-wrap">
            <table>
              <TableHead columns={['Agent', 'Request', 'Outcome', 'Decided']} />
              <tbody>
                {recent.map((approval) => (
                  <tr key={approval.approvalId}>
                    <td>
                      <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>{approval.agentId}</a>
                    </td>
                    <td>
                      {describeRequest(approval.kind, approval.request)}
                      {approval.error && <div className="muted">{approval.error}</div>}
                    </td>
                    <td>
                      {/* Denied, expired and withdrawn keep the plain pill: settled, nothing to do. */}
                      <span
                        className={`pill ${approval.status === 'approved' ? 'confirmed' : approval.status === 'failed' ? 'failed' : ''}`}
                        title={approval.status === 'withdrawn' ? 'The agent was stopped while this waited' : undefined}
                      >
                        {approval.status === 'withdrawn' ? 'withdrawn (agent stopped)' : approval.status}
                      </span>
                    </td>
                    <td className="nowrap">{approval.decidedAt ? shortTime(approval.decidedAt) : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
