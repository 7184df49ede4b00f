import { hrefFor } from '../lib/route.js';
import { useAgentName } from '../state/store.js';

/** An agent by its name, linked to its page; `strong` where it leads a sentence ("… asks to pay"). */
export function AgentLink({ agentId, strong = false }: { agentId: string; strong?: boolean }) {
  const name = useAgentName(agentId);
  return <a href={hrefFor({ page: 'agent', agentId })}>{strong ? <strong>{name}</strong> : name}</a>;
}
