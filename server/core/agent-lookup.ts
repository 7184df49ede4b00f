import { CofferError, type Refusal } from '../wire/errors.js';
import type { EngineContext } from './context.js';
import type { AgentRecord } from './ports/store.js';
import { didYouMean } from '../wire/did-you-mean.js';

/** An owner's agent by id, or 404 agent_not_found: the first check of every agent-scoped call. */
export function getAgentOrThrow(ctx: EngineContext, owner: string, agentId: string): AgentRecord {
  const agent = ctx.store.getAgent(owner, agentId);
  if (agent === null) {
    // A mistyped id is named with the one it most likely meant (read only on this path).
    const agents = ctx.store.listAgents(owner);
    throw new CofferError(
      'agent_not_found',
      `no agent "${agentId}" for this owner${
        displayedAs(agentId, agents) ??
        didYouMean(
          agentId,
          agents.map((a) => a.agentId),
        )
      }`,
    );
  }
  return agent;
}

/**
 * The agents a name is the display name of (case aside): a link made with `--name` leaves an agent
 * whose id is another, and the name is what the dashboard shows. Null where it names none.
 */
function displayedAs(typed: string, agents: AgentRecord[]): string | null {
  const named = agents.filter((a) => a.displayName.toLowerCase() === typed.toLowerCase());
  if (named.length === 0) return null;
  if (named.length === 1)
    return `: "${named[0]!.displayName}" is the display name of agent "${named[0]!.agentId}", which is named by its id`;
  const ids = named.map((a) => `"${a.agentId}"`);
  return `: agents ${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]!} are displayed as that name, and are named by their ids`;
}

/**
 * A new agent's id must be free: 409 agent_exists where an agent has it, an archived one too (its
 * history stays under its id, and the dashboard lists it apart, so the words say which). `instead`:
 * what the caller may do with the agent in use rather than make it again (a link: its key).
 */
export function refuseTakenAgentId(ctx: EngineContext, owner: string, agentId: string, instead?: string): void {
  const taken = ctx.store.getAgent(owner, agentId);
  if (taken === null) return;
  throw new CofferError(
    'agent_exists',
    taken.archivedAt === null
      ? `an agent "${agentId}" already exists for this owner${instead === undefined ? '' : `: ${instead}`}`
      : `an archived agent "${agentId}" keeps that id (its history stays under it): choose another id`,
  );
}

/** An archived agent is stopped for good: nothing may start it or fund it again. */
export const archivedRefusal = (agent: AgentRecord): Refusal =>
  agent.archivedAt === null
    ? null
    : new CofferError('agent_archived', `agent "${agent.agentId}" is archived: it was stopped for good, and its history is kept`);

/**
 * A stopped agent pays nothing until the owner resumes it: the one refusal every payment door gives.
 * An archived one is stopped for good, said so: no resume starts it again (agent_archived).
 */
export const stoppedRefusal = (agent: AgentRecord): Refusal =>
  agent.status !== 'suspended'
    ? null
    : new CofferError(
        'agent_suspended',
        agent.archivedAt !== null
          ? `agent "${agent.agentId}" is archived: it was stopped for good, and pays nothing`
          : `agent "${agent.agentId}" is stopped${agent.statusReason === null ? '' : ` (${agent.statusReason})`}: its payments are refused until the owner resumes it`,
      );
