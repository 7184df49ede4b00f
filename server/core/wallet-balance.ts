/**
 * What an agent's wallet holds on a rail, as a payment is judged against it (judge.ts): the last
 * balance read from the chain, less what Coffer has confirmed leaving the wallet since it was read.
 *
 * Why not a fresh read for each payment: over a remote RPC the read is a round trip on every
 * purchase's path (on the embedded chain's JSON-RPC, a third of an x402 purchase's time in
 * Coffer); the ledger already knows what Coffer moved out since the last one.
 *
 * Security invariant: the balance a payment is judged against is never more than the wallet holds
 * as the chain answered the read, except where money left it behind Coffer's back (its key used
 * elsewhere, from a restored phrase):
 * - what left the wallet since is counted by the ledger's own order, not by a clock: the store's
 *   running total of confirmed outflows (payments, returns) is noted before the read is sent, and
 *   all it grew by since is taken off, even what the read may already have seen (less, never more);
 * - an outflow not confirmed is pending, and the reservation takes every pending one off as well;
 * - money coming in (an allocation, a deposit) is never added: a reading only shrinks;
 * - a reading is kept for KNOWN_FOR_MS at most, read again sooner wherever it would not cover the
 *   payment, and dropped when a payment on it is refused for want of funds (withWalletReading), so a
 *   refusal for want of funds rests on a fresh read, and a wallet topped up is paid from at once.
 * What Coffer signs where money did leave behind its back cannot land for want of funds: the chain
 * refuses it, nothing moves, and the payment fails as any unpaid one does. The read itself is as
 * fresh as the RPC's node answers it (a node a block behind answers the balance before that block).
 */
import { isCofferError } from '../wire/errors.js';
import type { BalanceReading, EngineContext } from './context.js';
import type { AgentRecord } from './ports/store.js';
import type { Rail } from '../wire/rails.js';
import { addressOn, chainOf } from './rails.js';

/** How long a reading is used before the chain is asked again. */
export const KNOWN_FOR_MS = 30_000;

const keyOf = (agent: AgentRecord, rail: Rail) => `${agent.owner}|${agent.agentId}|${rail}`;

/**
 * What the wallet has free now by a reading: the balance read, less what Coffer confirmed leaving
 * the wallet since, its payments and returns to the treasury still pending. Synchronous, so the
 * reservation's one write judges by the ledger as it commits.
 */
export function freeBalance(ctx: EngineContext, agent: AgentRecord, rail: Rail, reading: BalanceReading): bigint {
  return (
    reading.balance -
    (ctx.store.confirmedOutflowsTotal(agent.owner, agent.agentId, rail) - reading.outflowsBefore) -
    promisedAway(ctx, agent, rail)
  );
}

/** What the wallet promised away on the rail: its payments and its returns to the treasury still pending. */
export function promisedAway(ctx: EngineContext, agent: AgentRecord, rail: Rail): bigint {
  return ctx.store.pendingPaymentsTotal(agent.owner, agent.agentId, rail) + ctx.store.pendingReturnsTotal(agent.owner, agent.agentId, rail);
}

/** The wallet's balance read from the chain now, kept for the payments after it. */
export async function freshReading(ctx: EngineContext, agent: AgentRecord, rail: Rail): Promise<BalanceReading> {
  const outflowsBefore = ctx.store.confirmedOutflowsTotal(agent.owner, agent.agentId, rail);
  const asOf = ctx.clock.now();
  const balance = await chainOf(ctx, rail).usdcBalance(addressOn(ctx, agent.walletAddress, rail));
  const reading = { balance, asOf, outflowsBefore };
  // Of two reads under way together, the one sent later is kept.
  const latest = ctx.state.walletReadings.get(keyOf(agent, rail));
  if (latest === undefined || latest.outflowsBefore <= outflowsBefore) ctx.state.walletReadings.set(keyOf(agent, rail), reading);
  return reading;
}

/**
 * A reading of the wallet to judge a payment of `amount` by: the one kept, where it is recent and
 * leaves the amount free; else the chain's balance, read now. `fresh` says which.
 */
export async function walletReading(
  ctx: EngineContext,
  agent: AgentRecord,
  rail: Rail,
  amount: bigint,
): Promise<{ reading: BalanceReading; fresh: boolean }> {
  const kept = ctx.state.walletReadings.get(keyOf(agent, rail));
  const now = ctx.clock.now();
  // Age by the clock only: a clock set back reads again.
  if (kept !== undefined && now >= kept.asOf && now - kept.asOf < KNOWN_FOR_MS && freeBalance(ctx, agent, rail, kept) >= amount) {
    return { reading: kept, fresh: false };
  }
  return { reading: await freshReading(ctx, agent, rail), fresh: true };
}

/**
 * Judges a payment of `amount` with the wallet's reading (`judged` asks for it when it needs it).
 * Refused for want of funds, the reading kept is dropped; where that refusal came from the
 * reservation on a kept reading (another payment took the money first, or some came in since),
 * `judged` runs once more on a fresh read. Nothing is handed out by a refused attempt.
 */
export async function withWalletReading<T>(
  ctx: EngineContext,
  agent: AgentRecord,
  rail: Rail,
  amount: bigint,
  judged: (reading: () => Promise<BalanceReading>, refusedInReservation: () => void) => Promise<T>,
): Promise<T> {
  let fresh = false;
  let inReservation = false;
  try {
    return await judged(
      async () => {
        const read = await walletReading(ctx, agent, rail, amount);
        fresh = read.fresh;
        return read.reading;
      },
      () => (inReservation = true),
    );
  } catch (error) {
    if (!isCofferError(error) || error.code !== 'insufficient_funds') throw error;
    ctx.state.walletReadings.delete(keyOf(agent, rail));
    if (fresh || !inReservation) throw error;
    return judged(
      () => freshReading(ctx, agent, rail),
      () => undefined,
    );
  }
}
