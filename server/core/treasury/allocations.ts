import { CofferError, isCofferError, refuse, type Refusal } from '../../wire/errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { requestApproval } from '../approvals/requests.js';
import { done, type Outcome } from '../outcome.js';
import { DAY_MS, type EngineContext } from '../context.js';
import { archivedRefusal, getAgentOrThrow } from '../agent-lookup.js';
import { hashRequest, newId } from '../ids.js';
import { formatUsdc, parseAmount } from '../../wire/money.js';
import { earlierAttempt, moveMoney, reservedWith, type SignedTransfer } from '../transfers/lifecycle.js';
import type { AgentRecord, AllocationRecord } from '../ports/store.js';
import type { Allocation, Returned } from '../../wire/answers/treasury.js';
import type { Rail } from '../../wire/rails.js';
import { faucetAction } from '../../wire/network-words.js';
import { railName } from '../../wire/rail-words.js';
import { addressOn, chainOf } from '../rails.js';
import { freeBalance, freshReading } from '../wallet-balance.js';

/**
 * Moves USDC from the owner's treasury to an agent's wallet, on chain, on one rail (the treasury's
 * and the agent's wallets on it). Funding an agent loosens what it can spend, so an agent's own
 * request waits for the owner's approval. Reserved like a payment, so concurrent allocations cannot
 * overdraw the treasury on that rail; the same Idempotency-Key within 24 h moves money once and
 * answers the first result (a client whose answer was lost can ask again).
 */
export async function allocate(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  amountText: string,
  idempotencyKey: string | null = null,
  rail: Rail = 'sol',
): Promise<Outcome<Allocation>> {
  requireAgentScope(principal, agentId);
  const { owner } = principal;
  const amount = parseAmount(amountText);
  const agent = getAgentOrThrow(ctx, owner, agentId);
  // An agent funding itself loosens what it can spend: it waits for the owner.
  if (principal.kind === 'agent') {
    refuse(archivedRefusal(agent));
    return requestApproval(ctx, principal, 'allocate', agentId, { amount: formatUsdc(amount), ...(rail === 'sol' ? {} : { rail }) });
  }
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  return done(await allocateNow(ctx, principal, agent, amount, idempotencyKey, rail));
}

/** The owner's allocation, carried out now. */
async function allocateNow(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  amount: bigint,
  idempotencyKey: string | null,
  rail: Rail,
): Promise<Allocation> {
  const { owner } = principal;
  const key = keyOf('allocation', agent, idempotencyKey, ['allocate', amount.toString(), ...railOfRequest(rail)]);
  const earlier = key === null ? null : await earlierAttempt(ctx, owner, key, 'coffer');
  if (earlier !== null) return allocationResult(ctx, answerEarlier(earlier), agent);
  // After the earlier attempt: a retry answers its first result whatever happened since, an archive
  // included (the client must learn that its money moved); only a new allocation is refused.
  refuse(archivedRefusal(agent));
  const chain = chainOf(ctx, rail);
  const treasury = addressOn(ctx, owner, rail);
  await refuseKeylessRecipient(ctx, agent, rail);
  const reading = await treasuryReading(ctx, owner, rail);
  const id = newId('alc');
  try {
    const moved = await moveMoney(ctx, owner, {
      kind: 'allocation',
      actor: actorOf(principal),
      key,
      sentBy: 'coffer',
      rail,
      sign: () =>
        chain.prepareTransfer({
          from: treasury,
          to: addressOn(ctx, agent.walletAddress, rail),
          amount,
          memo: `coffer allocation ${id}`,
          reference: id,
          feePayer: treasury,
          createRecipientAccount: true,
        }),
      reserve: (signed) => {
        // Again in the commit that reserves: the archive may have committed while the balance was read.
        refuse(archivedRefusal(getAgentOrThrow(ctx, owner, agent.agentId)));
        refuse(treasuryRefusal(ctx, treasuryFree(ctx, owner, rail, reading), amount, rail));
        return newMove(ctx, 'allocation', id, agent, amount, key, signed, rail);
      },
    });
    return allocationResult(ctx, 'earlier' in moved ? answerEarlier(moved.earlier) : moved.row, agent);
  } catch (error) {
    if (isCofferError(error) && error.code === 'insufficient_funds') {
      throw new CofferError(
        'insufficient_treasury_funds',
        `the treasury does not hold enough USDC for this allocation${faucetWords(ctx, rail)}`,
      );
    }
    throw error;
  }
}

/** What an allocation or a return answers: what moved, on which rail, its transaction, and the wallet's balance there after. */
async function moved(ctx: EngineContext, record: AllocationRecord, agent: AgentRecord) {
  const balance = await chainOf(ctx, record.rail).usdcBalance(addressOn(ctx, agent.walletAddress, record.rail));
  return {
    amount: formatUsdc(record.amount),
    currency: 'USDC' as const,
    rail: record.rail,
    txSignature: record.txSignature ?? '',
    balance: formatUsdc(balance),
  };
}

/** What a request on a rail adds to its Idempotency-Key's hash: nothing on Solana's (so a key used before rails means the same). */
const railOfRequest = (rail: Rail): string[] => (rail === 'sol' ? [] : [rail]);

