import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { ResumeAll } from './StopAll.js';

/** While any agent is stopped, say so at the top of every page (and why, for one its breaker stopped), with the way back. */
export function SuspendedBanner() {
  const agents = useDashboard((s) => s.dashboard?.agents ?? []);
  const suspended = agents.filter((a) => a.status === 'suspended');
  if (suspended.length === 0) return null;
  return (
    <div className="banner warning stopped-banner" role="status" data-testid="stopped-banner">
      <span>
        <strong>
          {suspended.length === agents.length
            ? agents.length === 1
              ? 'The agent is stopped'
              : agents.length === 2
                ? 'Both agents are stopped'
                : `All ${agents.length} agents are stopped`
            : `${suspended.length} of ${agents.length} agents ${suspended.length === 1 ? 'is' : 'are'} stopped`}
        </strong>
        : {suspended.length === 1 ? 'its' : 'their'} payments are refused.{' '}
        {suspended.slice(0, 5).map((a, i) => (
          <span key={a.agentId}>
            {i > 0 && ', '}
            <a className="agent-name" href={hrefFor({ page: 'agent', agentId: a.agentId })} title={a.displayName}>
              {a.displayName}
            </a>
            {/* Stopped by its breaker rather than by a person: why. */}
            {a.statusReason && ` (${a.statusReason})`}
          </span>
        ))}
        {suspended.length > 5 && ` and ${suspended.length - 5} more`}
      </span>
      <ResumeAll className="button small" />
    </div>
  );
}
