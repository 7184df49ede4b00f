import type { DashboardAgent } from '../api/types.js';
import { hrefFor } from '../lib/route.js';
import { AgentFacts } from './AgentFacts.js';
import { AgentRequestsWaiting } from './AgentRequestsWaiting.js';
import { ErrorNote } from './ErrorNote.js';
import { KillSwitch } from './KillSwitch.js';

/** The top of an agent's page: its name and brake (and why it stopped, when its breaker stopped it), its figures, what waits for the owner. */
export function AgentHead({ agent, error }: { agent: DashboardAgent; error: string | null }) {
  return (
    <section className="card agent-head" aria-labelledby="agent-title">
      <p className="crumbs">
        <a href={hrefFor({ page: 'overview' })}>Overview</a> / {agent.agentId}
      </p>
      <div className="section-head">
        <h2 id="agent-title">{agent.displayName}</h2>
        <KillSwitch agentId={agent.agentId} status={agent.status} name={agent.displayName} />
      </div>
      {agent.status === 'suspended' && agent.statusReason && (
        <p className="stop-reason" role="status" data-testid="stop-reason">
          <strong>Stopped by itself</strong>: {agent.statusReason}. Every payment it tries is refused until you resume it.
        </p>
      )}
      <AgentFacts agent={agent} />
      <AgentRequestsWaiting agent={agent} />
      <ErrorNote error={error} />
    </section>
  );
}
