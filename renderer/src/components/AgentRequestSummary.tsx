import { describeRequest } from '../../../server/wire/describe-request.js';
import type { Approval, Policy } from '../api/types.js';
import { hrefFor } from '../lib/route.js';
import { useTimeZone } from '../state/store.js';
import { PolicyRequestWhatIf } from './PolicyRequestWhatIf.js';

/**
 * A waiting request other than a payment, in words; one to change a policy is judged against the
 * policy it would replace (`policy`, as live as the dashboard) and tried on its agent's last 30 days.
 */
export function AgentRequestSummary({ approval, policy }: { approval: Approval; policy: Policy | null }) {
  const timeZone = useTimeZone();
  return (
    <>
      <div>
        <a href={hrefFor({ page: 'agent', agentId: approval.agentId })}>
          <strong>{approval.agentId}</strong>
        </a>{' '}
        asks: {describeRequest(approval.kind, approval.request, approval.kind === 'policy' ? policy : null, timeZone)}
      </div>
      {approval.kind === 'policy' && <PolicyRequestWhatIf approval={approval} />}
    </>
  );
}
