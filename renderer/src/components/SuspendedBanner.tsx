import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';

/** While any agent is suspended, say so at the top of every page. */
export function SuspendedBanner() {
  const agents = useDashboard((s) => s.dashboard?.agents ?? []);
  const suspended = agents.filter((a) => a.status === 'suspended');
  if (suspended.length === 0) return null;
  return (
    <div className="banner warning" role="status">
      <strong>
        {suspended.length === agents.length ? 'All agents are stopped' : `${suspended.length} agent${suspended.length === 1 ? ' is' : 's are'} stopped`}
      </strong>
      : their payments are refused.{' '}
      {suspended.slice(0, 5).map((a, i) => (
        <span key={a.agentId}>
          {i > 0 && ', '}
          <a href={hrefFor({ page: 'agent', agentId: a.agentId })}>{a.displayName}</a>
        </span>
      ))}
      {suspended.length > 5 && ` and ${suspended.length - 5} more`}
    </div>
  );
}
