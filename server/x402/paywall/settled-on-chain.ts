import { createHash } from 'node:crypto';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, isAddress, type Address } from 'viem';
import type { CarriedAuthorization, EvmTransferLookup } from '../../chain/evm/transfer-lookup.js';
import type { Chain, TransferFound } from '../../core/ports/chain.js';
import type { PaywallStore } from './paywall-store.js';
import { claimOf, type PaymentDigests } from './payment-claims.js';
import type { ChainSearches } from './chain-searches.js';
import { address, getBase58Decoder, getBase64Encoder, getTransactionDecoder, type Address as SolanaAddress } from '@solana/kit';
import { usdcTokenAccount } from '../../chain/solana/usdc-transfer.js';
import { readWireTransaction } from '../../chain/solana/wire-transaction.js';

/** A payment's settlement as the chain may show it, for verifiedAndSettled (x402-settlement.ts). */
export interface PaidBefore {
  /**
   * The facilitator verified the payment and is about to settle it: remembered first, where the
   * chain can say where it ran without the facilitator's word, so that the payment is served once
   * though its paywall stopped before recording it, or its facilitator sent it and then answered no
   * more (or failed without saying whether it sent). False, with nothing remembered, where another
   * payment is remembered under its nonce: it must not be settled (pending-settlements.ts).
   */
  settling(payer: string): boolean;
  /** The facilitator named the transaction it sent without settling (left pending, or failed after sending): remembered with the payment. */
  named(transaction: string, payer: string): void;
  /** The facilitator answered that the payment settled in `transaction`: remembered with the payment, as said. */
  settledIn(transaction: string, payer: string): void;
  /** The facilitator said the payment's authorization ran before it sent anything (another's settlement ran it). */
  ranElsewhere(): void;
  /**
   * Where the chain shows this very payment paid: in a transaction the facilitator named for it,
   * or, where a settlement of it was not answered, in one the chain shows the facilitator sent since
   * (pending-settlements.ts). Null where none was remembered, or it did not (dropped, failed, paying
   * anything else). Throws while the node knows that transaction but has not mined it, or does not
   * know yet the one the facilitator said it settled in (its node behind the facilitator's): 503.
   */
  ranIn(): Promise<{ transaction: string; payer: string } | null>;
}

/**
 * The EIP-3009 authorization an x402 payment on an EVM chain carries, its fields checked for shape;
 * null for any other payload (a Solana one, Permit2).
 */
