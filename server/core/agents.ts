import { CofferError, isCofferError, refuse } from '../wire/errors.js';
import { mcpServerConfig } from '../wire/mcp-config.js';
import { allocate } from './allocations.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, requireOwner, type Principal } from './auth.js';
import { DAY_MS, audit, type ContextWith, type EngineContext } from './context.js';
import { hashApiKey, newApiKey } from './ids.js';
import { requestApproval, withdrawRequestsOf } from './approval-requests.js';
import { archivedRefusal, getAgentOrThrow } from './agent-lookup.js';
import { done, ownerResult } from './outcome.js';
import { formatUsdc, parseAmount } from '../wire/money.js';
import { assertAskWithinMax } from '../wire/policy/asks.js';
import { assertKnownServices } from './policy.js';
import { isTightening, mergePolicy, newPolicy, type PolicyClock } from '../wire/policy/policy.js';
import { isSolanaAddress } from '../wire/schemas.js';
import type { AgentRecord, AgentSpendTotals, AgentStatus, AgentStore, MetaStore, SpendStore } from './ports/store.js';
import type { Policy } from '../wire/policy/policy.js';
import type { DeployBody, PolicyUpdate } from '../wire/schemas.js';
import { agentView } from './views.js';
import { iso, policyView } from '../wire/views.js';
import type { Budget } from '../wire/policy/budget.js';
import { budgetsNow, tightestBudget } from './budget-usage.js';
import { timeZoneOf } from './settings.js';
import { yieldToWaitingRequests } from './yield-turn.js';

const policyClock = (ctx: EngineContext): PolicyClock => ({ now: ctx.clock.now(), timeZone: timeZoneOf(ctx) });

/** What an allowedServices entry may name: a registry service, or a recipient's address. */
const isKnownService = (ctx: EngineContext, entry: string): boolean => isSolanaAddress(entry) || ctx.store.getService(entry) !== null;

/** A new API key for an agent; only its hash is stored, the key itself is returned once. */
export function issueAgentKey(ctx: EngineContext, owner: string, agentId: string): string {
  const apiKey = newApiKey('agent');
  ctx.store.insertApiKey(hashApiKey(apiKey), { kind: 'agent', owner, agentId }, ctx.clock.now());
  return apiKey;
}

/**
 * Deploys an agent: a wallet, a policy, an API key. An agent asking for another agent loosens what can
 * be spent, so its request waits for the owner's approval (then the key is collected with the
 * approval, see readApproval); `issueKey: false` deploys without a key for that path.
 */
export async function deployAgent(ctx: EngineContext, principal: Principal, body: DeployBody, options: { issueKey?: boolean } = {}) {
  const { owner } = principal;
  if (ctx.store.getAgent(owner, body.agentId) !== null) {
    throw new CofferError('agent_exists', `an agent "${body.agentId}" already exists for this owner`);
  }
  const policy = newPolicy(body, policyClock(ctx));
  assertKnownServices(policy.allowedServices, (entry) => isKnownService(ctx, entry));
  assertPayableScopes(ctx, policy.budgets);
  assertAskWithinMax(policy);
  if (principal.kind === 'agent') {
    getAgentOrThrow(ctx, owner, principal.agentId);
    return requestApproval(ctx, principal, 'deploy', body.agentId, { ...body });
  }

  // The caller gets the new agent's key: lasting access, so a dashboard session must be fresh.
  if (options.issueKey !== false) requireFreshSignIn(principal, ctx.clock.now());
  // Funds asked for in the same step must be there before anything is created.
  const fund = body.fund === undefined ? null : parseAmount(body.fund, 'fund');
  if (fund !== null) {
    const available = (await ctx.chain.usdcBalance(owner)) - ctx.store.pendingAllocationsTotal(owner);
    if (available < fund) {
      throw new CofferError(
        'insufficient_treasury_funds',
        `the treasury holds ${formatUsdc(available < 0n ? 0n : available)} USDC available, less than the ${formatUsdc(fund)} to fund the new agent with; nothing was created`,
      );
    }
  }
  // The wallet key goes to the key store before the agent row exists: a crash in between leaves an
  // unused key, never an agent without one.
  const walletAddress = await ctx.vault.createWallet({ kind: 'agent', treasury: owner });
  const agent: AgentRecord = {
    owner,
    agentId: body.agentId,
    walletAddress,
    displayName: body.displayName ?? body.agentId,
    status: 'active',
    createdAt: ctx.clock.now(),
    statusReason: null,
    statusChangedAt: null,
    archivedAt: null,
  };
  const apiKey = ctx.store.transaction(() => {
    if (ctx.store.getAgent(owner, body.agentId) !== null) {
      throw new CofferError('agent_exists', `an agent "${body.agentId}" already exists for this owner`);
    }
    ctx.store.insertAgent(agent, policy);
    const key = options.issueKey === false ? null : issueAgentKey(ctx, owner, agent.agentId);
    audit(ctx, {
      actor: actorOf(principal),
      owner,
      agentId: agent.agentId,
      action: 'agent.deploy',
      detail: { walletAddress, policy: policyView(policy) },
    });
    return key;
  });
  ctx.events.emit({ type: 'agent', owner, agentId: agent.agentId, status: 'deployed' });

  return done({
    agent: agentView(agent),
    ...(apiKey === null ? {} : { apiKey }),
    policy: policyView(policy),
    mcpConfig: mcpConfigFor(ctx, owner, agent.agentId, apiKey),
    ...(fund === null ? {} : { funding: await fundNewAgent(ctx, principal, agent.agentId, fund) }),
  });
}

