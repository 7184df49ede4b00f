import { actorOf, requireOwner, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import type { Renamed } from '../../wire/answers/agents.js';

export function renameAgent(ctx: EngineContext, principal: Principal, agentId: string, displayName: string): Renamed {
  requireOwner(principal);
  return ctx.store.transaction(() => {
    const agent = getAgentOrThrow(ctx, principal.owner, agentId);
    ctx.store.setAgentDisplayName(principal.owner, agentId, displayName);
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      agentId,
      action: 'agent.rename',
      detail: { from: agent.displayName, to: displayName },
    });
    ctx.events.emit({ type: 'policy', owner: principal.owner, agentId });
    return { agentId, displayName };
  });
}
