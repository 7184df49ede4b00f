import { isCofferError } from '../../wire/errors.js';
import { allocate, pendingAllocationUnder } from '../treasury/allocations.js';
import type { EngineContext } from '../context.js';
import type { Principal } from '../auth.js';
import { ownerResult } from '../outcome.js';
import { formatUsdc } from '../../wire/money.js';
import type { Policy } from '../../wire/policy/policy.js';
import type { AgentRecord } from '../ports/store.js';
import { agentView } from '../views.js';
import { policyView } from '../../wire/views.js';
import { mcpConfigFor } from './keys.js';
import type { DeployFunding, Deployed } from '../../wire/answers/agents.js';
import type { Rail } from '../../wire/rails.js';

/** The funds a deploy asks to move to the new agent, and the Idempotency-Key its allocation carries (null: none). */
export interface DeployFund {
  amount: bigint;
  rail: Rail;
  key: string | null;
}

/** What a deploy answers: the agent, its key (where one is handed out), its policy, and its funds moved. */
export async function deployedAnswer(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  apiKey: string | null,
  policy: Policy,
  fund: DeployFund | null,
): Promise<Deployed> {
  return {
    agent: agentView(agent, ctx.store.railWallets('base', [agent.walletAddress]).get(agent.walletAddress) ?? null),
    ...(apiKey === null ? {} : { apiKey }),
    policy: policyView(policy),
    mcpConfig: mcpConfigFor(ctx, principal.owner, agent.agentId, apiKey),
    ...(fund === null ? {} : { funding: await fundNewAgent(ctx, principal, agent, fund) }),
  };
}

/**
 * The allocation asked for with a deploy. The agent (and its key, shown once) exists whatever happens
 * here, so a failure is answered beside it, never instead of it. A deploy asked again whose allocation
 * still waits for the chain answers that allocation, as the first attempt did: "failed" would have its
 * caller fund the agent again.
 */
async function fundNewAgent(ctx: EngineContext, principal: Principal, agent: AgentRecord, fund: DeployFund): Promise<DeployFunding> {
  try {
    // Only the owner deploys with funds at once (an agent's deploy is funded when the owner approves it).
    const allocation = ownerResult(await allocate(ctx, principal, agent.agentId, formatUsdc(fund.amount), fund.key, fund.rail));
    return { status: 'funded' as const, allocation };
  } catch (error) {
    const waiting = fund.key === null ? null : await pendingAllocationUnder(ctx, agent, fund.key);
    if (waiting !== null) return { status: 'funded' as const, allocation: waiting };
    const code = isCofferError(error) ? error.code : 'internal';
    return {
      status: 'failed' as const,
      code,
      error: isCofferError(error) ? error.message : 'the allocation failed; fund the agent from its page',
    };
  }
}
