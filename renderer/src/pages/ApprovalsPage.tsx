import { useEffect, useState } from 'react';
import type { Approval } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { dateTime } from '../lib/time.js';
import { ErrorNote } from '../components/ErrorNote.js';

/** What an agent asked for, in words. */
export function describeRequest(approval: Approval): string {
  const r = approval.request as Record<string, unknown>;
  switch (approval.kind) {
    case 'allocate':
      return `Allocate ${String(r.amount)} USDC to its wallet`;
    case 'resume':
      return 'Resume itself (payments allowed again)';
    case 'deploy':
      return `Deploy a new agent “${String(r.agentId)}” (daily budget ${String(r.dailyBudget)} USDC, max ${String(r.maxPerPayment)} per payment)`;
    case 'policy': {
      const parts = Object.entries(r).map(([field, value]) =>
        field === 'allowedServices' ? `allowedServices → ${(value as string[]).length === 0 ? 'every service' : (value as string[]).join(', ')}` : `${field} → ${String(value)}`,
      );
      return `Change its policy: ${parts.join('; ')}`;
    }
    default:
      return approval.kind;
  }
}

/** The approvals inbox: what agents asked for that only the owner may grant. */
export function ApprovalsPage() {
  const { client, refresh, pendingApprovals } = useDashboard();
  const [recent, setRecent] = useState<Approval[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    client?.approvals().then((r) => setRecent(r.approvals.filter((a) => a.status !== 'pending').slice(0, 20)), () => undefined);
  }, [client, pendingApprovals]);

  const decide = async (approval: Approval, decision: 'approve' | 'deny') => {
    if (!client) return;
    setBusy(approval.approvalId);
    try {
      const result = await (decision === 'approve' ? client.approve(approval.approvalId) : client.deny(approval.approvalId));
      setErrors((e) => ({ ...e, [approval.approvalId]: result.status === 'failed' ? `Approved, but it failed: ${result.error ?? ''}` : '' }));
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
          <p className="empty">Nothing waits. When an agent asks for more than it may take itself (a looser policy, funds, to resume, another agent), it appears here.</p>
        ) : (
          <ul className="approvals">
            {pendingApprovals.map((approval) => (
              <li key={approval.approvalId} className="approval" data-testid="approval">
                <div>
                  <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>
                    <strong>{approval.agentId}</strong>
                  </a>{' '}
                  asks: {describeRequest(approval)}
                  <div className="muted">
                    asked {dateTime(approval.createdAt)} · expires {dateTime(approval.expiresAt)}
                  </div>
                  <ErrorNote error={errors[approval.approvalId]} />
                </div>
                <div className="actions">
                  <button type="button" className="button" disabled={busy === approval.approvalId} onClick={() => decide(approval, 'deny')}>
                    Deny
                  </button>
                  <button type="button" className="button primary" disabled={busy === approval.approvalId} onClick={() => decide(approval, 'approve')}>
                    Approve
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {recent.length > 0 && (
        <section className="card" aria-labelledby="decided-title">
          <h2 id="decided-title">Decided</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Request</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((approval) => (
                <tr key={approval.approvalId}>
                  <td>{approval.agentId}</td>
                  <td>{describeRequest(approval)}</td>
                  <td>
                    {/* Denied, expired and withdrawn keep the plain pill: settled, nothing to do. */}
                    <span className={`pill ${approval.status === 'approved' ? 'confirmed' : approval.status === 'failed' ? 'failed' : ''}`} title={approval.status === 'withdrawn' ? 'The agent was stopped while this waited' : undefined}>
                      {approval.status === 'withdrawn' ? 'withdrawn (agent stopped)' : approval.status}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