const allocationResult = async (ctx: EngineContext, allocation: AllocationRecord, agent: AgentRecord): Promise<Allocation> => ({
  agentId: allocation.agentId,
  allocationId: allocation.id,
  ...(await moved(ctx, allocation, agent)),
});

const returnResult = async (ctx: EngineContext, record: AllocationRecord, agent: AgentRecord): Promise<Returned> => ({
  agentId: record.agentId,
  returnId: record.id,
  ...(await moved(ctx, record, agent)),
});

/**
 * The allocation made for this agent under `idempotencyKey` that still waits for the chain, as its
 * first answer put it; null where none waits. A retry of it is answered `chain_unavailable` ("ask
 * again shortly"): a deploy asked again answers its funding with this instead, so that its caller,
 * told it failed, never funds the agent a second time (core/agents/deployed-answer.ts).
 */
export async function pendingAllocationUnder(ctx: EngineContext, agent: AgentRecord, idempotencyKey: string): Promise<Allocation | null> {
  const row = ctx.store.findByIdempotencyKey(['allocation'], agent.owner, agent.agentId, idempotencyKey, ctx.clock.now() - DAY_MS);
  return row === null || row.status !== 'pending' ? null : allocationResult(ctx, row, agent);
}

/** The earlier allocation or return under an Idempotency-Key, answered again: what moved, or its failure again. */
function answerEarlier(earlier: AllocationRecord): AllocationRecord {
  if (earlier.status === 'failed') {
    const lackOfFunds = earlier.kind === 'allocation' ? 'insufficient_treasury_funds' : 'insufficient_funds';
    throw new CofferError(
      earlier.errorCode === 'insufficient_funds' ? lackOfFunds : 'chain_rejected',
      `the ${earlier.kind} made with this Idempotency-Key failed (${earlier.errorCode ?? 'unknown'}); no money moved`,
    );
  }
  return earlier;
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
  rail: Rail = 'sol',
): Promise<Returned> {
  requireOwner(principal);
  const { owner } = principal;
  const asked = amountText === null ? null : parseAmount(amountText);
  const agent = getAgentOrThrow(ctx, owner, agentId);
  const key = keyOf('return', agent, idempotencyKey, ['return', asked?.toString() ?? 'all', ...railOfRequest(rail)]);
  const earlier = key === null ? null : await earlierAttempt(ctx, owner, key, 'coffer');
  if (earlier !== null) return returnResult(ctx, answerEarlier(earlier), agent);
  const chain = chainOf(ctx, rail);
  const [wallet, treasury] = [addressOn(ctx, agent.walletAddress, rail), addressOn(ctx, owner, rail)];
  // "All of it" is what the chain says now, less what left since the read and what the wallet has
  // promised away on this rail (pending payments and returns), judged again in the reservation.
  const reading = await freshReading(ctx, agent, rail);
  const available = () => freeBalance(ctx, agent, rail, reading);
  // "All of it" is signed for what is available now; when a payment takes part of it before the
  // reservation, the return is signed again for what is left (a few times at most).
  for (let tries = 1; ; tries += 1) {
    const left = available();
    const amount = asked ?? left;
    const refusal = returnRefusal(agent, amount, left, rail);
    if (refusal !== null) throw left <= 0n ? await withMoneyElsewhere(ctx, agent, rail, refusal) : refusal;
    const id = newId('alc');
    try {
      const movedBack = await moveMoney(ctx, owner, {
        kind: 'return',
        actor: actorOf(principal),
        key,
        sentBy: 'coffer',
        rail,
        sign: () =>
          chain.prepareTransfer({
            from: wallet,
            to: treasury,
            amount,
            memo: `coffer return ${id}`,
            reference: id,
            feePayer: treasury,
            createRecipientAccount: false,
          }),
        reserve: (signed) => {
          const left = available();
          if (asked === null && left !== amount && left > 0n && tries < 3) throw new AvailableChanged();
          refuse(returnRefusal(agent, amount, left, rail));
          return newMove(ctx, 'return', id, agent, amount, key, signed, rail);
        },
      });
      return returnResult(ctx, 'earlier' in movedBack ? answerEarlier(movedBack.earlier) : movedBack.row, agent);
    } catch (error) {
      if (!(error instanceof AvailableChanged)) throw error;
    }
  }
}

/** A return of the whole available balance found it changed between its signature and its reservation. */
class AvailableChanged extends Error {}

/**
 * The treasury's balance on the rail read now, with the ledger's total of what it confirmed leaving
 * the treasury noted before the read is sent (treasuryFree takes off what it grew by since).
 */
export async function treasuryReading(ctx: EngineContext, owner: string, rail: Rail): Promise<{ balance: bigint; outflowsBefore: bigint }> {
  const outflowsBefore = ctx.store.confirmedOutflowsTotal(owner, null, rail);
  return { balance: await chainOf(ctx, rail).usdcBalance(addressOn(ctx, owner, rail)), outflowsBefore };
}

