import { CofferError, isCofferError } from '../../wire/errors.js';
import { allocate, treasuryFree, treasuryReading } from '../treasury/allocations.js';
import { actorOf, requireFreshSignIn, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { requestApproval } from '../approvals/requests.js';
import { getAgentOrThrow, refuseTakenAgentId } from '../agent-lookup.js';
import { done, ownerResult, type Outcome } from '../outcome.js';
import { formatUsdc, parseAmount } from '../../wire/money.js';
import { assertAskWithinMax } from '../../wire/policy/asks.js';
import { assertKnownServices } from '../policy/rules.js';
import { newPolicy } from '../../wire/policy/policy.js';
import type { AgentRecord } from '../ports/store.js';
import type { DeployBody } from '../../wire/schemas.js';
import { agentView } from '../views.js';
import { policyView } from '../../wire/views.js';
import { policyClock, isKnownService, assertPayableScopes } from '../policy/update.js';
import { nearServiceIds } from '../registry/registry.js';
import { issueAgentKey, mcpConfigFor } from './keys.js';
import type { DeployFunding, Deployed } from '../../wire/answers/agents.js';
import { fileBaseWallets } from '../rails.js';
import { railName } from '../../wire/rail-words.js';
import type { Rail } from '../../wire/rails.js';

/**
 * Deploys an agent: a wallet, a policy, an API key. An agent asking for another agent loosens what can
 * be spent, so its request waits for the owner's approval (then the key is collected with the
 * approval, see readApproval); `issueKey: false` deploys without a key for that path.
 */
export async function deployAgent(
  ctx: EngineContext,
  principal: Principal,
  body: DeployBody,
  options: { issueKey?: boolean } = {},
): Promise<Outcome<Deployed>> {
  const { owner } = principal;
  refuseTakenAgentId(ctx, owner, body.agentId);
  const policy = newPolicy(body, policyClock(ctx));
  assertKnownServices(
    policy.allowedServices,
    (entry) => isKnownService(ctx, entry),
    (typed) => nearServiceIds(ctx, typed),
  );
  assertPayableScopes(ctx, policy.budgets);
  assertAskWithinMax(policy);
  if (body.fund === undefined && body.fundRail !== undefined) {
    throw new CofferError('invalid_request', 'fundRail: it says which rail `fund` moves on; send `fund` too, or leave fundRail out');
  }
  if (principal.kind === 'agent') {
    getAgentOrThrow(ctx, owner, principal.agentId);
    return requestApproval(ctx, principal, 'deploy', body.agentId, { ...body });
  }

  // The caller gets the new agent's key: lasting access, so a dashboard session must be fresh.
  if (options.issueKey !== false) requireFreshSignIn(principal, ctx.clock.now());
  // Funds asked for in the same step must be there, on their rail, before anything is created.
  const fund = body.fund === undefined ? null : parseAmount(body.fund, 'fund');
  const fundRail = body.fundRail ?? 'sol';
  if (fund !== null) {
    const available = treasuryFree(ctx, owner, fundRail, await treasuryReading(ctx, owner, fundRail));
    if (available < fund) {
      throw new CofferError(
        'insufficient_treasury_funds',
        `the treasury holds ${formatUsdc(available < 0n ? 0n : available)} USDC available on ${railName(fundRail)}, less than the ${formatUsdc(fund)} to fund the new agent with; nothing was created`,
      );
    }
  }
  // The wallet key goes to the key store before the agent row exists: a crash in between leaves an
  // unused key, never an agent without one.
  const walletAddress = await ctx.vault.createWallet({ kind: 'agent', treasury: owner });
  await fileBaseWallets(ctx, owner, [walletAddress]);
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
    refuseTakenAgentId(ctx, owner, body.agentId);
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
    agent: agentView(agent, ctx.store.railWallets('base', [walletAddress]).get(walletAddress) ?? null),
    ...(apiKey === null ? {} : { apiKey }),
    policy: policyView(policy),
    mcpConfig: mcpConfigFor(ctx, owner, agent.agentId, apiKey),
    ...(fund === null ? {} : { funding: await fundNewAgent(ctx, principal, agent.agentId, fund, fundRail) }),
  });
}

/**
 * The allocation asked for with a deploy. The agent (and its key, shown once) exists whatever happens
 * here, so a failure is answered beside it, never instead of it.
 */
async function fundNewAgent(ctx: EngineContext, principal: Principal, agentId: string, amount: bigint, rail: Rail): Promise<DeployFunding> {
  try {
    // Only the owner deploys with funds at once (an agent's deploy is funded when the owner approves it).
    const allocation = ownerResult(await allocate(ctx, principal, agentId, formatUsdc(amount), null, rail));
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
