import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { dateTime } from '../lib/time.js';
import { Money } from '../components/Money.js';

const STATUS_LABEL: Record<string, string> = { approved: 'Paid', pending: 'Sending', failed: 'Failed' };

/** Payments across all agents, newest first; refreshed live with the rest of the dashboard. */
export function ActivityTable({ limit }: { limit?: number }) {
  const activity = useDashboard((s) => s.dashboard?.recentActivity ?? []);
  const rows = limit === undefined ? activity : activity.slice(0, limit);
  if (rows.length === 0) return <p className="empty">No payments yet.</p>;
  return (
    <div className="table-wrap">
      <table className="activity" aria-live="polite">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Agent</th>
            <th scope="col">Venue</th>
            <th scope="col" className="num">Amount</th>
            <th scope="col">Rail</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-testid="activity-row">
              <td title={dateTime(row.timestamp)}>{row.time}</td>
              <td>
                <a href={hrefFor({ page: 'agent', agentId: row.agent })}>{row.agent}</a>
              </td>
              <td>{row.venue}</td>
              <td className="num">
                <Money value={row.amount} />
              </td>
              <td>{row.rail === 'sol' ? 'Solana USDC' : row.rail}</td>
              <td>
                <span className={`pill ${row.status}`}>{STATUS_LABEL[row.status] ?? row.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ActivityPage() {
  return (
    <section className="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <p className="muted">The latest payments of every agent. This list updates by itself.</p>
      <ActivityTable />
    </section>
  );
}