/**
 * What the treasury has free on the rail by a reading: the balance read, less what the ledger
 * confirmed leaving it since (an allocation that confirmed meanwhile is no longer pending, and a read
 * sent before it landed still holds its money; on Base a transfer settles outside the ledger's
 * write) and what it has promised away (pending allocations, and refunds on their way to agents), as an agent's wallet is judged
 * (wallet-balance.ts). Synchronous, so the reservation's one write judges by the ledger as it commits.
 */
export function treasuryFree(ctx: EngineContext, owner: string, rail: Rail, reading: { balance: bigint; outflowsBefore: bigint }): bigint {
  const leftSince = ctx.store.confirmedOutflowsTotal(owner, null, rail) - reading.outflowsBefore;
  return reading.balance - leftSince - ctx.store.pendingTreasuryOutflowsTotal(owner, rail);
}

/** The treasury's USDC on the rail free (treasuryFree) must cover an allocation. */
const treasuryRefusal = (ctx: EngineContext, available: bigint, amount: bigint, rail: Rail): Refusal =>
  available >= amount
    ? null
    : new CofferError(
        'insufficient_treasury_funds',
        `the treasury holds ${formatUsdc(available < 0n ? 0n : available)} USDC available on ${railName(rail)}, less than ${formatUsdc(amount)}${faucetWords(ctx, rail)}`,
      );

/**
 * Where the treasury is short of test money, how it gets more: the faucet, on sim's chains only, named
 * as each door offers it (the words reach the dashboard and the terminal alike).
 */
export const faucetWords = (ctx: EngineContext, rail: Rail): string =>
  chainOf(ctx, rail).isSim
    ? `; on sim, the faucet mints test USDC into it (the dashboard's ${faucetAction(rail)}, or coffer faucet AMOUNT${rail === 'base' ? ' --rail base' : ''})`
    : '';

/** A return moves something, and no more than the wallet has not promised away on its rail. */
const returnRefusal = (agent: AgentRecord, amount: bigint, available: bigint, rail: Rail): Refusal =>
  amount > 0n && available >= amount
    ? null
    : new CofferError(
        'insufficient_funds',
        available <= 0n
          ? `agent "${agent.agentId}" holds nothing to return on ${railName(rail)} (${formatUsdc(0n)} USDC available)`
          : `agent "${agent.agentId}" holds ${formatUsdc(available)} USDC available on ${railName(rail)}, less than ${formatUsdc(amount)}: return ${formatUsdc(available)}, or leave the amount out to return all of it`,
      );

/**
 * A return refused because the wallet has nothing free on its rail: says what it holds free on the
 * other rail, if anything (read now; a rail closed or not answering adds nothing).
 */
async function withMoneyElsewhere(ctx: EngineContext, agent: AgentRecord, rail: Rail, refusal: CofferError): Promise<CofferError> {
  const other: Rail = rail === 'sol' ? 'base' : 'sol';
  const elsewhere = await freshReading(ctx, agent, other).then(
    (reading) => freeBalance(ctx, agent, other, reading),
    () => 0n,
  );
  if (elsewhere <= 0n) return refusal;
  return new CofferError(
    'insufficient_funds',
    `${refusal.message}; it holds ${formatUsdc(elsewhere)} USDC on ${railName(other)}: return it from there (rail ${other})`,
  );
}

/** An allocation's or a return's Idempotency-Key: the two share the key space of an agent (one used for the other is 409). */
const keyOf = (kind: 'allocation' | 'return', agent: AgentRecord, idempotencyKey: string | null, request: unknown[]) =>
  idempotencyKey === null
    ? null
    : {
        kinds: kind === 'allocation' ? (['allocation', 'return'] as const) : (['return', 'allocation'] as const),
        agentId: agent.agentId,
        key: idempotencyKey,
        requestHash: hashRequest(request),
      };

/** A move between the treasury and an agent's wallet, reserved with its signed transaction. */
const newMove = (
  ctx: EngineContext,
  kind: 'allocation' | 'return',
  id: string,
  agent: AgentRecord,
  amount: bigint,
  key: { key: string; requestHash: string } | null,
  signed: SignedTransfer,
  rail: Rail,
): AllocationRecord => ({
  kind,
  id,
  owner: agent.owner,
  agentId: agent.agentId,
  amount,
  ...reservedWith(ctx, signed, key, rail),
});

/**
 * An allocation to a wallet whose key is not in the key store (lost, or not in the backup file this
 * Coffer was restored from) is refused, nothing moved: the money would sit where nothing can pay or
 * return it until the key is back (helper 202: allocated without a word, then every payment and
 * return from it refused wallet_key_missing).
 */
async function refuseKeylessRecipient(ctx: EngineContext, agent: AgentRecord, rail: Rail): Promise<void> {
  const wallet = addressOn(ctx, agent.walletAddress, rail);
  if (await ctx.vault.holdsKeyOf(wallet)) return;
  throw new CofferError(
    'wallet_key_missing',
    `the key of agent "${agent.agentId}"'s ${rail === 'base' ? 'Base account' : 'Solana wallet'} ${wallet} is not in this Coffer's key store (lost, or not in the backup file it was restored from): money allocated there could be neither paid nor returned until it is back, and nothing was allocated`,
  );
}
