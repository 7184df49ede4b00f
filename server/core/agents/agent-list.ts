import { requireAgentScope, requireOwner, type Principal } from '../auth.js';
import { type ContextWith, type EngineContext } from '../context.js';
import { dailyWindow } from '../../wire/policy/windows.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { formatUsdc, tryParseUsdc } from '../../wire/money.js';
import { promisedAway } from '../wallet-balance.js';
import type { Rail } from '../../wire/rails.js';
import type { AgentSpendTotals, AgentStore, MetaStore, RailWalletStore, SpendStore } from '../ports/store.js';
import type { Policy } from '../../wire/policy/policy.js';
import { agentView } from '../views.js';
import { railWalletsOf } from '../rails.js';
import { preferredRailOf } from '../settings.js';
import { baseReads, type BaseReads } from '../base-reads.js';
import { iso, policyView } from '../../wire/views.js';
import { tightestBudget } from '../policy/budget-usage.js';
import { yieldToWaitingRequests } from '../yield-turn.js';
import type { AgentList, AgentRow, Balance } from '../../wire/answers/agents.js';

/**
 * The owner's agents as the ledger has them, with no chain read: what must show even when the chain
 * cannot be reached (the desktop tray's brake).
 */
export function agentsAtRest(ctx: EngineContext, principal: Principal) {
  requireOwner(principal);
  const { owner } = principal;
  const totals = ctx.store.spendTotals(owner, dailyWindow(ctx.clock.now()).after);
  const policies = ctx.store.listPolicies(owner);
  const agents = ctx.store.listAgents(owner);
  const baseWallets = ctx.store.railWallets(
    'base',
    agents.map((agent) => agent.walletAddress),
  );
  return {
    agents: agents.map((agent) => ({
      ...agentView(agent, baseWallets.get(agent.walletAddress) ?? null),
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

export async function agentBalance(ctx: EngineContext, principal: Principal, agentId: string): Promise<Balance> {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  const wallets = railWalletsOf(ctx, agent.walletAddress);
  const onBase = await baseReads(ctx).balance(wallets.base);
  // What a return of "all of it" would move now, and what a payment may still take.
  const available = (held: bigint, rail: Rail) => {
    const free = held - promisedAway(ctx, agent, rail);
    return formatUsdc(free > 0n ? free : 0n);
  };
  // The spec's balance record, and whether the agent may pay at all: an agent reading its balance
  // learns it was stopped without having to try a payment.
  return {
    agentId,
    walletAddress: agent.walletAddress,
    balance: formatUsdc(balance),
    wallets,
    balances: { sol: formatUsdc(balance), base: onBase },
    available: { sol: available(balance, 'sol'), base: onBase === null ? null : available(tryParseUsdc(onBase) ?? 0n, 'base') },
    baseNetwork: ctx.base?.network ?? null,
    preferredRail: preferredRailOf(ctx),
    currency: 'USDC' as const,
    status: agent.status,
    // Why it stopped, when its breaker stopped it.
    ...(agent.status === 'suspended' && agent.statusReason !== null ? { statusReason: agent.statusReason } : {}),
  };
}

const ROWS_PER_TURN = 50;

/** Every agent of the owner in use, each with its balance on each rail, spending figures and policy; and their 24 h total. */
export async function agentRows(
  ctx: ContextWith<AgentStore & SpendStore & MetaStore & RailWalletStore>,
  owner: string,
  /** The answer's reads of Base (a page after one Base gave nothing for does not ask again). */
  base: BaseReads = baseReads(ctx),
): Promise<{ rows: AgentRow[]; spent24h: bigint; held24h: bigint }> {
  const agents = ctx.store.listAgents(owner);
  const since = dailyWindow(ctx.clock.now()).after;
  let spent24h = 0n;
  let held24h = 0n;
  const row = (
    agent: (typeof agents)[number],
    {
      balances,
      baseBalances,
      baseWallets,
      totals,
      policies,
    }: {
      balances: Map<string, bigint>;
      /** By Base account; null where Base's balances are unknown. */
      baseBalances: Map<string, bigint> | null;
      baseWallets: Map<string, string>;
      totals: Map<string, AgentSpendTotals>;
      policies: Map<string, Policy>;
    },
  ): AgentRow => {
    const spend = totals.get(agent.agentId);
    spent24h += spend?.spentSince ?? 0n;
    held24h += spend?.heldSince ?? 0n;
    const policy = policies.get(agent.agentId) ?? ctx.store.getPolicy(owner, agent.agentId);
    const account = baseWallets.get(agent.walletAddress) ?? null;
    const view = agentView(agent, account);
    const sol = formatUsdc(balances.get(agent.walletAddress) ?? 0n);
    // Written out rather than spread: a spread followed by more fields makes V8 build each row as a
    // dictionary (about 3 KB a row), which a dashboard of 1,000 agents pays in garbage collection.
    // Absent fields stay undefined, which JSON leaves out as the spread did.
    return {
      agentId: view.agentId,
      walletAddress: view.walletAddress,
      wallets: view.wallets,
      createdAt: view.createdAt,
      displayName: view.displayName,
      status: view.status,
      statusReason: view.statusReason,
      archivedAt: view.archivedAt,
      balance: sol,
      balances: { sol, base: account === null || baseBalances === null ? null : formatUsdc(baseBalances.get(account) ?? 0n) },
      spent24h: formatUsdc(spend?.spentSince ?? 0n),
      held24h: formatUsdc(spend?.heldSince ?? 0n),
      lifetimeSpent: formatUsdc(spend?.lifetimeSpent ?? 0n),
      lifetimePayments: spend?.lifetimePayments ?? 0,
      lastPaymentAt: spend?.lastPaymentAt ? iso(spend.lastPaymentAt) : null,
      policy: policyView(policy),
      // The budget nearest its limit (the row's bar) and whether it passed the first warning share (its mark).
      tightestBudget: tightestBudget(ctx, owner, agent.agentId, policy, spend?.spentSince ?? 0n),
    };
  };
  // A page of rows at a time, each page read and built in one turn (its balances on each rail, its
  // spending, its policies), letting payments in between: a large dashboard holds up an agent's
  // payment for one page at most, never for its whole length. Each rail's balances are one read a
  // page, the two at once.
  const rows: AgentRow[] = [];
  for (let start = 0; start < agents.length; start += ROWS_PER_TURN) {
    // Listing the agents is a turn of its own, and so is each page.
    await yieldToWaitingRequests();
    const page = agents.slice(start, start + ROWS_PER_TURN);
    const ids = page.map((agent) => agent.agentId);
    const wallets = page.map((agent) => agent.walletAddress);
    const baseWallets = ctx.store.railWallets('base', wallets);
    const [balances, baseBalances] = await Promise.all([ctx.chain.usdcBalances(wallets), base.balances([...baseWallets.values()])]);
    const read = {
      balances,
      baseBalances,
      baseWallets,
      totals: ctx.store.spendTotals(owner, since, ids),
      policies: ctx.store.listPolicies(owner, ids),
    };
    for (const agent of page) rows.push(row(agent, read));
  }
  return { rows, spent24h, held24h };
}

/** Every agent of the owner with its balance on each rail, 24 h spending, lifetime figures and policy. */
export async function listAgents(
  ctx: ContextWith<AgentStore & SpendStore & MetaStore & RailWalletStore>,
  principal: Principal,
): Promise<AgentList> {
  requireOwner(principal);
  return { agents: (await agentRows(ctx, principal.owner)).rows };
}
