import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { dateTime, shortTime } from '../lib/time.js';
import { paymentStatusLabel } from '../lib/labels.js';
import { Money } from '../components/Money.js';

/** Agents by id, for their display names. */
const useAgentNames = () => {
  const agents = useDashboard((s) => s.dashboard?.agents);
  return (agentId: string) => agents?.find((a) => a.agentId === agentId)?.displayName ?? agentId;
};

/** Payments across all agents, newest first; refreshed live with the rest of the dashboard. */
export function ActivityTable({ limit }: { limit?: number }) {
  const activity = useDashboard((s) => s.dashboard?.recentActivity ?? []);
  const nameOf = useAgentNames();
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
              <td className="nowrap" title={dateTime(row.timestamp)}>
                {shortTime(row.timestamp)}
              </td>
              <td>
                <a href={hrefFor({ page: 'agent', agentId: row.agent })}>{nameOf(row.agent)}</a>
              </td>
              <td>{row.venue}</td>
              <td className="num">
                <Money value={row.amount} />
              </td>
              <td>{row.rail === 'sol' ? 'Solana USDC' : row.rail}</td>
              <td>
                <span className={`pill ${row.status}`}>{paymentStatusLabel(row.status)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What agents tried and the policy refused: nothing was sent, but the owner should see it. */
function RefusalsTable() {
  const refusals = useDashboard((s) => s.dashboard?.recentRefusals ?? []);
  const nameOf = useAgentNames();
  if (refusals.length === 0) return <p className="empty">Nothing refused.</p>;
  return (
    <div className="table-wrap">
      <table className="refusals">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Agent</th>
            <th scope="col">Service</th>
            <th scope="col" className="num">Amount</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {refusals.map((row, i) => (
            <tr key={`${row.timestamp}-${i}`} data-testid="refusal-row">
              <td className="nowrap" title={dateTime(row.timestamp)}>
                {shortTime(row.timestamp)}
              </td>
              <td>
                <a href={hrefFor({ page: 'agent', agentId: row.agent })}>{nameOf(row.agent)}</a>
              </td>
              <td>
                <code>{row.service}</code>
              </td>
              <td className="num">
                <Money value={row.amount} />
              </td>
              <td>{row.message}</td>
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
        <p className="muted">Payments agents tried that their policy refused (nothing was sent), newest first.</p>
        <RefusalsTable />
      </section>
    </>
  );
}
