import { CofferError, isCofferError } from './errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, requireOwner, type Principal } from './auth.js';
import { requestApproval } from './approval-requests.js';
import { done } from './outcome.js';
import { DAY_MS, type EngineContext } from './context.js';
import { getAgentOrThrow, refuseArchived } from './agent-lookup.js';
import { hashRequest, newId } from './ids.js';
import { formatUsdc, parseAmount } from './money.js';
import { NOT_SENT, UNSENT, neverSent, outcomeOfRace, replayOutcome, sendReserved } from './transfers.js';
import type { AgentRecord, AllocationRecord } from './ports/store.js';

/**
 * Moves USDC from the owner's treasury to an agent's wallet, on chain. Funding an agent loosens what
 * it can spend, so an agent's own request waits for the owner's approval. Reserved like a payment, so
 * concurrent allocations cannot overdraw; the same Idempotency-Key within 24 h moves money once and
 * answers the first result (a client whose answer was lost can ask again).
 */
export async function allocate(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  amountText: string,
  idempotencyKey: string | null = null,
) {
  requireAgentScope(principal, agentId);
  const { owner } = principal;
  const amount = parseAmount(amountText);
  const agent = getAgentOrThrow(ctx, owner, agentId);
  // An agent funding itself loosens what it can spend: it waits for the owner.
  if (principal.kind === 'agent') {
    refuseArchived(agent);
    return requestApproval(ctx, principal, 'allocate', agentId, { amount: formatUsdc(amount) });
  }
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  return done(await allocateNow(ctx, principal, agent, amount, idempotencyKey));
}

/** The owner's allocation, carried out now. */
async function allocateNow(ctx: EngineContext, principal: Principal, agent: AgentRecord, amount: bigint, idempotencyKey: string | null) {
  const { owner } = principal;
  const { agentId } = agent;
  const requestHash = hashRequest(['allocate', amount.toString()]);
  if (idempotencyKey !== null) {
    const first = ctx.store.findAllocationByIdempotencyKey(owner, agentId, idempotencyKey, ctx.clock.now() - DAY_MS);
    const outcome = first ? await replay(ctx, first, requestHash, agent) : NOT_SENT;
    if (outcome !== NOT_SENT) return outcome;
  }
  // After the replay: a retry answers its first result whatever happened since, an archive included
  // (the client must learn that its money moved); only a new allocation is refused.
  refuseArchived(agent);
  const treasuryBalance = await ctx.chain.usdcBalance(owner);

  const reserved = ctx.store.transaction((): AllocationRecord | { replayOf: AllocationRecord } => {
    const now = ctx.clock.now();
    if (idempotencyKey !== null) {
      const first = ctx.store.findAllocationByIdempotencyKey(owner, agentId, idempotencyKey, now - DAY_MS);
      if (first && !neverSent(first)) return { replayOf: first };
    }
    // Again in the commit that reserves: the archive may have committed while the balance was read.
    refuseArchived(getAgentOrThrow(ctx, owner, agentId));
    const available = treasuryBalance - ctx.store.pendingAllocationsTotal(owner);
    if (available < amount) {
      throw new CofferError(
        'insufficient_treasury_funds',
        `the treasury holds ${formatUsdc(available < 0n ? 0n : available)} USDC available, less than ${formatUsdc(amount)}`,
      );
    }
    const record = newMove({ owner, agentId, amount, idempotencyKey, requestHash, createdAt: now, direction: 'to_agent' });
    ctx.store.insertAllocation(record);
    return record;
  });
  if ('replayOf' in reserved) return outcomeOfRace(replay(ctx, reserved.replayOf, requestHash, agent), 'allocation');

  try {
    await sendReserved(
      ctx,
      {
        kind: 'allocation',
        id: reserved.id,
        owner,
        agentId,
        actor: actorOf(principal),
        detail: { amount: formatUsdc(amount) },
      },
      () =>
        ctx.chain.prepareTransfer({
          from: owner,
          to: agent.walletAddress,
          amount,
          memo: `coffer allocation ${reserved.id}`,
          reference: reserved.id,
          feePayer: owner,
          createRecipientAccount: true,
        }),
    );
  } catch (error) {
    if (isCofferError(error) && error.code === 'insufficient_funds') {
      throw new CofferError('insufficient_treasury_funds', 'the treasury does not hold enough USDC for this allocation');
    }
    throw error;
  }
  return allocationResult(ctx, ctx.store.getAllocation(reserved.id) ?? reserved, agent);
}

/** What an allocation or a return answers: what moved, its transaction, and the wallet's balance after. */
async function moved(ctx: EngineContext, record: AllocationRecord, agent: AgentRecord) {
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  return {
    amount: formatUsdc(record.amount),
    currency: 'USDC' as const,
    txSignature: record.txSignature ?? '',
    balance: formatUsdc(balance),
  };
}

const allocationResult = async (ctx: EngineContext, allocation: AllocationRecord, agent: AgentRecord) => ({
  agentId: allocation.agentId,
  allocationId: allocation.id,
  ...(await moved(ctx, allocation, agent)),
});

const returnResult = async (ctx: EngineContext, record: AllocationRecord, agent: AgentRecord) => ({
  agentId: record.agentId,
  returnId: record.id,
  ...(await moved(ctx, record, agent)),
});