/**
 * The allocation asked for with a deploy. The agent (and its key, shown once) exists whatever happens
 * here, so a failure is answered beside it, never instead of it.
 */
async function fundNewAgent(ctx: EngineContext, principal: Principal, agentId: string, amount: bigint) {
  try {
    // Only the owner deploys with funds at once (an agent's deploy is funded when the owner approves it).
    const allocation = ownerResult(await allocate(ctx, principal, agentId, formatUsdc(amount)));
    return { status: 'funded' as const, allocation };
  } catch (error) {
    const code = isCofferError(error) ? error.code : 'internal';
    return {
      status: 'failed' as const,
      code,
      error: isCofferError(error) ? error.message : 'the allocation failed; fund the agent from its page',
    };
  }
}

/** How an MCP host launches Coffer's tool server for one agent. */
export const mcpConfigFor = (ctx: EngineContext, owner: string, agentId: string, apiKey: string | null) =>
  mcpServerConfig(ctx.mcpLaunch, { url: ctx.baseUrl(), owner, agentId, apiKey });

/**
 * The owner's agents as the ledger has them, with no chain read: what must show even when the chain
 * cannot be reached (the desktop tray's brake).
 */
export function agentsAtRest(ctx: EngineContext, principal: Principal) {
  requireOwner(principal);
  const { owner } = principal;
  const totals = ctx.store.spendTotals(owner, ctx.clock.now() - DAY_MS);
  const policies = ctx.store.listPolicies(owner);
  return {
    agents: ctx.store.listAgents(owner).map((agent) => ({
      ...agentView(agent),
      // The budget nearest its limit, and whether it passed the first warning share (the tray's mark).
      tightestBudget: tightestBudget(
        ctx,
        owner,
        agent.agentId,
        policies.get(agent.agentId) ?? ctx.store.getPolicy(owner, agent.agentId),
        totals.get(agent.agentId)?.spentSince ?? 0n,
      ),
    })),
  };
}

export async function agentBalance(ctx: EngineContext, principal: Principal, agentId: string) {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  // The spec's balance record, and whether the agent may pay at all: an agent reading its balance
  // learns it was stopped without having to try a payment.
  return {
    agentId,
    walletAddress: agent.walletAddress,
    balance: formatUsdc(balance),
    currency: 'USDC' as const,
    status: agent.status,
    // Why it stopped, when its breaker stopped it.
    ...(agent.status === 'suspended' && agent.statusReason !== null ? { statusReason: agent.statusReason } : {}),
  };
}

/** A policy answer: the policy, and what counts against its daily budget now (the last 24 h, pending included). */
function policyAnswer(ctx: EngineContext, owner: string, agentId: string, policy: Policy) {
  return {
    agentId,
    policy: policyView(policy),
    spent24h: formatUsdc(ctx.store.spentSince(owner, agentId, ctx.clock.now() - DAY_MS)),
    // Each budget now (what was spent, what remains, when it starts afresh); left out when there are none.
    ...(policy.budgets.length === 0 ? {} : { budgets: budgetsNow(ctx, owner, agentId, policy.budgets) }),
  };
}

