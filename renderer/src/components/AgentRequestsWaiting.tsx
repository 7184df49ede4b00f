import { describeRequest } from '../../../server/wire/describe-request.js';
import type { DashboardAgent } from '../api/types.js';
import { hrefFor } from '../lib/route.js';
import { useDashboard, useTimeZone } from '../state/store.js';

/** The requests from this agent that wait for the owner, in words, with the way to Approvals; nothing when none waits. */
export function AgentRequestsWaiting({ agent }: { agent: DashboardAgent }) {
  const pendingApprovals = useDashboard((s) => s.pendingApprovals);
  const timeZone = useTimeZone();
  const waiting = pendingApprovals.filter((a) => a.agentId === agent.agentId);
  if (waiting.length === 0) return null;
  return (
    <div className="waiting" role="status">
      <strong>
        {waiting.length} request{waiting.length === 1 ? '' : 's'} from this agent wait{waiting.length === 1 ? 's' : ''} for you:
      </strong>
      <ul>
        {waiting.map((approval) => (
          <li key={approval.approvalId}>
            {describeRequest(approval.kind, approval.request, approval.kind === 'policy' ? agent.policy : null, timeZone)}
          </li>
        ))}
      </ul>
      <a href={hrefFor({ page: 'approvals' })}>Review in Approvals</a>
    </div>
  );
}
