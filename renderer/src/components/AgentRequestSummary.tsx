import { describeRequest } from '../../../server/wire/describe-request.js';
import type { Approval, Policy } from '../api/types.js';
import { AgentLink } from './AgentLink.js';
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
        <AgentLink agentId={approval.agentId} strong /> asks:{' '}
        {describeRequest(approval.kind, approval.request, approval.kind === 'policy' ? policy : null, timeZone)}
      </div>
      {approval.kind === 'policy' && <PolicyRequestWhatIf approval={approval} />}
    </>
  );
}