/** A service's budget must name a registry service: an unlisted name pins no payment, so it would hold nothing. */
function assertPayableScopes(ctx: EngineContext, budgets: Budget[]): void {
  for (const { scope } of budgets) {
    if (scope.kind === 'service' && ctx.store.getService(scope.serviceId) === null) {
      throw new CofferError(
        'invalid_policy',
        `budgets: "${scope.serviceId}" is not a registry service, so its budget would hold no payment; name a registry service id, or the recipient's address as "recipient"`,
      );
    }
  }
}

export function readPolicy(ctx: EngineContext, principal: Principal, agentId: string) {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return policyAnswer(ctx, principal.owner, agentId, ctx.store.getPolicy(principal.owner, agentId));
}

/** A policy with an update applied, checked as a save checks it (services and budgets' scopes that name something payable). */
export function nextPolicy(ctx: EngineContext, current: Policy, update: PolicyUpdate): Policy {
  const next = mergePolicy(current, update, policyClock(ctx));
  if (update.allowedServices !== undefined) assertKnownServices(next.allowedServices, (entry) => isKnownService(ctx, entry));
  if (update.budgets !== undefined) assertPayableScopes(ctx, next.budgets);
  if (update.askAbove !== undefined) assertAskWithinMax(next);
  return next;
}

export function updatePolicy(ctx: EngineContext, principal: Principal, agentId: string, update: PolicyUpdate) {
  requireAgentScope(principal, agentId);
  return ctx.store.transaction(() => {
    getAgentOrThrow(ctx, principal.owner, agentId);
    const current = ctx.store.getPolicy(principal.owner, agentId);
    const next = nextPolicy(ctx, current, update);
    // An agent may only tighten its own policy at once; loosening waits for the owner.
    if (principal.kind === 'agent' && !isTightening(current, next)) {
      // An end is kept as the time it resolved to, so the owner judges (and later applies) that time.
      const asked =
        update.expiresAt === undefined ? update : { ...update, expiresAt: next.expiresAt === null ? null : iso(next.expiresAt) };
      return requestApproval(ctx, principal, 'policy', agentId, { ...asked }, null, { ...policyView(current) });
    }
    if (!isTightening(current, next)) requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
    ctx.store.setPolicy(principal.owner, agentId, next, ctx.clock.now());
    // The owner's change of what is told (limits, shares, the end) is told afresh; an agent's own
    // tightening is not, or it could have the owner told again and again.
    if (principal.kind === 'owner' && TOLD_OF.some((field) => update[field] !== undefined))
      ctx.store.forgetNotices(principal.owner, agentId);
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      agentId,
      action: 'policy.update',
      detail: { before: policyView(current), after: policyView(next) },
    });
    ctx.events.emit({ type: 'policy', owner: principal.owner, agentId });
    return done(policyAnswer(ctx, principal.owner, agentId, next));
  });
}

/** The policy's fields the owner is told about (budget warnings, the end). */
const TOLD_OF = ['dailyBudget', 'budgets', 'warnAt', 'expiresAt'] as const;

function setStatus(ctx: EngineContext, principal: Principal, agentId: string, status: AgentStatus, actor: string) {
  return ctx.store.transaction(() => {
    const agent = getAgentOrThrow(ctx, principal.owner, agentId);
    if (agent.status !== status) {
      ctx.store.setAgentStatus(principal.owner, agentId, status, null, ctx.clock.now());
      audit(ctx, { actor, owner: principal.owner, agentId, action: status === 'suspended' ? 'agent.kill' : 'agent.resume' });
      // Stopped: what it asked for is withdrawn (but asking to be resumed); resumed: that request is moot.
      withdrawRequestsOf(ctx, principal.owner, agentId, actor, status === 'suspended' ? 'all-but-resume' : 'resume');
      ctx.events.emit({ type: 'agent', owner: principal.owner, agentId, status });
    }
    return { agentId, status };
  });
}

/** Kill tightens, so an agent may kill itself; idempotent. */
export function killAgent(ctx: EngineContext, principal: Principal, agentId: string, actor = actorOf(principal)) {
  requireAgentScope(principal, agentId);
  return setStatus(ctx, principal, agentId, 'suspended', actor);
}

/** Resume loosens: an agent's own request waits for the owner; the owner's applies at once (idempotent). */
export function resumeAgent(ctx: EngineContext, principal: Principal, agentId: string, actor = actorOf(principal)) {
  requireAgentScope(principal, agentId);
  refuse(archivedRefusal(getAgentOrThrow(ctx, principal.owner, agentId)));
  if (principal.kind === 'agent') {
    getAgentOrThrow(ctx, principal.owner, agentId);
    return requestApproval(ctx, principal, 'resume', agentId, {});
  }
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  return done(setStatus(ctx, principal, agentId, 'active', actor));
}

