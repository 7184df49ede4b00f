/**
 * A deploy asked again under its Idempotency-Key. The owner's deploy writes the agent, then moves the
 * funds it asked for: a process killed in between, or an answer lost on its way, leaves an agent whose
 * key never reached its owner and whose funds may not have moved, and a second deploy of its id is
 * refused. Asked again under the same key with the same body, the deploy is finished instead: its
 * funds move once (their allocation carries a key derived from the deploy's, answered again where it
 * moved), and a new key is handed out, every key answered before revoked (none may have reached
 * anyone; one that did is the caller's own, who now holds the new one).
 */
import { CofferError } from '../../wire/errors.js';
import { DAY_MS, type EngineContext } from '../context.js';
import type { Principal } from '../auth.js';
import { hashRequest } from '../ids.js';
import type { AgentRecord, DeployKey } from '../ports/store.js';
import type { DeployBody } from '../../wire/schemas.js';
import type { Deployed } from '../../wire/answers/agents.js';
import { reissueAgentKey } from './keys.js';
import { deployedAnswer, type DeployFund } from './deployed-answer.js';

/** What a deploy under `idempotencyKey` is kept under: the key, and a digest of all it asked. */
export const deployKeyOf = (idempotencyKey: string, body: DeployBody): DeployKey => ({
  key: idempotencyKey,
  requestHash: hashRequest(['deploy', body]),
});

/** The key a deploy's allocation carries: the space keeps it apart from every key a request can send. */
export const fundingKeyOf = (deployKey: DeployKey | null): string | null => (deployKey === null ? null : `deploy ${deployKey.key}`);

/**
 * The agent an earlier deploy under this key made within the day, null where none did (its id free,
 * or taken by a deploy under another key, none, or more than a day ago: a key lasts a day, as every
 * Idempotency-Key does, so a replay long after never revokes a key in use). The same key sent with
 * another body is refused.
 */
export function earlierDeploy(ctx: EngineContext, owner: string, agentId: string, deployKey: DeployKey): AgentRecord | null {
  const earlier = ctx.store.deployKeyOf(owner, agentId);
  if (earlier === null || earlier.key !== deployKey.key) return null;
  const agent = ctx.store.getAgent(owner, agentId);
  if (agent === null || agent.createdAt < ctx.clock.now() - DAY_MS) return null;
  if (earlier.requestHash !== deployKey.requestHash) {
    throw new CofferError('idempotency_key_reused', `this Idempotency-Key was already used for a different deploy of "${agentId}"`);
  }
  return agent;
}

/**
 * Finishes the deploy that made `agent`. One still under way in this process needs no waiting for: its
 * key was issued in the commit that wrote the agent, before this one's replaces it, and its allocation
 * and this one's share their key (the second answers the first's move, moveMoney).
 */
export async function finishDeploy(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  fund: DeployFund | null,
): Promise<Deployed> {
  const apiKey = reissueAgentKey(ctx, principal, agent.agentId, 'its deploy was asked again under its Idempotency-Key');
  return deployedAnswer(ctx, principal, agent, apiKey, ctx.store.getPolicy(principal.owner, agent.agentId), fund);
}
