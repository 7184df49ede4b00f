import { describeRequest } from '../../../server/wire/describe-request.js';
import type { Approval } from '../api/types.js';
import { askedAgainst, pillWords } from '../lib/approval-words.js';
import { outcomeWords } from '../lib/held-payment.js';
import { AgentLink } from './AgentLink.js';
import { shortTime } from '../lib/time.js';
import { TableHead } from './TableHead.js';

/** The latest decided requests: who asked what, how it ended (a payment: whether it was paid), and when. */
export function DecidedApprovals({ recent, timeZone }: { recent: Approval[]; timeZone: string }) {
  return (
    <section className="card" aria-labelledby="decided-title">
      <h2 id="decided-title">Decided</h2>
      <div className="table-wrap">
        {/* On a phone, a card per request, each part named (cards-on-phone). */}
        <table className="cards-on-phone">
          <TableHead columns={['Agent', 'Request', 'Outcome', 'Decided']} />
          <tbody>
            {recent.map((approval) => {
              const outcome = outcomeWords(approval);
              return (
                <tr key={approval.approvalId} data-testid="decided-approval">
                  <td data-label="Agent">
                    <AgentLink agentId={approval.agentId} />
                  </td>
                  <td data-label="Request">
                    {/* One block beside its name on a phone (cards-on-phone), the outcome under the request. */}
                    <div>
                      {describeRequest(approval.kind, approval.request, askedAgainst(approval), timeZone)}
                      {outcome && <div className="muted">{outcome}</div>}
                    </div>
                  </td>
                  <td data-label="Outcome">
                    {/* Denied, expired and withdrawn keep the plain pill: settled, nothing to do. */}
                    <span
                      className={`pill ${approval.status === 'approved' ? 'confirmed' : approval.status === 'failed' ? 'failed' : ''}`}
                      title={approval.status === 'withdrawn' ? 'Withdrawn: the agent was stopped, or stopped waiting' : undefined}
                    >
                      {pillWords(approval)}
                    </span>
                  </td>
                  <td data-label="Decided" className="nowrap">
                    {approval.decidedAt ? shortTime(approval.decidedAt, new Date(), timeZone) : ''}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