/** Suspends every agent of the owner in one transaction. */
export function killAll(ctx: EngineContext, principal: Principal, actor = actorOf(principal)) {
  requireOwner(principal);
  return ctx.store.transaction(() => {
    const suspended: string[] = [];
    for (const agent of ctx.store.listAgents(principal.owner)) {
      if (agent.status === 'suspended') continue;
      ctx.store.setAgentStatus(principal.owner, agent.agentId, 'suspended', null, ctx.clock.now());
      withdrawRequestsOf(ctx, principal.owner, agent.agentId, actor);
      suspended.push(agent.agentId);
    }
    audit(ctx, { actor, owner: principal.owner, action: 'agent.kill_all', detail: { suspended } });
    for (const agentId of suspended) ctx.events.emit({ type: 'agent', owner: principal.owner, agentId, status: 'suspended' });
    return { suspended };
  });
}

/**
 * The counterpart of killAll: resumes every stopped agent of the owner in one transaction (owner
 * only: an agent's own request to resume waits for the owner, one by one).
 */
export function resumeAll(ctx: EngineContext, principal: Principal, actor = actorOf(principal)) {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  return ctx.store.transaction(() => {
    const resumed: string[] = [];
    for (const agent of ctx.store.listAgents(principal.owner)) {
      if (agent.status === 'active') continue;
      ctx.store.setAgentStatus(principal.owner, agent.agentId, 'active', null, ctx.clock.now());
      withdrawRequestsOf(ctx, principal.owner, agent.agentId, actor, 'resume');
      resumed.push(agent.agentId);
    }
    audit(ctx, { actor, owner: principal.owner, action: 'agent.resume_all', detail: { resumed } });
    for (const agentId of resumed) ctx.events.emit({ type: 'agent', owner: principal.owner, agentId, status: 'active' });
    return { resumed };
  });
}

/**
 * A new API key for an agent, replacing every key it had: for a key that was lost (it is shown only
 * once) or leaked. The old keys stop working at once; a linked terminal or MCP host needs the new one.
 */
export function replaceAgentKey(ctx: EngineContext, principal: Principal, agentId: string) {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now());
  const apiKey = ctx.store.transaction(() => {
    refuse(archivedRefusal(getAgentOrThrow(ctx, principal.owner, agentId)));
    ctx.store.deleteApiKeys({ kind: 'agent', owner: principal.owner, agentId });
    const key = issueAgentKey(ctx, principal.owner, agentId);
    audit(ctx, { actor: actorOf(principal), owner: principal.owner, agentId, action: 'agent.key_replaced' });
    return key;
  });
  return { agentId, apiKey, mcpConfig: mcpConfigFor(ctx, principal.owner, agentId, apiKey) };
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
    ctx.events.emit({ type: 'policy', owner: principal.owner, agentId });
    return { agentId, displayName };
  });
}

/**
 * Archives an agent: stopped for good, every key of it revoked at once, its pending requests
 * withdrawn; its payments, allocations and audit stay, and its id stays taken. Its wallet must be
 * empty first (return its USDC to the treasury), with nothing on its way in or out, so no money is
 * left where nobody looks; after it, allocations to it and payments to its wallet are refused and
 * its refunds stay in the treasury.
 * Idempotent: archiving an archived agent answers when it was archived.
 */
export async function archiveAgent(ctx: EngineContext, principal: Principal, agentId: string) {
  requireOwner(principal);
  const { owner } = principal;
  const agent = getAgentOrThrow(ctx, owner, agentId);
  if (agent.archivedAt !== null) return { agentId, status: 'archived' as const, archivedAt: iso(agent.archivedAt) };
  // The balance is read before the commit that archives: money on its way in when it is read, or
  // reserved between the read and the commit, would land unseen in an archived wallet.
  const movingIn = ctx.store.watchMovesInto(owner, agentId, agent.walletAddress);
  refuseMovesIn(movingIn(), agentId);
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  return ctx.store.transaction(() => {
    refuseMovesIn(movingIn(), agentId);
    const pending = ctx.store.pendingPaymentsTotal(owner, agentId) + ctx.store.pendingReturnsTotal(owner, agentId);
    if (balance > 0n || pending > 0n) {
      throw new CofferError(
        'agent_has_funds',
        balance > 0n
          ? `agent "${agentId}" still holds ${formatUsdc(balance)} USDC: return it to the treasury first (POST /v1/agents/${agentId}/return)`
          : `agent "${agentId}" has payments or a return still pending: archive it once they settle`,
      );
    }
    const now = ctx.clock.now();
    if (!ctx.store.archiveAgent(owner, agentId, now)) throw new CofferError('agent_archived', `agent "${agentId}" was archived meanwhile`);
    ctx.store.deleteApiKeys({ kind: 'agent', owner, agentId });
    withdrawRequestsOf(ctx, owner, agentId, actorOf(principal));
    audit(ctx, { actor: actorOf(principal), owner, agentId, action: 'agent.archive', detail: { walletAddress: agent.walletAddress } });
    ctx.events.emit({ type: 'agent', owner, agentId, status: 'archived' });
    return { agentId, status: 'archived' as const, archivedAt: iso(now) };
  });
}

