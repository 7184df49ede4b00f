import { useEffect, useRef, useState } from 'react';
import type { Approval, Decided, Policy } from '../api/types.js';
import { describeRequest } from '../../../server/wire/describe-request.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { hrefFor, useRoute } from '../lib/route.js';
import { dateTime, shortTime } from '../lib/time.js';
import { zoneNote } from '../lib/time-zone.js';
import { readableUsdc } from '../lib/money.js';
import { approvedPayment, heldPaymentOf, outcomeWords, type HeldPayment } from '../lib/held-payment.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { HeldPaymentBudgets } from '../components/HeldPaymentBudgets.js';
import { Money } from '../components/Money.js';
import { TableHead } from '../components/TableHead.js';
import { LinkRequests } from '../components/LinkRequests.js';
import { PolicyRequestWhatIf } from '../components/PolicyRequestWhatIf.js';

/** What the owner's last decision came to, said at the top of the page (its request has left the list). */
type Said = { tone: 'ok' | 'failed'; text: string };

/**
 * The approvals inbox: what agents asked for that only the owner may grant. A payment its policy held
 * reads as a card: who pays how much to whom, why it waits, where its budgets stand before and after
 * it, and when it expires. A request to change its policy is tried on its last 30 days (what it would
 * have refused or held), once per request. Times are the owner's time zone's.
 */
/** The policy a decided policy request was asked against (kept with it): its words keep the old values. */
const askedAgainst = (approval: Approval): Policy | null =>
  approval.kind === 'policy' && approval.before !== undefined ? (approval.before as Policy) : null;

