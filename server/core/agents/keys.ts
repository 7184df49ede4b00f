import { refuse } from '../../wire/errors.js';
import { mcpServerConfig } from '../../wire/mcp-config.js';
import { actorOf, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { hashApiKey, newApiKey } from '../ids.js';
import { archivedRefusal, getAgentOrThrow } from '../agent-lookup.js';
import type { ReplacedKey } from '../../wire/answers/agents.js';

/** A new API key for an agent; only its hash is stored, the key itself is returned once. */
export function issueAgentKey(ctx: EngineContext, owner: string, agentId: string): string {
  const apiKey = newApiKey('agent');
  ctx.store.insertApiKey(hashApiKey(apiKey), { kind: 'agent', owner, agentId }, ctx.clock.now());
  return apiKey;
}

/** How an MCP host launches Coffer's tool server for one agent. */
export const mcpConfigFor = (ctx: EngineContext, owner: string, agentId: string, apiKey: string | null) =>
  mcpServerConfig(ctx.mcpLaunch, { url: ctx.baseUrl(), owner, agentId, apiKey });

/**
 * A new API key for an agent, replacing every key it had: for a key that was lost (it is shown only
 * once) or leaked. The old keys stop working at once; a linked terminal or MCP host needs the new one.
 */
export function replaceAgentKey(ctx: EngineContext, principal: Principal, agentId: string): ReplacedKey {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now());
  const apiKey = reissueAgentKey(ctx, principal, agentId);
  return { agentId, apiKey, mcpConfig: mcpConfigFor(ctx, principal.owner, agentId, apiKey) };
}

/**
 * The owner's new key for an agent in use, every key it had revoked in the same commit (`why`, for the
 * audit, where it is not the owner asking for it by name). The caller checked who asks.
 */
export function reissueAgentKey(ctx: EngineContext, principal: Principal, agentId: string, why?: string): string {
  return ctx.store.transaction(() => {
    refuse(archivedRefusal(getAgentOrThrow(ctx, principal.owner, agentId)));
    ctx.store.revokeApiKeys({ kind: 'agent', owner: principal.owner, agentId }, { reason: 'replaced', at: ctx.clock.now() });
    const key = issueAgentKey(ctx, principal.owner, agentId);
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      agentId,
      action: 'agent.key_replaced',
      ...(why === undefined ? {} : { detail: { why } }),
    });
    return key;
  });
}