/** Money on its way into the wallet (an allocation, a refund, a payment to it): archive once it landed and was returned. */
function refuseMovesIn(moving: boolean, agentId: string): void {
  if (moving) {
    throw new CofferError(
      'agent_has_funds',
      `money is on its way into agent "${agentId}"'s wallet: once it has landed, return it to the treasury, then archive`,
    );
  }
}

const ROWS_PER_TURN = 50;

/** Every agent of the owner in use, each with its balance, spending figures and policy; and their 24 h total. */
export async function agentRows(ctx: ContextWith<AgentStore & SpendStore & MetaStore>, owner: string) {
  const agents = ctx.store.listAgents(owner);
  const since = ctx.clock.now() - DAY_MS;
  let spent24h = 0n;
  const row = (
    agent: (typeof agents)[number],
    { balances, totals, policies }: { balances: Map<string, bigint>; totals: Map<string, AgentSpendTotals>; policies: Map<string, Policy> },
  ) => {
    const spend = totals.get(agent.agentId);
    spent24h += spend?.spentSince ?? 0n;
    const policy = policies.get(agent.agentId) ?? ctx.store.getPolicy(owner, agent.agentId);
    const view = agentView(agent);
    // Written out rather than spread: a spread followed by more fields makes V8 build each row as a
    // dictionary (about 3 KB a row), which a dashboard of 1,000 agents pays in garbage collection.
    // Absent fields stay undefined, which JSON leaves out as the spread did.
    return {
      agentId: view.agentId,
      walletAddress: view.walletAddress,
      createdAt: view.createdAt,
      displayName: view.displayName,
      status: view.status,
      statusReason: view.statusReason,
      archivedAt: view.archivedAt,
      balance: formatUsdc(balances.get(agent.walletAddress) ?? 0n),
      spent24h: formatUsdc(spend?.spentSince ?? 0n),
      lifetimeSpent: formatUsdc(spend?.lifetimeSpent ?? 0n),
      lifetimePayments: spend?.lifetimePayments ?? 0,
      lastPaymentAt: spend?.lastPaymentAt ? iso(spend.lastPaymentAt) : null,
      policy: policyView(policy),
      // The budget nearest its limit (the row's bar) and whether it passed the first warning share (its mark).
      tightestBudget: tightestBudget(ctx, owner, agent.agentId, policy, spend?.spentSince ?? 0n),
    };
  };
  // A page of rows at a time, each page read and built in one turn (its balances, its spending, its
  // policies), letting payments in between: a large dashboard holds up an agent's payment for one
  // page at most, never for its whole length.
  const rows: ReturnType<typeof row>[] = [];
  for (let start = 0; start < agents.length; start += ROWS_PER_TURN) {
    // Listing the agents is a turn of its own, and so is each page.
    await yieldToWaitingRequests();
    const page = agents.slice(start, start + ROWS_PER_TURN);
    const ids = page.map((agent) => agent.agentId);
    const read = {
      balances: await ctx.chain.usdcBalances(page.map((agent) => agent.walletAddress)),
      totals: ctx.store.spendTotals(owner, since, ids),
      policies: ctx.store.listPolicies(owner, ids),
    };
    for (const agent of page) rows.push(row(agent, read));
  }
  return { rows, spent24h };
}

/** Every agent of the owner with its balance, 24 h spending, lifetime figures and policy. */
export async function listAgents(ctx: ContextWith<AgentStore & SpendStore & MetaStore>, principal: Principal) {
  requireOwner(principal);
  return { agents: (await agentRows(ctx, principal.owner)).rows };
}