export function ApprovalsPage() {
  const { client, refresh, pendingApprovals, dashboard } = useDashboard();
  const timeZone = useTimeZone();
  const agentOf = (agentId: string) => dashboard?.agents.find((a) => a.agentId === agentId);
  // A policy request is judged against the policy it would replace, as live as the dashboard.
  const policyOf = (agentId: string): Policy | null => agentOf(agentId)?.policy ?? null;
  // What an agent's budgets follow: a payment (held ones count), a refund, a policy change.
  const spendingKey = (agentId: string) => {
    const agent = agentOf(agentId);
    return JSON.stringify(agent ? [agent.spent24h, agent.lifetimePayments, agent.policy, agent.tightestBudget] : null);
  };
  // A request opened by its own link (`#/approvals/<id>`, as an MCP host shows the owner): its card
  // is marked and brought into view; one no longer waiting says how it ended.
  const route = useRoute();
  const focus = route.page === 'approvals' ? route.approvalId : undefined;
  const focused = useRef<HTMLLIElement | null>(null);
  const [recent, setRecent] = useState<Approval[]>([]);
  // The ids the last full read found still waiting: the store's list may lag a link just opened.
  const [waitingRead, setWaitingRead] = useState<Set<string> | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [said, setSaid] = useState<Said | null>(null);

  useEffect(() => {
    client?.approvals().then(
      (r) => {
        setRecent(r.approvals.filter((a) => a.status !== 'pending').slice(0, 20));
        setWaitingRead(new Set(r.approvals.filter((a) => a.status === 'pending').map((a) => a.approvalId)));
      },
      () => undefined,
    );
  }, [client, pendingApprovals]);

  const focusWaits = focus !== undefined && pendingApprovals.some((a) => a.approvalId === focus);
  useEffect(() => {
    if (focusWaits) focused.current?.scrollIntoView?.({ block: 'center' });
  }, [focusWaits, focus]);
  const focusEnded = focus !== undefined && !focusWaits ? recent.find((a) => a.approvalId === focus) : undefined;

  const decide = async (approval: Approval, decision: 'approve' | 'deny') => {
    if (!client) return;
    setBusy(approval.approvalId);
    setSaid(null);
    try {
      const result = await (decision === 'approve' ? client.approve(approval.approvalId) : client.deny(approval.approvalId));
      setErrors((e) => ({ ...e, [approval.approvalId]: '' }));
      setSaid(saidOf(approval, result));
      await refresh();
    } catch (e) {
      // Refused before anything was decided (a sign-in too old, confirmation_required): it still waits, the reason on its card.
      setErrors((all) => ({ ...all, [approval.approvalId]: (e as Error).message }));
    } finally {
      setBusy(null);
    }
  };

  const note = zoneNote(timeZone);
  return (
    <>
      <section className="card" aria-labelledby="approvals-title">
        <h2 id="approvals-title">Waiting for you ({pendingApprovals.length})</h2>
        {focus !== undefined && !focusWaits && waitingRead !== null && !waitingRead.has(focus) && (
          <p className="hint" role="status" data-testid="focus-ended">
            {focusEnded
              ? `The request you opened no longer waits: ${pillWords(focusEnded)}${focusEnded.decidedAt ? `, ${dateTime(focusEnded.decidedAt, timeZone)}` : ''}.`
              : 'The request you opened no longer waits for you (decided, expired or withdrawn); see Decided below.'}
          </p>
        )}
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
          <>
            {note && (
              <p className="hint zone-note" data-testid="approvals-zone">
                {`${note.charAt(0).toUpperCase()}${note.slice(1)}`}: your time zone, set on the Overview.
              </p>
            )}
            <ul className="approvals">
              {pendingApprovals.map((approval) => {
                const payment = heldPaymentOf(approval);
                return (
                  <li
                    key={approval.approvalId}
                    ref={approval.approvalId === focus ? focused : undefined}
                    aria-current={approval.approvalId === focus ? 'true' : undefined}
                    className={`approval${payment ? ' held-payment' : approval.kind === 'policy' ? ' policy-request' : ''}${approval.approvalId === focus ? ' focused' : ''}`}
                    data-testid="approval"
                    aria-label={payment ? `${approval.agentId} asks to pay ${readableUsdc(payment.amount)} USDC` : undefined}
                  >
                    <div className="approval-body">
                      {payment ? (
                        <HeldPaymentCard approval={approval} payment={payment} refreshKey={spendingKey(approval.agentId)} />
                      ) : (
                        <>
                          <div>
                            <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>
                              <strong>{approval.agentId}</strong>
                            </a>{' '}
                            asks:{' '}
                            {describeRequest(
                              approval.kind,
                              approval.request,
                              approval.kind === 'policy' ? policyOf(approval.targetAgentId) : null,
                            )}
                          </div>
                          {approval.kind === 'policy' && <PolicyRequestWhatIf approval={approval} />}
                        </>
                      )}
                      <div className="muted">
                        asked {dateTime(approval.createdAt, timeZone)} · expires{' '}
                        <span data-testid="approval-expires">{dateTime(approval.expiresAt, timeZone)}</span>
                        {payment && ': unanswered by then, it is not paid'}
                      </div>
                      <ErrorNote error={errors[approval.approvalId]} />
                    </div>
                    <div className="actions">
                      <button
                        type="button"
                        className="button"
                        disabled={busy === approval.approvalId}
                        onClick={() => decide(approval, 'deny')}
                      >
                        Deny
                      </button>
                      <button
                        type="button"
                        className="button primary"
                        disabled={busy === approval.approvalId}
                        onClick={() => decide(approval, 'approve')}
                      >
                        {busy === approval.approvalId ? 'Working…' : payment ? 'Approve and pay' : 'Approve'}
                      </button>
                    </div>
                  </li>
                );
              })}
            </ul>
          </>
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
                {recent.map((approval) => {
                  const outcome = outcomeWords(approval);
                  return (
                    <tr key={approval.approvalId} data-testid="decided-approval">
                      <td>
                        <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>{approval.agentId}</a>
                      </td>
                      <td>
                        {describeRequest(approval.kind, approval.request, askedAgainst(approval))}
                        {outcome && <div className="muted">{outcome}</div>}
                      </td>
                      <td>
                        {/* Denied, expired and withdrawn keep the plain pill: settled, nothing to do. */}
                        <span
                          className={`pill ${approval.status === 'approved' ? 'confirmed' : approval.status === 'failed' ? 'failed' : ''}`}
                          title={approval.status === 'withdrawn' ? 'The agent was stopped while this waited' : undefined}
                        >
                          {pillWords(approval)}
                        </span>
                      </td>
                      <td className="nowrap">{approval.decidedAt ? shortTime(approval.decidedAt, new Date(), timeZone) : ''}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}

/** A held payment: who pays how much to whom, why it waits, and its budgets before and after it. */
function HeldPaymentCard({ approval, payment, refreshKey }: { approval: Approval; payment: HeldPayment; refreshKey: string }) {
  const { reason } = payment;
  return (
    <>
      <p className="approval-ask">
        <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>
          <strong>{approval.agentId}</strong>
        </a>{' '}
        asks to pay <Money micro={String(payment.amount)} className="ask-amount" /> to <strong>{payment.service}</strong>
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

/** The pill of a decided request: a payment says whether it was paid. */
function pillWords(approval: Approval): string {
  if (approval.status === 'withdrawn') return 'withdrawn (agent stopped)';
  if (approval.kind === 'payment' && approval.status === 'approved') return approvedPayment(approval, '').pill;
  if (approval.kind === 'payment' && approval.status === 'failed') return 'not paid';
  return approval.status;
}

/** What a decision came to, in words: a payment paid (which one) or not, another request carried out or failed. */
function saidOf(asked: Approval, result: Decided): Said {
  const payment = heldPaymentOf(asked);
  if (payment === null) {
    return result.status === 'failed'
      ? { tone: 'failed', text: `Approved, but it failed: ${result.error ?? ''}` }
      : {
          tone: 'ok',
          text: `${result.status === 'denied' ? 'Denied' : 'Approved'}: ${asked.agentId}, ${describeRequest(asked.kind, asked.request, askedAgainst(asked))}`,
        };
  }
  const what = `${readableUsdc(payment.amount)} USDC to ${payment.service} for ${asked.agentId}`;
  if (result.status === 'denied') return { tone: 'ok', text: `Denied: ${what}, nothing was paid.` };
  if (result.status === 'failed') return { tone: 'failed', text: `Approved, but not paid (${what}): ${result.error ?? 'it failed'}` };
  return { tone: 'ok', text: `${approvedPayment(result, what).words}.` };
}
