import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { spendingKey } from '../lib/spending-key.js';
import { useAgentRecords } from '../lib/use-agent-records.js';
import { AgentHead } from '../components/AgentHead.js';
import { ArchivedAgentCard } from '../components/ArchivedAgentCard.js';
import { LimitsNow } from '../components/LimitsNow.js';
import { PolicyEditor } from '../components/PolicyEditor.js';
import { SpendChart } from '../components/SpendChart.js';
import { SpendHistoryTable } from '../components/SpendHistoryTable.js';
import { ImageTasks } from '../components/ImageTasks.js';
import { AgentFunds } from './AgentFunds.js';

/** One agent: its brake (and why it stopped, when its breaker stopped it), wallet, funds, limits now, policy and what it spent. */
export function AgentPage({ agentId }: { agentId: string }) {
  const { client, dashboard, refresh } = useDashboard();
  const agent = dashboard?.agents.find((a) => a.agentId === agentId);
  // Its payments are read again when it paid, and when a held one was paid on the owner's yes (the
  // same spent, held no more: its row no longer waits).
  const { history, services, error } = useAgentRecords(agentId, JSON.stringify([agent?.lifetimePayments, agent?.spent24h, agent?.held24h]));

  if (!dashboard) return null;
  const archived = dashboard.archivedAgents.find((a) => a.agentId === agentId);
  if (!agent && archived) return <ArchivedAgentCard archived={archived} history={history} />;
  if (!agent) {
    return (
      <section className="card">
        <h2>No agent “{agentId}”</h2>
        <p>
          <a href={hrefFor({ page: 'overview' })}>Back to the overview</a>
        </p>
      </section>
    );
  }

  return (
    <>
      <AgentHead agent={agent} error={error} />

      <section className="card" aria-labelledby="limits-title">
        <h3 id="limits-title">Limits now</h3>
        <LimitsNow agentId={agent.agentId} refreshKey={spendingKey(agent)} />
      </section>

      <div className="columns">
        <AgentFunds agent={agent} />
        <section className="card" aria-labelledby="policy-title">
          <h3 id="policy-title">Spending policy</h3>
          {client && (
            <PolicyEditor
              policy={agent.policy}
              services={services}
              onSave={async (update) => {
                await client.updatePolicy(agent.agentId, update);
                await refresh();
              }}
              tryUpdate={(update) => client.policyWhatIf(agent.agentId, update)}
            />
          )}
        </section>
      </div>

      <section className="card" aria-labelledby="spend-title">
        <h3 id="spend-title">Spending</h3>
        <SpendChart payments={history} />
        <SpendHistoryTable history={history} />
      </section>

      <ImageTasks agentId={agent.agentId} />
    </>
  );
}
