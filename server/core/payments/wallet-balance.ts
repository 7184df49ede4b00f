/**
 * What an agent's wallet holds on a rail, as a payment is judged against it (judge.ts): the last
 * balance read from the chain, less what Coffer has confirmed leaving the wallet since it was read.
 *
 * Why not a fresh read for each payment: over a remote RPC the read is a round trip on every
 * purchase's path (on the embedded chain's JSON-RPC, a third of an x402 purchase's time in
 * Coffer); the ledger already knows what Coffer moved out since the last one.
 *
 * Security invariant: the balance a payment is judged against is never more than the wallet holds,
 * except where money left it behind Coffer's back (its key used elsewhere, from a restored phrase):
 * - the reading's moment is taken before the read is sent, so any outflow confirmed since is taken
 *   off, even one the read may already have seen (counted twice: less, never more); only those
 *   confirmed before the read was sent are known to be in it;
 * - an outflow not confirmed is pending, and the reservation takes every pending one off as well;
 * - money coming in (an allocation, a deposit) is never added: a reading only shrinks;
 * - a reading is kept for KNOWN_FOR_MS at most, and read again sooner wherever it would refuse the
 *   payment, so a wallet topped up since is paid from at once.
 * Where money did leave behind Coffer's back, what Coffer signs cannot land for want of funds: the
 * chain refuses it, nothing moves, and the payment fails as any unpaid one does.
 */
import type { BalanceReading, EngineContext } from '../context.js';
import type { AgentRecord } from '../ports/store.js';
import type { Rail } from '../../wire/rails.js';
import { addressOn, chainOf } from '../rails.js';

/** How long a reading is used before the chain is asked again. */
export const KNOWN_FOR_MS = 30_000;

const keyOf = (agent: AgentRecord, rail: Rail) => `${agent.owner}|${agent.agentId}|${rail}`;

/**
 * What the wallet has free now by a reading: the balance read, less what Coffer confirmed leaving
 * the wallet since, its payments and returns to the treasury still pending. Synchronous, so the
 * reservation's one write judges by the ledger as it commits.
 */
export function freeBalance(ctx: EngineContext, agent: AgentRecord, rail: Rail, reading: BalanceReading): bigint {
  const { owner, agentId } = agent;
  return (
    reading.balance -
    (ctx.store.confirmedOutflowsSince(owner, agentId, rail, reading.asOf) - reading.alreadyOut) -
    ctx.store.pendingPaymentsTotal(owner, agentId, rail) -
    ctx.store.pendingReturnsTotal(owner, agentId, rail)
  );
}

/**
 * A reading of the wallet to judge a payment of `amount` by: the one kept, where it is recent and
 * leaves the amount free; else the chain's balance, read now and kept for the next payment.
 */
export async function walletReading(ctx: EngineContext, agent: AgentRecord, rail: Rail, amount: bigint): Promise<BalanceReading> {
  const key = keyOf(agent, rail);
  const kept = ctx.state.walletReadings.get(key);
  const now = ctx.clock.now();
  // A clock set back since the reading could hide an outflow dated before it: read again.
  if (kept !== undefined && now >= kept.asOf && now - kept.asOf < KNOWN_FOR_MS && freeBalance(ctx, agent, rail, kept) >= amount) {
    return kept;
  }
  const asOf = ctx.clock.now();
  const alreadyOut = ctx.store.confirmedOutflowsSince(agent.owner, agent.agentId, rail, asOf);
  const balance = await chainOf(ctx, rail).usdcBalance(addressOn(ctx, agent.walletAddress, rail));
  const reading = { balance, asOf, alreadyOut };
  const latest = ctx.state.walletReadings.get(key);
  if (latest === undefined || latest.asOf <= asOf) ctx.state.walletReadings.set(key, reading);
  return reading;
}