/** Words and codes of each direction, for a replay. */
const DIRECTIONS = {
  to_agent: { what: 'allocation', other: 'return', lackOfFunds: 'insufficient_treasury_funds' },
  to_treasury: { what: 'return', other: 'allocation', lackOfFunds: 'insufficient_funds' },
} as const;

/**
 * The first allocation or return under an Idempotency-Key, settled, to answer again (or NOT_SENT: it
 * never reached the chain). A key used for the other direction is refused.
 */
async function replayMove(ctx: EngineContext, first: AllocationRecord, requestHash: string, direction: AllocationRecord['direction']) {
  const { what, other, lackOfFunds } = DIRECTIONS[direction];
  if (first.direction !== direction)
    throw new CofferError(
      'idempotency_key_reused',
      `this Idempotency-Key was already used for ${other === 'allocation' ? 'an' : 'a'} ${other}`,
    );
  const settled = await replayOutcome(ctx, first, requestHash, (id) => ctx.store.getAllocation(id), what);
  if (settled === NOT_SENT) return NOT_SENT;
  if (settled.status === 'failed') {
    throw new CofferError(
      settled.errorCode === 'insufficient_funds' ? lackOfFunds : 'chain_rejected',
      `the ${what} made with this Idempotency-Key failed (${settled.errorCode ?? 'unknown'}); no money moved`,
    );
  }
  return settled;
}

async function replay(ctx: EngineContext, first: AllocationRecord, requestHash: string, agent: AgentRecord) {
  const settled = await replayMove(ctx, first, requestHash, 'to_agent');
  return settled === NOT_SENT ? NOT_SENT : allocationResult(ctx, settled, agent);
}

/**
 * Gives an agent's USDC back to the treasury, on chain: the whole available balance (what pending
 * payments and returns have not promised away), or `amountText`. Owner only; a stopped agent too
 * (that is when it is most wanted). Reserved like a payment, so a payment racing it cannot spend the
 * same money; the same Idempotency-Key within 24 h moves money once.
 */
export async function returnFunds(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  amountText: string | null,
  idempotencyKey: string | null = null,
) {
  requireOwner(principal);
  const { owner } = principal;
  const asked = amountText === null ? null : parseAmount(amountText);
  const agent = getAgentOrThrow(ctx, owner, agentId);
  const requestHash = hashRequest(['return', asked?.toString() ?? 'all']);
  if (idempotencyKey !== null) {
    const first = ctx.store.findAllocationByIdempotencyKey(owner, agentId, idempotencyKey, ctx.clock.now() - DAY_MS);
    const outcome = first ? await replayReturn(ctx, first, requestHash, agent) : NOT_SENT;
    if (outcome !== NOT_SENT) return outcome;
  }
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);

  const reserved = ctx.store.transaction((): AllocationRecord | { replayOf: AllocationRecord } => {
    const now = ctx.clock.now();
    if (idempotencyKey !== null) {
      const first = ctx.store.findAllocationByIdempotencyKey(owner, agentId, idempotencyKey, now - DAY_MS);
      if (first && !neverSent(first)) return { replayOf: first };
    }
    const available = balance - ctx.store.pendingPaymentsTotal(owner, agentId) - ctx.store.pendingReturnsTotal(owner, agentId);
    const amount = asked ?? available;
    if (amount <= 0n || available < amount) {
      throw new CofferError(
        'insufficient_funds',
        available <= 0n
          ? `the agent's wallet holds nothing to return (${formatUsdc(available < 0n ? 0n : available)} USDC available)`
          : `the agent's wallet holds ${formatUsdc(available)} USDC available, less than ${formatUsdc(amount)}`,
      );
    }
    const record = newMove({ owner, agentId, amount, idempotencyKey, requestHash, createdAt: now, direction: 'to_treasury' });
    ctx.store.insertAllocation(record);
    return record;
  });
  if ('replayOf' in reserved) return outcomeOfRace(replayReturn(ctx, reserved.replayOf, requestHash, agent), 'return');

  await sendReserved(
    ctx,
    { kind: 'return', id: reserved.id, owner, agentId, actor: actorOf(principal), detail: { amount: formatUsdc(reserved.amount) } },
    () =>
      ctx.chain.prepareTransfer({
        from: agent.walletAddress,
        to: owner,
        amount: reserved.amount,
        memo: `coffer return ${reserved.id}`,
        reference: reserved.id,
        feePayer: owner,
        createRecipientAccount: false,
      }),
  );
  return returnResult(ctx, ctx.store.getAllocation(reserved.id) ?? reserved, agent);
}

async function replayReturn(ctx: EngineContext, first: AllocationRecord, requestHash: string, agent: AgentRecord) {
  const settled = await replayMove(ctx, first, requestHash, 'to_treasury');
  return settled === NOT_SENT ? NOT_SENT : returnResult(ctx, settled, agent);
}

/** A move between the treasury and an agent's wallet, reserved and not yet sent. */
const newMove = (move: Omit<AllocationRecord, 'id' | keyof typeof UNSENT>): AllocationRecord => ({ id: newId('alc'), ...UNSENT, ...move });