export function carriedAuthorization(payload: PaymentPayload): CarriedAuthorization | null {
  const carried = payload.payload as { authorization?: Record<string, unknown>; signature?: unknown; permit2Authorization?: unknown };
  const { from, to, value, nonce, validAfter, validBefore } = carried.authorization ?? {};
  if (
    carried.permit2Authorization !== undefined ||
    typeof carried.signature !== 'string' ||
    !/^0x(?:[0-9a-fA-F]{2})+$/.test(carried.signature)
  )
    return null;
  const address = (field: unknown): field is Address => typeof field === 'string' && isAddress(field);
  const uint = (field: unknown): field is string => typeof field === 'string' && /^\d{1,78}$/.test(field);
  if (!address(from) || !address(to) || !uint(value) || !uint(validAfter) || !uint(validBefore)) return null;
  if (typeof nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return null;
  return {
    from: getAddress(from),
    to: getAddress(to),
    value: BigInt(value),
    nonce: nonce.toLowerCase() as CarriedAuthorization['nonce'],
    validAfter: BigInt(validAfter),
    validBefore: BigInt(validBefore),
  };
}

const digest = (parts: string[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/**
 * A Solana wire transaction's message (base64), what its signers sign: one payment however its
 * signature slots are spelled (the fee payer's, which the facilitator fills, may hold any bytes as
 * presented). Null where the bytes are no transaction (the facilitator refuses it).
 */
function messageOf(transaction: string): string | null {
  try {
    const { bytes, signatures } = readWireTransaction(Buffer.from(transaction, 'base64'));
    const last = signatures[signatures.length - 1]!;
    return Buffer.from(bytes.subarray(last.byteOffset - bytes.byteOffset + 64)).toString('base64');
  } catch {
    return null;
  }
}

/** What a payment on a rail is, and how the chain shows it paid this route in a transaction. */
export interface Settling extends PaymentDigests {
  /** Who pays, where the payment itself says (an EIP-3009 authorization's payer); else the facilitator's word. */
  payer: string | null;
  /**
   * Whether the transaction paid this route. `settled`: the facilitator answered a moment ago that
   * the payment settled in it, so one this node does not know yet throws (not known here yet), never
   * "no" (on Solana, where the lookup cannot say whether it may still land).
   */
  paidIn(transaction: string, settled: boolean): Promise<boolean>;
  /**
   * The transaction the chain shows ran the payment, sent since `since` (ms) by the facilitator (on
   * Base its own accounts; on Solana the fee payer the payment names, with `payer`'s signature); null
   * where the chain cannot say that without the facilitator's word.
   */
  sentSince: ((since: number, payer: string) => Promise<string | null>) | null;
}

/**
 * A payment on Base: its EIP-3009 authorization, which must name the route's recipient and at least
 * its price, and the transaction must have run it paying exactly what it says (`paidInTransaction`:
 * a payer may sign two authorizations with one nonce). Where the facilitator said no transaction
 * (it stopped before it could), the one the token's log shows ran the authorization counts if one
 * of `senders`, the accounts the facilitator says it sends from, sent it. Null for any other payload.
 */
export function baseSettling(
  payload: PaymentPayload,
  route: { recipient: string; amount: bigint },
  chain: Pick<EvmTransferLookup, 'paidInTransaction' | 'whereAuthorizationRan'>,
  senders: readonly string[],
): Settling | null {
  const authorization = carriedAuthorization(payload);
  // At least the price: a facilitator other than the official one (which takes the exact sum) may
  // settle an authorization paying more, and its money moves as surely.
  if (authorization === null || authorization.to !== getAddress(route.recipient) || authorization.value < route.amount) return null;
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  const signature = String((payload.payload as { signature: string }).signature).toLowerCase();
  const fields = [from, to, value.toString(), validAfter.toString(), validBefore.toString(), nonce];
  return {
    // Security invariant: the signature is left out. A contract wallet's verifies in other spellings
    // (wrapped as ERC-6492 with any factory, once the wallet is deployed), which anyone who read the
    // payment in flight can write: with the signature in, a second spelling was a second payment
    // under a fresh nonce, and could take the buyer's one answer.
    digest: digest(fields),
    formerDigest: digest([...fields, signature]),
    authorization: { payer: from, nonce },
    payer: from,
    paidIn: (transaction, settled) => chain.paidInTransaction(transaction, authorization, settled),
    sentSince:
      senders.length === 0
        ? null
        : async (since) => {
            const ran = await chain.whereAuthorizationRan(authorization, BigInt(Math.floor(since / 1000)));
            const sentByFacilitator = senders.some((sender) => isAddress(sender) && getAddress(sender) === ran?.sender);
            return ran !== null && sentByFacilitator ? ran.transaction : null;
          },
  };
}

/**
 * A payment on Solana: its transaction, which the facilitator signs as fee payer and sends. The
 * transaction it reported must have succeeded moving the route's price in this USDC to the
 * recipient's USDC account, with the paywall's nonce as its memo. Where it reported none, the one
 * carrying the payer's signature found in the payer's USDC account's history, where the lookup reads
 * a cluster's RPC (`fateOfPayerSigned`): the very transaction presented, its fee payer and memo among
 * what the payer signed.
 */
export function solanaSettling(
  payload: PaymentPayload,
  route: { recipient: string; amount: bigint; usdcMint: string; memo: string },
  chain: {
    findTransfer(txSignature: string): Promise<TransferFound | null>;
    fateOfPayerSigned: Chain['fateOfPayerSigned'] | null;
    /** Whether the cluster still takes a wire transaction's blockhash (it may still land); null where the lookup cannot say. */
    blockhashUsable: ((txWire: string) => Promise<boolean>) | null;
  },
): Settling | null {
  const transaction = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof transaction !== 'string') return null;
  const message = messageOf(transaction);
  return {
    digest: message === null ? digest([transaction]) : digest(['solana message', message]),
    formerDigest: message === null ? null : digest([transaction]),
    authorization: null,
    payer: null,
    // Its transaction is named by the fee payer's signature, which only the facilitator makes: found
    // by the payer's own signature in it.
    sentSince:
      chain.fateOfPayerSigned === null
        ? null
        : async (since, payer) => {
            const payerSignature = signatureOf(transaction, payer);
            if (payerSignature === null) return null;
            // No end given: the transaction is looked for only, never called dropped here.
            const sent = { payer, payerSignature, txWire: transaction, lifetimeEnd: NO_END, since, hint: null };
            const fate = await chain.fateOfPayerSigned!(sent);
            return fate.state === 'succeeded' ? fate.landedAs : null;
          },
    paidIn: async (txSignature, settled) => {
      const paysHere = async (found: TransferFound | null) =>
        found !== null &&
        found.succeeded &&
        found.mint === route.usdcMint &&
        found.toTokenAccount === (await usdcTokenAccount(address(route.usdcMint), address(route.recipient))) &&
        found.amount === route.amount &&
        found.memo === route.memo;
      const found = await chain.findTransfer(txSignature);
      // Settled, the facilitator said: a lookup that cannot tell whether it may still land (a Coffer
      // server's) and does not show it may lag the facilitator's cluster (a cluster's RPC answers by
      // the blockhash below, the transaction's own end).
      if (found === null && settled && chain.blockhashUsable === null) {
        throw new Error(`the transaction ${txSignature} the facilitator settled is not known here yet`);
      }
      if (found !== null || chain.blockhashUsable === null) return paysHere(found);
      // Not landed: it may still, while the cluster takes the presented transaction's blockhash (the
      // facilitator's signature leaves the message as the payer signed it): unknown (503), as on
      // Base. Gone, it is read once more, for it may have landed in between. A lookup that cannot
      // say (a Coffer server's) leaves it refused, as a shape the lookup does not read is.
      if (await chain.blockhashUsable(transaction)) throw new Error(`the transaction ${txSignature} has not landed yet`);
      return paysHere(await chain.findTransfer(txSignature));
    },
  };
}

/**
 * How long a transaction its facilitator said a payment settled in may be unknown to the seller's
 * node as a node behind the facilitator's (a load-balanced RPC's nodes differ by seconds): answered
 * 503 meanwhile, never "not paid". Bounded: one that never reaches this node (replaced by another,
 * reorganized away) must not leave the payment unanswered until its row is pruned.
 */
export const NODE_CATCH_UP_MS = 5 * 60_000;

/** A lifetime that never ends, where the transaction's own (its last valid block height) is not known. */
const NO_END = BigInt(Number.MAX_SAFE_INTEGER);

/** `signer`'s signature (base58) on a wire transaction (base64); null where it carries none. */
function signatureOf(wire: string, signer: string): string | null {
  try {
    const bytes = getTransactionDecoder().decode(getBase64Encoder().encode(wire)).signatures[signer as SolanaAddress];
    return bytes ? getBase58Decoder().decode(bytes) : null;
  } catch {
    return null;
  }
}

/**
 * A v2 payment whose settlement the facilitator left pending (503), presented again: the facilitator
 * may then refuse it (after a restart its verify finds the authorization used, or the transaction
 * landed) though its transaction paid the seller. Where it did, the payment is settled there.
 *
 * Security invariants:
 * - A landed payment is public (its transaction carries every field and signature), so it proves
 *   nothing of who presents it. Only the payment this paywall's facilitator left pending is looked
 *   for, remembered durably with the paywall's nonce it spends and its digest (Settling.digest).
 *   On Base that nonce never goes on chain: whoever presents it again holds what only the buyer and
 *   the seller saw. Its authorization does, in the transaction in flight where a chain's pending
 *   transactions are public, and the facilitator resumes a settlement by the authorization's
 *   signature alone: the same payment under a fresh nonce of whoever read it is refused while it
 *   is remembered under the first (`presentedUnderAnotherNonce`). On Solana it is the
 *   transaction's memo, so whoever reads the landed transaction may rebuild the payment and present
 *   it first, taking the buyer's one answer (money never moves twice; the same holds before a
 *   restart, where the same payment resumes its settlement).
 * - Only the transaction the facilitator sent for it counts, not wherever the payment ran: a second
 *   paywall of the seller's (a store of its own) that settled it first would otherwise see its answer
 *   bought again here. Where a settlement of it was not answered (the paywall stopped, or the
 *   facilitator answered no more or failed without saying whether it sent), one the chain shows the
 *   facilitator sent since it began (on Base from its own accounts): never where each settlement was
 *   answered (one naming what it sent, or saying the authorization ran before it sent anything, as
 *   when another paywall's settlement ran it first). Two paywalls for one wallet through one
 *   facilitator, or facilitators sharing an account, share one store file (docs/API.md): one's
 *   settlement unanswered could otherwise find the other's.
 * A v1 payment names no nonce of the paywall's: it is remembered under its digest (claimOf), so on
 * Base whoever reads its landed transaction may present it first, as on Solana above.
 */
export function paidBefore(
  store: Pick<PaywallStore, 'settlementBegins' | 'settlementNamed' | 'settlementRanElsewhere' | 'pendingSettlement'>,
  payment: { memo: string; nonceExpiresAt: number; searches: ChainSearches },
  settling: Settling | null,
): PaidBefore | null {
  if (settling === null) return null;
  // Under the nonce it spends, or a v1 payment's digest (claimOf).
  const claim = claimOf(payment.memo, settling);
  const kept = (payer: string) => ({
    nonce: claim,
    digest: settling.digest,
    payer: settling.payer ?? payer,
    nonceExpiresAt: payment.nonceExpiresAt,
  });
  return {
    // By this host's clock (not a paywall's, which tests may set): the chain is reckoned from it.
    // Remembered where the chain is not searched too: no other nonce takes it meanwhile.
    settling: (payer) => store.settlementBegins({ ...kept(payer), since: Date.now() }),
    named: (transaction, payer) => store.settlementNamed({ ...kept(payer), transaction }),
    settledIn: (transaction, payer) => store.settlementNamed({ ...kept(payer), transaction, settledAt: Date.now() }),
    ranElsewhere: () => store.settlementRanElsewhere({ nonce: claim, digest: settling.digest }),
    async ranIn() {
      const pending = store.pendingSettlement(claim);
      if (pending === null || pending.digest !== settling.digest) return null;
      // The transaction the facilitator said it settled in, where this node does not know it, is not
      // known here yet while the node may still be catching up; after, it is judged as any named
      // (one replaced by another, or reorganized away, is never known here).
      const { settled } = pending;
      const catchingUp = settled !== null && Date.now() - settled.at < NODE_CATCH_UP_MS ? settled.transaction : null;
      const paid = async (transaction: string | null) =>
        transaction !== null && (await settling.paidIn(transaction, transaction === catchingUp))
          ? { transaction, payer: pending.payer }
          : null;
      // Each named (the one said settled among them: pending-settlements.ts), the latest first, and
      // one the node has not mined yet (503) answers only where none other paid it.
      let waiting: unknown = null;
      for (const transaction of [...pending.transactions].reverse()) {
        const found = await paid(transaction).catch((error: unknown) => ((waiting ??= error), null));
        if (found !== null) return found;
      }
      if (pending.unansweredSince !== null && settling.sentSince !== null) {
        // Not searched again so soon: the outcome stays unknown (503), never a refusal.
        if (!payment.searches.mayRun(claim, Date.now())) throw new Error('the chain was searched a moment ago (this payment, or others)');
        const searched = await paid(await settling.sentSince(pending.unansweredSince, pending.payer));
        if (searched !== null) return searched;
      }
      if (waiting !== null) throw waiting;
      return null;
    },
  };
}
