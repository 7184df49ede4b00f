import { CofferError } from './errors.js';
import { actorOf, requireAgentScope, requireOwner, type Principal } from './auth.js';
import { audit, type EngineContext } from './context.js';
import { hashApiKey, newApiKey } from './ids.js';
import { formatUsdc, parseAmount } from './money.js';
import { assertCoherent, isTightening, mergePolicy } from './policy.js';
import type { AgentRecord, AgentStatus, Policy } from './ports/store.js';
import type { DeployBody, PolicyUpdate } from './schemas.js';
import { agentView, policyView } from './views.js';

export function getAgentOrThrow(ctx: EngineContext, owner: string, agentId: string): AgentRecord {
  const agent = ctx.store.getAgent(owner, agentId);
  if (agent === null) throw new CofferError('agent_not_found', `no agent "${agentId}" for this owner`);
  return agent;
}

export async function deployAgent(ctx: EngineContext, principal: Principal, body: DeployBody) {
  // Deploying another agent loosens what the caller can spend: owner only (approvals come later).
  requireOwner(principal);
  const { owner } = principal;
  if (ctx.store.getAgent(owner, body.agentId) !== null) {
    throw new CofferError('agent_exists', `an agent "${body.agentId}" already exists for this owner`);
  }
  const policy: Policy = {
    dailyBudget: parseAmount(body.dailyBudget, 'dailyBudget'),
    maxPerPayment: parseAmount(body.maxPerPayment, 'maxPerPayment'),
    cooldownSeconds: body.cooldownSeconds ?? 0,
    allowedServices: [...new Set(body.allowedServices ?? [])],
  };
  assertCoherent(policy);

  // The wallet key goes to the key store before the agent row exists: a crash in between leaves an
  // unused key, never an agent without one.
  const walletAddress = await ctx.vault.createWallet();
  const apiKey = newApiKey('agent');
  const agent: AgentRecord = {
    owner,
    agentId: body.agentId,
    walletAddress,
    displayName: body.displayName ?? body.agentId,
    status: 'active',
    createdAt: ctx.clock.now(),
  };
  ctx.store.transaction(() => {
    if (ctx.store.getAgent(owner, body.agentId) !== null) {
      throw new CofferError('agent_exists', `an agent "${body.agentId}" already exists for this owner`);
    }
    ctx.store.insertAgent(agent, policy);
    ctx.store.insertApiKey(hashApiKey(apiKey), { kind: 'agent', owner, agentId: agent.agentId }, agent.createdAt);
    audit(ctx, {
      actor: actorOf(principal),
      owner,
      agentId: agent.agentId,
      action: 'agent.deploy',
      detail: { walletAddress, policy: policyView(policy) },
    });
  });

  return {
    agent: agentView(agent),
    apiKey,
    policy: policyView(policy),
    mcpConfig: {
      command: ctx.mcpLaunch.command,
      args: [...ctx.mcpLaunch.args],
      env: {
        COFFER_URL: ctx.baseUrl(),
        COFFER_OWNER: owner,
        COFFER_AGENT_ID: agent.agentId,
        COFFER_API_KEY: apiKey,
      },
    },
  };
}

export async function agentBalance(ctx: EngineContext, principal: Principal, agentId: string) {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  return { agentId, walletAddress: agent.walletAddress, balance: formatUsdc(balance), currency: 'USDC' as const };
}

export function readPolicy(ctx: EngineContext, principal: Principal, agentId: string) {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return { agentId, policy: policyView(ctx.store.getPolicy(principal.owner, agentId)) };
}

export function updatePolicy(ctx: EngineContext, principal: Principal, agentId: string, update: PolicyUpdate) {
  requireAgentScope(principal, agentId);
  return ctx.store.transaction(() => {
    getAgentOrThrow(ctx, principal.owner, agentId);
    const current = ctx.store.getPolicy(principal.owner, agentId);
    const next = mergePolicy(current, update);
    // An agent may only tighten its own policy; loosening is the owner's call.
    if (principal.kind === 'agent' && !isTightening(current, next)) {
      throw new CofferError('owner_only', 'an agent can only tighten its own policy; loosening needs the owner');
    }
    ctx.store.setPolicy(principal.owner, agentId, next, ctx.clock.now());
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      agentId,
      action: 'policy.update',
      detail: { before: policyView(current), after: policyView(next) },
    });
    return { agentId, policy: policyView(next) };
  });
}

function setStatus(ctx: EngineContext, principal: Principal, agentId: string, status: AgentStatus, actor: string) {
  return ctx.store.transaction(() => {
    const agent = getAgentOrThrow(ctx, principal.owner, agentId);
    if (agent.status !== status) {
      ctx.store.setAgentStatus(principal.owner, agentId, status);
      audit(ctx, { actor, owner: principal.owner, agentId, action: status === 'suspended' ? 'agent.kill' : 'agent.resume' });
    }
    return { agentId, status };
  });
}

/** Kill tightens, so an agent may kill itself; idempotent. */
export function killAgent(ctx: EngineContext, principal: Principal, agentId: string, actor = actorOf(principal)) {
  requireAgentScope(principal, agentId);
  return setStatus(ctx, principal, agentId, 'suspended', actor);
}

/** Resume loosens: owner only; idempotent. */
export function resumeAgent(ctx: EngineContext, principal: Principal, agentId: string, actor = actorOf(principal)) {
  requireOwner(principal);
  return setStatus(ctx, principal, agentId, 'active', actor);
}

/** Suspends every agent of the owner in one transaction. */
export function killAll(ctx: EngineContext, principal: Principal, actor = actorOf(principal)) {
  requireOwner(principal);
  return ctx.store.transaction(() => {
    const suspended: string[] = [];
    for (const agent of ctx.store.listAgents(principal.owner)) {
      if (agent.status === 'suspended') continue;
      ctx.store.setAgentStatus(principal.owner, agent.agentId, 'suspended');
      suspended.push(agent.agentId);
    }
    audit(ctx, { actor, owner: principal.owner, action: 'agent.kill_all', detail: { suspended } });
    return { suspended };
  });
}

export function renameAgent(ctx: EngineContext, principal: Principal, agentId: string, displayName: string) {
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
    return { agentId, displayName };
  });
}
