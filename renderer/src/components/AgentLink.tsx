import { hrefFor } from '../lib/route.js';
import { useDashboard } from '../state/store.js';

/** An agent by the name its owner gave it (its id where the dashboard does not list it, as an archived one), as every page names it. */
export function useAgentName(agentId: string): string {
  return useDashboard((s) => s.dashboard?.agents.find((a) => a.agentId === agentId)?.displayName ?? agentId);
}

/** An agent by its name, linked to its page; `strong` where it leads a sentence ("… asks to pay"). */
export function AgentLink({ agentId, strong = false }: { agentId: string; strong?: boolean }) {
  const name = useAgentName(agentId);
  return <a href={hrefFor({ page: 'agent', agentId })}>{strong ? <strong>{name}</strong> : name}</a>;
}
