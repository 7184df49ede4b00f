import { useDashboard, useTimeZone } from '../state/store.js';
import { dateTime, shortTime } from '../lib/time.js';
import { PaymentStatus } from '../components/PaymentStatus.js';
import { Money } from '../components/Money.js';
import { TableHead } from '../components/TableHead.js';
import { PaymentVenue } from '../components/PaymentVenue.js';
import { RailCell } from '../components/RailCell.js';
import { AgentLink } from '../components/AgentLink.js';

/** When, as a short time, with the full date on hover, in the owner's time zone as the agent page says it. */
function TimeCell({ timestamp }: { timestamp: string }) {
  const timeZone = useTimeZone();
  return (
    <td className="nowrap" data-label="Time" title={dateTime(timestamp, timeZone)}>
      {shortTime(timestamp, new Date(), timeZone)}
    </td>
  );
}

/** An agent by its display name, linked to its page. */
function AgentCell({ agentId }: { agentId: string }) {
  return (
    <td data-label="Agent">
      <AgentLink agentId={agentId} />
    </td>
  );
}

/** Payments across all agents, newest first; refreshed live with the rest of the dashboard. */
export function ActivityTable({ limit }: { limit?: number }) {
  const activity = useDashboard((s) => s.dashboard?.recentActivity ?? []);
  const rows = limit === undefined ? activity : activity.slice(0, limit);
  if (rows.length === 0) return <p className="empty">No payments yet.</p>;
  return (
    <div className="table-wrap">
      {/* On a phone, a card per payment, each figure named: six columns are wider than its screen. */}
      <table className="activity cards-on-phone" aria-live="polite">
        <TableHead columns={['Time', 'Agent', 'Venue', { label: 'Amount', num: true }, 'Rail', 'Status']} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-testid="activity-row">
              <TimeCell timestamp={row.timestamp} />
              <AgentCell agentId={row.agent} />
              <td data-label="Venue">
                <PaymentVenue name={row.venue} protocol={row.protocol} resource={row.resource} recipient={row.recipient} />
              </td>
              <td data-label="Amount" className="num">
                <Money value={row.amount} />
              </td>
              <RailCell rail={row.rail} />
              <td data-label="Status">
                <PaymentStatus status={row.status} errorCode={row.errorCode} protocol={row.protocol} approvedAt={row.approvedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What agents tried and Coffer refused (the policy, the wallet, a stop): nothing was sent, but the owner should see it. */
function RefusalsTable() {
  const refusals = useDashboard((s) => s.dashboard?.recentRefusals ?? []);
  if (refusals.length === 0) return <p className="empty">Nothing refused.</p>;
  return (
    <div className="table-wrap">
      <table className="refusals cards-on-phone">
        <TableHead columns={['Time', 'Agent', 'Venue', { label: 'Amount', num: true }, 'Rail', 'Why']} />
        <tbody>
          {refusals.map((row, i) => (
            <tr key={`${row.timestamp}-${i}`} data-testid="refusal-row">
              <TimeCell timestamp={row.timestamp} />
              <AgentCell agentId={row.agent} />
              <td data-label="Venue" title={row.venue === row.service ? undefined : row.service}>
                {row.venue}
              </td>
              <td data-label="Amount" className="num">
                <Money value={row.amount} />
              </td>
              <RailCell rail={row.rail} />
              <td data-label="Why">{row.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ActivityPage() {
  return (
    <>
      <section className="card" aria-labelledby="activity-title">
        <h2 id="activity-title">Activity</h2>
        <p className="muted">The latest payments of every agent. This list updates by itself.</p>
        <ActivityTable />
      </section>
      <section className="card" aria-labelledby="refused-title">
        <h2 id="refused-title">Refused</h2>
        <p className="muted">
          Payments agents tried that Coffer refused (their policy, their wallet short, or they were stopped; nothing was sent), newest
          first. An agent trying the same again within 10 seconds is listed once, though a breaker counts every try.
        </p>
        <RefusalsTable />
      </section>
    </>
  );
}
