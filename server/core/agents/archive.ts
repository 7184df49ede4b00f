import { CofferError } from '../../wire/errors.js';
import { actorOf, requireOwner, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { withdrawRequestsOf } from '../approvals/requests.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { formatUsdc } from '../../wire/money.js';
import { iso } from '../../wire/views.js';
import { openBase, railWalletsOf } from '../rails.js';
import type { Archived } from '../../wire/answers/agents.js';
import { RAILS, type Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';

/**
 * Archives an agent: stopped for good, every key of it revoked at once, its pending requests
 * withdrawn; its payments, allocations and audit stay, and its id stays taken. Its wallet must be
 * empty first, on each rail (return its USDC to the treasury; a rail that is off here and funded it
 * once must be opened first), with nothing on its way in or out, so no money is left where nobody
 * looks; after it, allocations to it and payments to its wallet are refused and its refunds stay in
 * the treasury.
 * Idempotent: archiving an archived agent answers when it was archived.
 */
export async function archiveAgent(ctx: EngineContext, principal: Principal, agentId: string): Promise<Archived> {
  requireOwner(principal);
  const { owner } = principal;
  const agent = getAgentOrThrow(ctx, owner, agentId);
  if (agent.archivedAt !== null) return { agentId, status: 'archived' as const, archivedAt: iso(agent.archivedAt) };
  // The balance is read before the commit that archives: money on its way in when it is read, or
  // reserved between the read and the commit, would land unseen in an archived wallet.
  const wallets = railWalletsOf(ctx, agent.walletAddress);
  // Before any balance is judged: the dashboard asks this archive first where the rail is off, and
  // returns the Solana funds only once it was refused for them alone (agent_has_funds).
  refuseUnreadBase(ctx, owner, agentId, wallets.base);
  const movingIn = ctx.store.watchMovesInto(owner, agentId, [wallets.sol, ...(wallets.base === null ? [] : [wallets.base])]);
  refuseMovesIn(movingIn(), agentId);
  const onSolana = await ctx.chain.usdcBalance(agent.walletAddress);
  const onBase = await baseBalanceToArchive(ctx, wallets.base, agentId);
  return ctx.store.transaction(() => {
    refuseMovesIn(movingIn(), agentId);
    // What the wallet holds is judged less what it promised away: money a pending payment or return
    // may still take cannot be returned, and asking for its return would be a dead end. Unlike a
    // payment's or a return's judgement (wallet-balance.ts), nothing confirmed leaving since the read
    // is taken off: an outflow that landed before the read and was confirmed after it would be taken
    // off twice, and money left in the wallet judged as none (test/unit/.../archive-race.test.ts).
    // So the archive goes ahead only with nothing pending and a read of nothing, as it always did.
    const outgoing = { sol: outgoingOn(ctx, owner, agentId, 'sol'), base: outgoingOn(ctx, owner, agentId, 'base') };
    const free = { sol: freeOf(onSolana, outgoing.sol), base: freeOf(onBase, outgoing.base) };
    if (free.sol > 0n || free.base > 0n) throw stillHolds(agentId, free, outgoing);
    const waiting = stillOutgoing(outgoing);
    if (waiting !== null) {
      throw new CofferError('agent_has_funds', `agent "${agentId}" has ${waiting}: archive it once they settle or fail`);
    }
    const now = ctx.clock.now();
    if (!ctx.store.archiveAgent(owner, agentId, now)) throw new CofferError('agent_archived', `agent "${agentId}" was archived meanwhile`);
    ctx.store.revokeApiKeys({ kind: 'agent', owner, agentId }, { reason: 'archived', at: now });
    withdrawRequestsOf(ctx, owner, agentId, actorOf(principal));
    audit(ctx, { actor: actorOf(principal), owner, agentId, action: 'agent.archive', detail: { walletAddress: agent.walletAddress } });
    ctx.events.emit({ type: 'agent', owner, agentId, status: 'archived' });
    return { agentId, status: 'archived' as const, archivedAt: iso(now) };
  });
}

/**
 * What the agent's Base account holds, where the Base rail is open (its account is filed all the
 * same where it is off, and nothing there can be read). A node that does not answer refuses the
 * archive: an account not read may hold money that nobody would look for again.
 */
async function baseBalanceToArchive(ctx: EngineContext, account: string | null, agentId: string): Promise<bigint> {
  const base = openBase(ctx);
  if (base === null || account === null) return 0n;
  try {
    return await base.usdcBalance(account);
  } catch (error) {
    throw new CofferError(
      'chain_unavailable',
      `the Base rail's node did not answer what agent "${agentId}" holds there (${(error as Error).message}); archive it once it does`,
    );
  }
}

/**
 * Where the Base rail is off, the agent's Base account cannot be read. One the ledger ever funded
 * (even given back since: outside deposits are not in the ledger either) may hold USDC nobody would
 * look for again once the agent is archived, so the archive waits for the rail. An account the
 * ledger never moved USDC into is archived as before.
 */
function refuseUnreadBase(ctx: EngineContext, owner: string, agentId: string, account: string | null): void {
  if (openBase(ctx) !== null || account === null || !ctx.store.hasMovedInto(owner, agentId, 'base', account)) return;
  throw new CofferError(
    'rail_unavailable',
    `agent "${agentId}" took USDC on Base, and the Base rail is off here, so what its account there holds cannot be read: open the Base rail, return what it holds, then archive`,
  );
}

/** What the wallet has on its way out on a rail: payments and a return to the treasury, still pending. */
interface Outgoing {
  payments: bigint;
  returns: bigint;
}

function outgoingOn(ctx: EngineContext, owner: string, agentId: string, rail: Rail): Outgoing {
  return { payments: ctx.store.pendingPaymentsTotal(owner, agentId, rail), returns: ctx.store.pendingReturnsTotal(owner, agentId, rail) };
}

/** What a balance read holds beyond what is promised away (never below nothing). */
const freeOf = (held: bigint, outgoing: Outgoing): bigint => {
  const free = held - outgoing.payments - outgoing.returns;
  return free > 0n ? free : 0n;
};

/** Each rail's outgoing money in words ("0.01 USDC on Base promised to payments still pending"), or null for none. */
function stillOutgoing(outgoing: Record<Rail, Outgoing>): string | null {
  const words = RAILS.flatMap((rail) => [
    ...(outgoing[rail].payments > 0n
      ? [`${formatUsdc(outgoing[rail].payments)} USDC on ${railName(rail)} promised to payments still pending`]
      : []),
    ...(outgoing[rail].returns > 0n
      ? [`${formatUsdc(outgoing[rail].returns)} USDC on ${railName(rail)} on its way back to the treasury`]
      : []),
  ]);
  return words.length === 0 ? null : words.join(' and ');
}

/** What the wallet holds free, on each rail that holds some, and how it goes back (each door says it in its own words too). */
function stillHolds(agentId: string, free: Record<Rail, bigint>, outgoing: Record<Rail, Outgoing>): CofferError {
  const held = RAILS.filter((rail) => free[rail] > 0n).map((rail) => `${formatUsdc(free[rail])} USDC on ${railName(rail)}`);
  const promised = stillOutgoing(outgoing);
  const how = free.base > 0n ? `, with rail "base" for Base's` : '';
  return new CofferError(
    'agent_has_funds',
    `agent "${agentId}" still holds ${held.join(' and ')}${promised === null ? '' : ` (and has ${promised})`}: return it to the treasury first (POST /v1/agents/${agentId}/return${how})`,
  );
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
