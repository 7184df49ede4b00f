import { requireOwner, type Principal } from './auth.js';
import { DAY_MS, type EngineContext } from './context.js';
import { USDC_DECIMALS, formatUsdc } from './money.js';
import { activityView, agentView, iso, policyView, refusalView } from './views.js';

export const RECENT_ACTIVITY_LIMIT = 20;
const RECENT_REFUSALS_LIMIT = 20;
const ROWS_PER_TURN = 200;

async function agentRows(ctx: EngineContext, owner: string) {
  const agents = ctx.store.listAgents(owner);
  const balances = await ctx.chain.usdcBalances(agents.map((agent) => agent.walletAddress));
  const totals = ctx.store.spendTotals(owner, ctx.clock.now() - DAY_MS);
  const policies = ctx.store.listPolicies(owner);
  let spent24h = 0n;
  const row = (agent: (typeof agents)[number]) => {
    const spend = totals.get(agent.agentId);
    spent24h += spend?.spentSince ?? 0n;
    return {
      ...agentView(agent),
      balance: formatUsdc(balances.get(agent.walletAddress) ?? 0n),
      spent24h: formatUsdc(spend?.spentSince ?? 0n),
      lifetimeSpent: formatUsdc(spend?.lifetimeSpent ?? 0n),
      lifetimePayments: spend?.lifetimePayments ?? 0,
      lastPaymentAt: spend?.lastPaymentAt ? iso(spend.lastPaymentAt) : null,
      policy: policyView(policies.get(agent.agentId) ?? ctx.store.getPolicy(owner, agent.agentId)),
    };
  };
  // Built a few hundred rows at a time, letting payments in between: a large dashboard must not hold
  // up an agent's payment for its whole length.
  const rows: ReturnType<typeof row>[] = [];
  for (let start = 0; start < agents.length; start += ROWS_PER_TURN) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const agent of agents.slice(start, start + ROWS_PER_TURN)) rows.push(row(agent));
  }
  return { rows, spent24h };
}

/** Every agent of the owner with its balance, 24 h spending, lifetime figures and policy. */
export async function listAgents(ctx: EngineContext, principal: Principal) {
  requireOwner(principal);
  return { agents: (await agentRows(ctx, principal.owner)).rows };
}

export async function dashboard(ctx: EngineContext, principal: Principal) {
  requireOwner(principal);
  const { rows, spent24h } = await agentRows(ctx, principal.owner);
  const treasuryAmount = await ctx.chain.usdcBalance(principal.owner);
  return {
    treasury: {
      walletAddress: principal.owner,
      amount: treasuryAmount.toString(),
      currency: 'USDC' as const,
      decimals: USDC_DECIMALS,
      network: ctx.chain.network,
      balance: formatUsdc(treasuryAmount),
    },
    spent24h: formatUsdc(spent24h),
    agents: rows,
    recentActivity: ctx.store.recentPayments(principal.owner, RECENT_ACTIVITY_LIMIT).map(activityView),
    /** Payments the policy refused, newest first: what agents tried and were not allowed. */
    /** Agents archived (stopped for good, keys revoked): their pages keep their history. */
    archivedAgents: ctx.store.listArchivedAgents(principal.owner).map(agentView),
    recentRefusals: ctx.store
      .recentRefusals(principal.owner, RECENT_REFUSALS_LIMIT)
      .map((refusal) => refusalView(refusal, ctx.store.getService(refusal.service)?.name ?? null)),
  };
}
