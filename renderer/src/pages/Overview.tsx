import { memo, useState } from 'react';
import type { AgentRow } from '../api/types.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { dateTime, shortTime } from '../lib/time.js';
import { TightestBudgetBar } from '../components/BudgetBar.js';
import { KillSwitch } from '../components/KillSwitch.js';
import { Money } from '../components/Money.js';
import { AgentBalance } from '../components/AgentBalance.js';
import { tryParseUsdc } from '../lib/money.js';
import { shortReason } from '../lib/policy-words.js';
import { ResumeAll, StopAll } from '../components/StopAll.js';
import { Treasury } from '../components/Treasury.js';
import { SettingsCard } from '../components/SettingsCard.js';
import { DeployDialog } from './DeployDialog.js';
import { ActivityTable } from './ActivityPage.js';
import { TableHead } from '../components/TableHead.js';

/**
 * One agent's row; re-rendered only when that agent's figures change. Its balance is its Solana
 * wallet's, with the one on Base under it where that rail is open. Its budget is the one nearest
 * its limit (with a mark past the first warning share), and a stopped agent says why when no person
 * stopped it (its breaker). On a phone the row is a card
 * (see styles.css): each cell names itself (`data-label`), so budget and last payment stay in view.
 */
const AgentRowView = memo(
  function AgentRowView({ agent }: { agent: AgentRow }) {
    // The owner's zone, as every other time on the page (helper 192: the browser's here, the owner's
    // under Recent payments, for the same payment).
    const timeZone = useTimeZone();
    return (
      <tr className={agent.status} data-testid={`agent-row-${agent.agentId}`}>
        <td data-label="Agent" className="agent-cell">
          <a href={hrefFor({ page: 'agent', agentId: agent.agentId })} className="agent-name">
            {agent.displayName}
          </a>
          {agent.displayName !== agent.agentId && <span className="muted"> {agent.agentId}</span>}
        </td>
        <td data-label="Status" className="status-cell">
          <KillSwitch agentId={agent.agentId} status={agent.status} name={agent.displayName} />
          {agent.statusReason && (
            <span className="status-reason" title={agent.statusReason}>
              {shortReason(agent.statusReason)}
            </span>
          )}
        </td>
        <td data-label="Wallet balance" className="num">
          <AgentBalance balance={agent.balance} balances={agent.balances} />
        </td>
        <td data-label="Tightest budget">
          <TightestBudgetBar tightest={agent.tightestBudget} name={agent.displayName} />
        </td>
        <td
          data-label="Last payment"
          className="muted"
          title={agent.lastPaymentAt === null ? undefined : dateTime(agent.lastPaymentAt, timeZone)}
          data-testid="last-payment"
        >
          {shortTime(agent.lastPaymentAt, new Date(), timeZone)}
        </td>
      </tr>
    );
  },
  (before, after) => JSON.stringify(before.agent) === JSON.stringify(after.agent),
);

/**
 * The owner's overview, the brake first: every agent with its status, balance, budget left and kill
 * switch, with Stop all (and Resume all) beside them; then the latest payments; then the treasury's
 * details (deposit address, QR, faucet), which are needed far less often; last the owner's settings
 * (their time zone), needed least.
 */
export function Overview() {
  const dashboard = useDashboard((s) => s.dashboard);
  const [deploying, setDeploying] = useState(false);
  const timeZone = useTimeZone();
  if (!dashboard) return null;
  return (
    <>
      <section className="card" aria-labelledby="agents-title">
        <div className="section-head">
          <h2 id="agents-title">Agents ({dashboard.agents.length})</h2>
          <div className="actions">
            <button type="button" className="button" onClick={() => setDeploying(true)}>
              Deploy an agent
            </button>
            <ResumeAll />
            <StopAll />
          </div>
        </div>
        {dashboard.agents.length === 0 ? (
          <p className="empty">No agents yet. Deploy one to give it a wallet, a budget and a kill switch.</p>
        ) : (
          <div className="table-wrap">
            <table className="agents cards-on-phone">
              <TableHead columns={['Agent', 'Status', { label: 'Wallet balance', num: true }, 'Tightest budget', 'Last payment']} />
              <tbody>
                {dashboard.agents.map((agent) => (
                  <AgentRowView key={agent.agentId} agent={agent} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {dashboard.archivedAgents.length > 0 && (
          <details className="archived">
            <summary>Archived agents ({dashboard.archivedAgents.length})</summary>
            <ul>
              {dashboard.archivedAgents.map((archived) => (
                <li key={archived.agentId}>
                  <a href={hrefFor({ page: 'agent', agentId: archived.agentId })}>{archived.displayName}</a>{' '}
                  <span className="muted">archived {shortTime(archived.archivedAt ?? null, new Date(), timeZone)}</span>
                  {(tryParseUsdc(archived.balance) ?? 0n) > 0n && (
                    <>
                      {' '}
                      <span className="badge">
                        still holds <Money value={archived.balance} />
                      </span>
                    </>
                  )}
                  {(tryParseUsdc(archived.balances.base ?? '0') ?? 0n) > 0n && (
                    <>
                      {' '}
                      <span className="badge">
                        still holds <Money value={archived.balances.base!} /> on Base
                      </span>
                    </>
                  )}
                </li>
              ))}
            </ul>
          </details>
        )}
      </section>
      <section className="card" aria-labelledby="recent-title">
        <div className="section-head">
          <h2 id="recent-title">Recent payments</h2>
          <a href={hrefFor({ page: 'activity' })}>All activity</a>
        </div>
        <ActivityTable limit={8} />
      </section>
      <Treasury />
      <SettingsCard />
      <DeployDialog open={deploying} onClose={() => setDeploying(false)} />
    </>
  );
}
