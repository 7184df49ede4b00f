import { CofferError } from '../../wire/errors.js';
import { faucetWords, treasuryFree, treasuryReading } from '../treasury/allocations.js';
import { actorOf, requireFreshSignIn, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { requestApproval } from '../approvals/requests.js';
import { getAgentOrThrow, refuseTakenAgentId } from '../agent-lookup.js';
import { done, type Outcome } from '../outcome.js';
import { formatUsdc, parseAmount } from '../../wire/money.js';
import { assertAskWithinMax } from '../../wire/policy/asks.js';
import { assertKnownServices } from '../policy/rules.js';
import { newPolicy } from '../../wire/policy/policy.js';
import type { AgentRecord, DeployKey } from '../ports/store.js';
import type { DeployBody } from '../../wire/schemas.js';
import { policyView } from '../../wire/views.js';
import { policyClock, isKnownService, assertPayableScopes } from '../policy/update.js';
import { nearServiceIds } from '../registry/registry.js';
import { issueAgentKey } from './keys.js';
import type { Deployed } from '../../wire/answers/agents.js';
import { fileBaseWallets } from '../rails.js';
import { railName } from '../../wire/rail-words.js';
import { deployedAnswer, type DeployFund } from './deployed-answer.js';
import { deployKeyOf, earlierDeploy, finishDeploy, fundingKeyOf } from './deploy-retry.js';

/**
 * Deploys an agent: a wallet, a policy, an API key. An agent asking for another agent loosens what can
 * be spent, so its request waits for the owner's approval (then the key is collected with the
 * approval, see readApproval); `issueKey: false` deploys without a key for that path. The owner's
 * deploy under an `idempotencyKey` is finished, not refused, when asked again (deploy-retry.ts).
 */
export async function deployAgent(
  ctx: EngineContext,
  principal: Principal,
  body: DeployBody,
  options: { issueKey?: boolean; idempotencyKey?: string | null } = {},
): Promise<Outcome<Deployed>> {
  const { owner } = principal;
  const issueKey = options.issueKey !== false;
  const deployKey =
    principal.kind === 'owner' && issueKey && options.idempotencyKey != null ? deployKeyOf(options.idempotencyKey, body) : null;
  // Before anything else is judged: a retry answers what its first attempt was asked, whatever changed since.
  const earlier = deployKey === null ? null : earlierDeploy(ctx, owner, body.agentId, deployKey);
  const lostAnswer = principal.kind === 'owner' && issueKey ? lostAnswerWords(body.agentId) : undefined;
  if (earlier === null) refuseTakenAgentId(ctx, owner, body.agentId, lostAnswer);
  const fund = fundAsked(body, deployKey);
  if (earlier !== null) {
    requireFreshSignIn(principal, ctx.clock.now());
    return done(await finishDeploy(ctx, principal, earlier, fund));
  }
  const policy = newPolicy(body, policyClock(ctx));
  assertKnownServices(
    policy.allowedServices,
    (entry) => isKnownService(ctx, entry),
    (typed) => nearServiceIds(ctx, typed),
  );
  assertPayableScopes(ctx, policy.budgets);
  assertAskWithinMax(policy);
  if (principal.kind === 'agent') {
    getAgentOrThrow(ctx, owner, principal.agentId);
    return requestApproval(ctx, principal, 'deploy', body.agentId, { ...body });
  }

  // The caller gets the new agent's key: lasting access, so a dashboard session must be fresh.
  if (issueKey) requireFreshSignIn(principal, ctx.clock.now());
  // Funds asked for in the same step must be there, on their rail, before anything is created.
  if (fund !== null) {
    const available = treasuryFree(ctx, owner, fund.rail, await treasuryReading(ctx, owner, fund.rail));
    if (available < fund.amount) {
      throw new CofferError(
        'insufficient_treasury_funds',
        `the treasury holds ${formatUsdc(available < 0n ? 0n : available)} USDC available on ${railName(fund.rail)}, less than the ${formatUsdc(fund.amount)} to fund the new agent with; nothing was created${faucetWords(ctx, fund.rail)}`,
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
    // Another request under the same key wrote it while this one made its wallet: that deploy is finished below.
    if (deployKey !== null && earlierDeploy(ctx, owner, body.agentId, deployKey) !== null) return undefined;
    refuseTakenAgentId(ctx, owner, body.agentId, lostAnswer);
    ctx.store.insertAgent(agent, policy, deployKey);
    const key = issueKey ? issueAgentKey(ctx, owner, agent.agentId) : null;
    audit(ctx, {
      actor: actorOf(principal),
      owner,
      agentId: agent.agentId,
      action: 'agent.deploy',
      detail: { walletAddress, policy: policyView(policy) },
    });
    return key;
  });
  if (apiKey === undefined) return done(await finishDeploy(ctx, principal, ctx.store.getAgent(owner, body.agentId)!, fund));
  ctx.events.emit({ type: 'agent', owner, agentId: agent.agentId, status: 'deployed' });
  return done(await deployedAnswer(ctx, principal, agent, apiKey, policy, fund));
}

/** Said to the owner where a deploy's id is taken: a deploy whose answer was lost is finished by other means. */
const lostAnswerWords = (agentId: string) =>
  `if its deploy was never answered, coffer key ${agentId} hands out a new key and coffer allocate ${agentId} AMOUNT funds it (a deploy sent with an Idempotency-Key is finished by sending it again within the day)`;

/** The funds a deploy asks to move to the new agent, on their rail, under the deploy's key. */
function fundAsked(body: DeployBody, deployKey: DeployKey | null): DeployFund | null {
  if (body.fund === undefined && body.fundRail !== undefined) {
    throw new CofferError('invalid_request', 'fundRail: it says which rail `fund` moves on; send `fund` too, or leave fundRail out');
  }
  if (body.fund === undefined) return null;
  return { amount: parseAmount(body.fund, 'fund'), rail: body.fundRail ?? 'sol', key: fundingKeyOf(deployKey) };
}
