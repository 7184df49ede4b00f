import { railWalletsOf } from '../rails.js';
import { baseReads } from '../base-reads.js';
import { requireOwner, type Principal } from '../auth.js';
import { type ContextWith } from '../context.js';
import { dailyWindow } from '../../wire/policy/windows.js';
import { approvedAtOf } from '../payments/held-approved.js';
import type {
  AgentStore,
  MetaStore,
  TransferStore,
  RefusalStore,
  RegistryStore,
  SpendStore,
  RailWalletStore,
  ApprovalStore,
} from '../ports/store.js';
import { agentRows } from './agent-list.js';
import { statusOf } from '../backup/status.js';
import { USDC_DECIMALS, formatUsdc } from '../../wire/money.js';
import { activityView, agentView, refusalView } from '../views.js';
import { yieldToWaitingRequests } from '../yield-turn.js';
import type { Dashboard } from '../../wire/answers/dashboard.js';

export const RECENT_ACTIVITY_LIMIT = 20;
const RECENT_REFUSALS_LIMIT = 20;

/** What the overview reads: agents and their spending, recent payments and refusals, service names. */
type DashboardStore = AgentStore & SpendStore & TransferStore & RefusalStore & RegistryStore & MetaStore & RailWalletStore & ApprovalStore;

export async function dashboard(ctx: ContextWith<DashboardStore>, principal: Principal): Promise<Dashboard> {
  requireOwner(principal);
  // One answer's reads of Base: a node that did not answer once is not waited on again.
  const base = baseReads(ctx);
  const { rows, spent24h, held24h } = await agentRows(ctx, principal.owner, base);
  // The rest (the treasury, archived agents, recent payments and refusals) on a turn of its own.
  await yieldToWaitingRequests();
  const treasuryAmount = await ctx.chain.usdcBalance(principal.owner);
  const treasuryWallets = railWalletsOf(ctx, principal.owner);
  const archived = ctx.store.listArchivedAgents(principal.owner);
  // The day's total is what the agents spent in it, an agent archived since (no row of its own) too;
  // one archived while the rows were read has a row already, and is counted once.
  const listed = new Set(rows.map((row) => row.agentId));
  const unlisted = archived.filter((agent) => !listed.has(agent.agentId)).map((agent) => agent.agentId);
  let [spentToday, heldToday] = [spent24h, held24h];
  if (unlisted.length > 0) {
    for (const totals of ctx.store.spendTotals(principal.owner, dailyWindow(ctx.clock.now()).after, unlisted).values()) {
      spentToday += totals.spentSince;
      heldToday += totals.heldSince;
    }
  }
  const archivedBalances = await ctx.chain.usdcBalances(archived.map((agent) => agent.walletAddress));
  const archivedBaseWallets = ctx.store.railWallets(
    'base',
    archived.map((agent) => agent.walletAddress),
  );
  const [archivedBaseBalances, treasuryOnBase, baseGas] = await Promise.all([
    base.balances([...archivedBaseWallets.values()]),
    base.balance(treasuryWallets.base),
    base.gas(treasuryWallets.base),
  ]);
  return {
    treasury: {
      walletAddress: principal.owner,
      wallets: treasuryWallets,
      balances: { sol: formatUsdc(treasuryAmount), base: treasuryOnBase },
      baseGas,
      baseNetwork: ctx.base?.network ?? null,
      amount: treasuryAmount.toString(),
      currency: 'USDC' as const,
      decimals: USDC_DECIMALS,
      network: ctx.chain.network,
      balance: formatUsdc(treasuryAmount),
    },
    spent24h: formatUsdc(spentToday),
    held24h: formatUsdc(heldToday),
    /** Whether the recovery phrase was written down: until it is, the dashboard says "not backed up". */
    backup: statusOf(ctx, principal.owner),
    agents: rows,
    recentActivity: ctx.store
      .recentPayments(principal.owner, RECENT_ACTIVITY_LIMIT)
      .map((payment) => activityView(payment, approvedAtOf(ctx, payment))),
    /**
     * Agents archived (stopped for good, keys revoked): their pages keep their history. An archive
     * empties the wallet on each rail, but USDC can still arrive from outside: the balances show it,
     * to return (Base's null where the rail is off or its node did not answer).
     */
    archivedAgents: archived.map((agent) => {
      const account = archivedBaseWallets.get(agent.walletAddress) ?? null;
      const sol = formatUsdc(archivedBalances.get(agent.walletAddress) ?? 0n);
      const base = account === null || archivedBaseBalances === null ? null : formatUsdc(archivedBaseBalances.get(account) ?? 0n);
      return { ...agentView(agent, account), balance: sol, balances: { sol, base } };
    }),
    /** Payments the policy refused, newest first: what agents tried and were not allowed. */
    recentRefusals: ctx.store
      .recentRefusals(principal.owner, RECENT_REFUSALS_LIMIT)
      .map((refusal) => refusalView(refusal, ctx.store.getService(refusal.service)?.name ?? null)),
  };
}
