/**
 * An x402 offer's entries as Coffer reads them, rail by rail: those it can pay on each rail's
 * network (x402-payable.ts says which), the cheapest first; the terms it will not sign for an agent;
 * how x402 names each rail's network here; the seller's memos. What x402-entry.ts chooses from, and
 * x402-unpayable.ts words a refusal with.
 */
import type { EngineContext } from '../context.js';
import type { AgentRecord } from '../ports/store.js';
import type { X402Offer, X402Requirement } from '../ports/x402.js';
import { RAILS, checksummedEvmAddress, isEvmAddress, isSolanaAddress, type Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { chainOf } from '../rails.js';
import { isPayableOn } from './x402-payable.js';
import { isOwnWallet } from './paid-to.js';
import type { AlsoShort, PaidMemo } from './payment.js';

/** The requirement of an offer Coffer pays, the rail it is paid on, and its recipient as the ledger spells it. */
export interface Payable {
  requirement: X402Requirement;
  rail: Rail;
  recipient: string;
  /**
   * The other rail the offer is payable on, whose wallet does not hold the amount either
   * (railWithFunds); `free` null where this rail was asked for (payment.ts AlsoShort), the other unread.
   */
  alsoShort?: AlsoShort;
}

/**
 * Why Coffer does not sign an entry's terms for this agent, whatever its wallet holds: it pays the
 * agent's own wallet on that rail (nothing would be bought), or on Solana it names no fee payer that
 * signs and sends, or one of this treasury's wallets (Coffer signs only as the payer). Null where it
 * signs them.
 */
export function termsFault(payable: Payable, ctx: EngineContext, agent: AgentRecord, owner: string): string | null {
  if (isOwnWallet(ctx, agent, payable.recipient, payable.rail)) {
    return `the x402 offer pays this agent's own wallet on ${railName(payable.rail)} (${payable.recipient}): nothing would be bought`;
  }
  if (payable.rail !== 'sol') return null;
  const { feePayer } = payable.requirement;
  if (feePayer === null || !isSolanaAddress(feePayer)) {
    return 'the x402 offer names no fee payer (extra.feePayer): Coffer does not pay the fees of a seller';
  }
  if (feePayer === agent.walletAddress || feePayer === owner) {
    return "the x402 offer names one of this treasury's wallets as its fee payer: Coffer signs only as the payer";
  }
  return null;
}

/**
 * The offer's requirements Coffer can pay on a rail (x402-payable.ts says which), the cheapest first
 * (in the offer's order where equal): a seller listing a dear entry first is not paid more for it,
 * and an entry above the agent's limits refuses nothing where a cheaper one fits.
 */
export function payablesOn(ctx: EngineContext, offer: X402Offer, rail: Rail): Payable[] {
  const network = x402NetworkOf(ctx, rail, offer.x402Version);
  if (network === null) return [];
  const here = { network, usdc: chainOf(ctx, rail).usdc };
  return offer.requirements
    .filter((entry) => isPayableOn(rail, here, { ...entry, transferMethod: entry.extra.assetTransferMethod }) && memoFault(entry) === '')
    .sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0))
    .map((requirement) => ({
      requirement,
      rail,
      recipient: rail === 'base' ? checksummedEvmAddress(requirement.payTo) : requirement.payTo,
    }));
}

/** How x402 names this Coffer's network of a rail in an offer of this version; null where it names none. */
export function x402NetworkOf(ctx: EngineContext, rail: Rail, version: number): string | null {
  const names = ctx.x402?.networks[rail] ?? null;
  return names === null ? null : version === 1 ? names.v1 : names.v2;
}

/** The rail whose network this Coffer's x402 names so in an offer of this version; undefined for another network. */
export const railNamed = (ctx: EngineContext, network: string, version: number): Rail | undefined =>
  RAILS.find((rail) => x402NetworkOf(ctx, rail, version) === network);

/**
 * Which rail's kind of chain an x402 network is: Solana's (`solana`, `solana-devnet`,
 * `solana:<genesis>`), an EVM chain's (Base's kind: `eip155:<id>`, or in v1, which names no other
 * kinds, any other name), or neither (v2's other namespaces, `aptos:1`).
 */
export const chainFamilyOf = (network: string, version: number): Rail | null =>
  network.startsWith('solana') ? 'sol' : network.startsWith('eip155:') || version === 1 ? 'base' : null;

/** The longest memo x402's exact scheme puts on chain. */
const MAX_MEMO_BYTES = 256;

/**
 * A memo is text the seller matches its payment by, and Coffer its earlier purchases by
 * (nonce_already_paid), kept with the payment: an entry whose memo is of another type, or longer than
 * x402's exact scheme puts on chain (on Base too, where no transfer carries it), is not paid.
 */
export function memoFault(entry: X402Requirement): string {
  const memo = entry.extra.memo;
  if (memo === undefined) return '';
  if (typeof memo !== 'string') return ' (its extra.memo not text)';
  return new TextEncoder().encode(memo).length > MAX_MEMO_BYTES
    ? ` (its extra.memo longer than the ${MAX_MEMO_BYTES} bytes x402 allows)`
    : '';
}

/**
 * The seller's memos on an offer's entries, each with its entry's recipient as the ledger spells it:
 * the challenge they bind, paid once whichever entry is paid, on either rail. Every entry's, payable
 * now or not: one paid while Coffer still paid it (before the Base rail closed, or its terms changed)
 * is that challenge paid. Each pair once (an offer may list one recipient and memo at many prices,
 * each looked up in the write); a memo longer than x402 allows was never paid.
 */
export function challengeMemosOf(offer: X402Offer): PaidMemo[] {
  const pairs = new Map<string, PaidMemo>();
  for (const requirement of offer.requirements) {
    const memo = memoOf(requirement);
    if (memo === null || memoFault(requirement) !== '') continue;
    const recipient = isEvmAddress(requirement.payTo) ? checksummedEvmAddress(requirement.payTo) : requirement.payTo;
    pairs.set(JSON.stringify([recipient, memo]), { recipient, memo });
  }
  return [...pairs.values()];
}

/**
 * v2 sellers may bind a payment to their nonce with `extra.memo` (of the very entry paid): on Solana
 * it goes on chain in the transfer; on Base it is the seller's label only, kept with the payment (an
 * EVM transfer carries no memo), and a memo paid once is not paid again (nonce_already_paid).
 */
export function memoOf(requirement: X402Requirement): string | null {
  const memo = requirement.extra.memo;
  return typeof memo === 'string' && memo.length > 0 ? memo : null;
}
