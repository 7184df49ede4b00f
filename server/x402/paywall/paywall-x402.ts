import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import type { Address, Hash } from 'viem';
import type { CarriedAuthorization } from '../../chain/evm/transfer-lookup.js';
import { baseSettling, carriedAuthorization, paidBefore, solanaSettling, type Settling } from './settled-on-chain.js';
import { adoptFormerDigest, claimOf, formerClaimOf, presentedUnderAnotherNonce } from './payment-claims.js';
import { ChainSearches } from './chain-searches.js';
import type { Chain, TransferFound } from '../../core/ports/chain.js';
import type { PaymentTerms } from '../payment-required.js';
import type { Nonces } from './nonces.js';
import type { PaywallStore } from './paywall-store.js';
import type { VerifiedPayment } from './verify-receipt.js';
import type { Rail } from '../../wire/rails.js';
import { facilitatorFeePayer, facilitatorSettles } from './facilitator-kinds.js';
import { keptAnswer, sayingOnce } from './kept-answer.js';
import { readWireTransaction } from '../../chain/solana/wire-transaction.js';
import { refuse, type X402Refusal } from './x402-refusal.js';
import {
  evmV1Requirements,
  evmV2Requirements,
  v1Requirements,
  v2Requirements,
  type X402BaseSeller,
  type X402Seller,
} from './x402-requirements.js';
import { PendingSettlements, verifiedAndSettled, type Settlement } from './x402-settlement.js';

/**
 * Who verifies and settles x402 payments for a paywall: an official facilitator, in this process
 * (in-process-facilitator.ts: a fee payer on Solana, an account that sends on Base) or at a URL (`facilitatorAt`).
 */
export type Facilitator = FacilitatorClient;

/** A facilitator reached over HTTP (its `/supported`, `/verify`, `/settle`); each request ends after `timeoutMs` (the package's 90 s by default). */
export function facilitatorAt(url: string, timeoutMs?: number): Facilitator {
  return new HTTPFacilitatorClient({ url, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}

/** The terms a v1 and a v2 requirement are made of. */
type V1Terms = Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'resource' | 'description'>;
type V2Terms = Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'nonce'>;

/** The route an x402 payment is presented on, and when. */
type Route = { resource: string; url: string; description: string; amount: bigint; maxTimeoutSeconds: number; now: number };

/**
 * What a payment must match: the requirements the facilitator checks it against, the amount, the
 * paywall's nonce it spends (none in v1) and until when that nonce is remembered.
 */
type PaymentMatch = {
  ok: true;
  requirements: PaymentRequirements | PaymentRequirementsV1;
  amount: bigint;
  nonce: string;
  nonceExpiresAt: number;
};

export type X402Acceptance = { ok: true; payment: VerifiedPayment; response: { name: string; value: string } };

/** The paywall's x402 terms on Base: the chain as x402 names it, its USDC, the recipient, and the token's EIP-712 name and version (read from the token). */
export interface PaywallBaseTerms extends X402BaseSeller {
  tokenNaming(): Promise<{ name: string; version: string }>;
  /** Whether the transaction ran this EIP-3009 authorization (its `AuthorizationUsed` log). */
  ranAuthorization(txHash: string, from: Address, nonce: Hash): Promise<boolean>;
  /** Whether the transaction ran this authorization paying what it says; `settled` where the facilitator said it settled there (a node that does not know it then throws). */
  paidInTransaction(txHash: string, authorization: CarriedAuthorization, settled?: boolean): Promise<boolean>;
  /** The transaction that ran this authorization, sent no earlier than `since` (seconds), and its sender. */
  whereAuthorizationRan(authorization: CarriedAuthorization, since: bigint): Promise<{ transaction: Hash; sender: Address } | null>;
}

/** The paywall's x402 terms on Solana, and how it reads a transaction there (its receipts' lookup). */
export interface PaywallSolTerms extends X402Seller {
  findTransfer(txSignature: string): Promise<TransferFound | null>;
  /** Where a payer's signed transaction landed, where the lookup can tell (a cluster's RPC); null otherwise. */
  fateOfPayerSigned: Chain['fateOfPayerSigned'] | null;
  /** Whether the cluster still takes a wire transaction's blockhash, where the lookup can tell (a cluster's RPC); null otherwise. */
  blockhashUsable: ((txWire: string) => Promise<boolean>) | null;
}

/**
 * The x402 face of a Coffer paywall, on Solana (devnet and mainnet) and on Base: its 402 offers the
 * route in x402 v1 (an `accepts` list in the body) and v2 (a `PAYMENT-REQUIRED` header, the
 * paywall's nonce as `extra.memo`). On Solana the payment's transaction carries that nonce on chain
 * and names the facilitator's fee payer; on Base the payer signs an EIP-3009 authorization the
 * facilitator sends (offered only while the facilitator says it settles there). A payment payload
 * (`PAYMENT-SIGNATURE`, or `X-PAYMENT` that is not a Coffer receipt) is checked against the terms this
 * paywall issued on its network (v2: its nonce, unused, for this route, in time, or settling since
 * before it ended), then verified and
 * settled by the facilitator before the route runs; the transaction it landed in is remembered like
 * a receipt's, so a payment buys one answer.
 */
export function createPaywallX402(options: {
  facilitator: Facilitator;
  /** Solana's terms, where x402 names the network (devnet, mainnet); null elsewhere. */
  sol: PaywallSolTerms | null;
  base: PaywallBaseTerms | null;
  store: PaywallStore;
  nonces: Nonces;
  log: (message: string) => void;
}) {
  const { sol, base } = options;
  if (sol === null && base === null) throw new Error('x402 pays on devnet or mainnet, or on Base; this paywall reads neither');
  const feePayer = sol === null ? null : facilitatorFeePayer(options.facilitator, sol.names.v2, options.log);
  const baseSettled = base === null ? null : facilitatorSettles(options.facilitator, base.names.v2, options.log);
  const settlingNow = new SettlingNow();
  /** The payments whose settlement was left pending, presented again (x402-settlement.ts). */
  const pendingSettlements = new PendingSettlements();
  /** When the chain was last searched for a payment's settlement, by its claim (payment-claims.ts claimOf). */
  const searches = new ChainSearches();
  /** The Base token's name and version (read from the token once, kept as kept-answer.ts says), its trouble logged once. */
  const sayToken = sayingOnce(options.log);
  const tokenNaming =
    base === null
      ? null
      : keptAnswer(() =>
          base.tokenNaming().then(
            (naming) => (sayToken(null), naming),
            (error: unknown) => (sayToken(`paywall: the Base token's name could not be read: ${(error as Error).message}`), null),
          ),
        );
  /** The Base token's name and version while the facilitator settles there; null otherwise (both asked at once: one wait). */
  const baseToken = async () => {
    if (base === null || baseSettled === null || tokenNaming === null) return null;
    const [settles, token] = await Promise.all([baseSettled.current(), tokenNaming.current()]);
    return settles === null ? null : token;
  };
  const rails: Rails = { sol, base, feePayer, baseSettled, baseToken, nonces: options.nonces, store: options.store };

  return {
    /** What a 402 adds for x402 clients; nothing when the facilitator cannot be asked (receipts still work). */
    async offers(
      terms: PaymentTerms,
      error: string,
    ): Promise<{ body: { x402Version: 1; accepts: PaymentRequirementsV1[] } | null; header: string } | null> {
      const [fee, token] = await Promise.all([feePayer?.current().then((said) => said?.feePayer ?? null) ?? null, baseToken()]);
      const v2: PaymentRequirements[] = [];
      const v1: PaymentRequirementsV1[] = [];
      if (sol !== null && fee !== null) {
        v2.push(v2Requirements(sol, terms, fee));
        v1.push(v1Requirements(sol, terms, fee));
      }
      if (base !== null && token !== null) {
        v2.push(evmV2Requirements(base, terms, token));
        if (hasV1Name(base)) v1.push(evmV1Requirements(base, terms, token));
      }
      if (v2.length === 0) return null;
      const required: PaymentRequired = {
        x402Version: 2,
        error,
        resource: { url: terms.resource, description: terms.description, mimeType: 'application/json' },
        accepts: v2,
      };
      // No v1 list where x402 v1 names none of the networks offered (an EVM chain other than Base's):
      // an empty one would read as an offer of nothing.
      return { body: v1.length === 0 ? null : { x402Version: 1, accepts: v1 }, header: encodePaymentRequiredHeader(required) };
    },

    /**
     * Checks, verifies and settles an x402 payment for this route. Throws only when the facilitator
     * cannot be reached (the caller answers 503, and the payment can be presented again).
     */
    async accept(header: string, route: Route): Promise<X402Acceptance | X402Refusal> {
      const decoded = decodePayment(header);
      if (!decoded.ok) return decoded;
      const { payload } = decoded;
      const rail = railOf(payload, rails);
      if (typeof rail !== 'string') return rail;
      // On an EVM chain this paywall's terms are paid by an EIP-3009 authorization: any other payload
      // (a malformed field, Permit2, a Solana one) is refused here, as the facilitator's verify would
      // throw on it, which reads as its being unreachable (503, "try again") to a buyer who never can.
      if (rail === 'base' && carriedAuthorization(payload) === null) {
        return refuse(
          'invalid_payment',
          'the x402 payment on an EVM chain carries no EIP-3009 authorization this paywall takes (from, to, value, validAfter, validBefore as decimal text, a 32-byte nonce, a hex signature)',
        );
      }
      const match = await matchOn(rail, payload, route, rails);
      if (!match.ok) return match;
      const asOnChain = await settlingOn(rail, payload, match, rails);
      // Claimed before it is settled, not only recorded after, under the nonce it spends (a v1
      // payment, which names none, under its digest): two payments naming one nonce at once would
      // otherwise both move money, and the second be refused after.
      const claim = claimOf(match.nonce, asOnChain);
      const taken = settlingNow.take(claim, header);
      if (taken !== null) return taken;
      try {
        // Asked again now that it is claimed: found unused before, the nonce may have been paid by
        // another payment since (settled and recorded while this one awaited the facilitator's
        // word), and this one must be refused before its money moves. A v1 payment is recorded
        // under its claim (its digest): presented again, it is a replay, refused here rather than
        // left to a facilitator, whose duplicate cache says only "try again" (503).
        // (Its claim before the digest changed counts too: a v1 payment accepted before the upgrade.)
        const formerClaim = formerClaimOf(claim, asOnChain);
        if (claim !== '' && (options.store.isNonceUsed(claim) || (formerClaim !== null && options.store.isNonceUsed(formerClaim)))) {
          return refuse(
            'receipt_already_used',
            match.nonce === '' ? 'this payment was already accepted' : 'this nonce was already paid and used',
          );
        }
        adoptFormerDigest(options.store, claim, asOnChain);
        // The facilitator resumes a settlement it sent by the payment's signature alone: this very
        // payment presented first under another nonce (or as v1) is that one's, settled or not.
        if (presentedUnderAnotherNonce(options.store, claim, asOnChain)) {
          return refuse('receipt_already_used', 'this payment was presented first under another nonce of this paywall');
        }
        // A payment's settlement is remembered as it begins and by what the facilitator answers, for
        // the chain to be asked about if the facilitator refuses it later (settled-on-chain.ts).
        // A Solana v1 payment's memo is the buyer's own (random), so the chain cannot tie it to this
        // route: claimed, not settled on the chain's word.
        const onChain =
          rail === 'sol' && match.nonce === ''
            ? null
            : paidBefore(options.store, { memo: match.nonce, nonceExpiresAt: match.nonceExpiresAt, searches }, asOnChain);
        const settlement = await verifiedAndSettled(
          options.facilitator,
          payload,
          match.requirements,
          { settlements: pendingSettlements, until: match.nonceExpiresAt, now: route.now },
          onChain,
        );
        if (!settlement.ok) {
          // Refused by the facilitator, which may have restarted with other keys, or stopped settling
          // there: asked again. (A refusal of the paywall's own, for the nonce, says nothing of it.)
          if (settlement.code === 'payment_rejected') (rail === 'sol' ? rails.feePayer : rails.baseSettled)!.refused();
          return settlement;
        }
        const authorization = rail === 'base' ? await authorizationRan(base!, payload, settlement.settled.transaction) : null;
        const acceptance = recorded(options.store, rail, payload, { ...match, claim }, settlement, route.now, authorization);
        if (acceptance.ok && claim !== '') forgetSettlement(options.store, claim, options.log);
        return acceptance;
      } finally {
        settlingNow.release(claim);
      }
    },
  };
}

/** A paywall's rails as a payment is read on them: its terms on each, and what its facilitator says now. */
interface Rails {
  sol: PaywallSolTerms | null;
  base: PaywallBaseTerms | null;
  /** The facilitator's fee payers on Solana (facilitator-kinds.ts); null where the paywall has no Solana. */
  feePayer: ReturnType<typeof facilitatorFeePayer> | null;
  /** Whether the facilitator settles on Base, and from which accounts; null where the paywall has no Base. */
  baseSettled: ReturnType<typeof facilitatorSettles> | null;
  /** The Base token's name and version while the facilitator settles there; null otherwise. */
  baseToken(): Promise<{ name: string; version: string } | null>;
  nonces: Nonces;
  store: PaywallStore;
}

/** The rail of this paywall's a payment names (x402's v1 or v2 name of its network); a refusal for any other. */
function railOf(payload: PaymentPayload, { sol, base }: Pick<Rails, 'sol' | 'base'>): Rail | X402Refusal {
  const network = payload.x402Version === 1 ? (payload as unknown as { network?: unknown }).network : payload.accepted?.network;
  if (sol !== null && (network === sol.names.v1 || network === sol.names.v2)) return 'sol';
  if (base !== null && (network === base.names.v1 || network === base.names.v2)) return 'base';
  return refuse('invalid_payment', `this paywall takes no x402 payment on ${String(network)}`);
}

/**
 * What a payment must match on its rail: the requirements this paywall offered, rebuilt (on Solana
 * with the fee payer the payment names, where the facilitator has it; on Base with the token's
 * naming), for v1 or v2. Throws where the facilitator cannot say now (the caller answers 503).
 */
async function matchOn(rail: Rail, payload: PaymentPayload, route: Route, rails: Rails): Promise<PaymentMatch | X402Refusal> {
  const v1 = payload.x402Version === 1;
  if (rail === 'sol') {
    const sol = rails.sol!;
    const said = await rails.feePayer!.current();
    if (said === null) throw new Error('the x402 facilitator cannot be reached');
    const fee = feePayerFor(payload, said);
    return v1
      ? v1Match((terms) => v1Requirements(sol, terms, fee), route)
      : v2Match((terms) => v2Requirements(sol, terms, fee), payload, route, rails);
  }
  const base = rails.base!;
  const token = await rails.baseToken();
  if (token === null) throw new Error('the x402 facilitator does not settle on Base now');
  if (!v1) return v2Match((terms) => evmV2Requirements(base, terms, token), payload, route, rails);
  return hasV1Name(base)
    ? v1Match((terms) => evmV1Requirements(base, terms, token), route)
    : refuse('invalid_payment', 'x402 v1 names no network of this chain');
}

/** How the chain shows the payment paid this route, on its rail (settled-on-chain.ts); null for a payload of another shape. */
async function settlingOn(rail: Rail, payload: PaymentPayload, match: PaymentMatch, rails: Rails): Promise<Settling | null> {
  if (rail === 'sol') {
    const sol = rails.sol!;
    return solanaSettling(payload, { recipient: sol.recipient, amount: match.amount, usdcMint: sol.usdcMint, memo: match.nonce }, sol);
  }
  const base = rails.base!;
  const senders = (await rails.baseSettled!.current())?.senders ?? [];
  return baseSettling(payload, { recipient: base.recipient, amount: match.amount }, base, senders);
}

/** The same payment presented again while its first presentation settles: its outcome is not known yet. */
export class BeingSettled extends Error {
  constructor() {
    super('this payment is being settled now, as presented before: try again for its answer');
  }
}

/**
 * The payments a paywall's facilitator is settling now, by their claim (claimOf), with the header
 * presented (this process's; the store keeps the settled ones).
 */
class SettlingNow {
  private readonly headers = new Map<string, string>();

  /**
   * Takes `claim` for the payment presented as `header`: null where taken (or where it claims
   * nothing: no payment of the route's terms), a refusal where another payment holds it. The same
   * header presented again while it settles (a buyer that gave up waiting) throws: its outcome is
   * not known yet (503); presented once more, it is answered as its settlement stands then (where
   * the first presentation was served, that was its one answer).
   */
  take(claim: string, header: string): X402Refusal | null {
    if (claim === '') return null;
    const inFlight = this.headers.get(claim);
    if (inFlight === header) throw new BeingSettled();
    if (inFlight !== undefined) return refuse('receipt_already_used', 'another payment naming this nonce is being settled');
    this.headers.set(claim, header);
    return null;
  }

  release(claim: string): void {
    if (claim !== '') this.headers.delete(claim);
  }
}

/**
 * The fee payer a Solana payment's terms are rebuilt with: the one its transaction names, where the
 * facilitator names it among its own (it names one of its keys at random each time it is asked,
 * and may have named another since); else the one it names now.
 */
function feePayerFor(payload: PaymentPayload, said: { feePayer: string; feePayers: string[] }): string {
  const named = feePayerOf(payload);
  return named !== null && said.feePayers.includes(named) ? named : said.feePayer;
}

/**
 * An accepted payment's settlement forgotten: its one answer is given, so presented again it is a
 * replay (a v1 payment's, which names no nonce to be found used, refused at once rather than
 * searched for). Best effort: the acceptance stands; a row left (a store busy with another process)
 * costs a replay one search.
 */
function forgetSettlement(store: PaywallStore, claim: string, log: (message: string) => void): void {
  try {
    store.settlementAccepted(claim);
  } catch (error) {
    log(`paywall: an accepted payment's settlement could not be forgotten: ${(error as Error).message}`);
  }
}

/** The fee payer a Solana payment's transaction names (its first signer); null where it cannot be read. */
function feePayerOf(payload: PaymentPayload): string | null {
  const transaction = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof transaction !== 'string') return null;
  try {
    return readWireTransaction(Buffer.from(transaction, 'base64')).accountKeys[0] ?? null;
  } catch {
    return null;
  }
}

const hasV1Name = (base: X402BaseSeller): base is X402BaseSeller & { names: { v1: string } } => base.names.v1 !== null;

export type PaywallX402 = ReturnType<typeof createPaywallX402>;

/** The payment payload of a `PAYMENT-SIGNATURE` (or x402 `X-PAYMENT`) header. */
function decodePayment(header: string): { ok: true; payload: PaymentPayload } | X402Refusal {
  try {
    const parsed = parsePaymentPayload(decodePaymentSignatureHeader(header));
    if (!parsed.success) return refuse('invalid_payment', 'the x402 payment does not follow the protocol');
    return { ok: true, payload: parsed.data as PaymentPayload };
  } catch {
    return refuse('invalid_payment', 'the x402 payment header is not base64 JSON');
  }
}

/**
 * v1 carries no seller nonce: the transaction itself is the one-time token (the facilitator lands it
 * once; the paywall remembers it).
 */
function v1Match(requirementsOf: (terms: V1Terms) => PaymentRequirementsV1, route: Route): PaymentMatch {
  const terms = { amount: route.amount, maxTimeoutSeconds: route.maxTimeoutSeconds, resource: route.url, description: route.description };
  return {
    ok: true,
    requirements: requirementsOf(terms),
    amount: route.amount,
    nonce: '',
    nonceExpiresAt: route.now + route.maxTimeoutSeconds * 1000,
  };
}

/**
 * v2 names the paywall's nonce (extra.memo): one it issued, for this route, not yet used; in time, or
 * one a settlement began under before it ended.
 */
function v2Match(
  requirementsOf: (terms: V2Terms) => PaymentRequirements,
  payload: PaymentPayload,
  route: Route,
  paywall: { nonces: Nonces; store: PaywallStore },
): PaymentMatch | X402Refusal {
  const memo = payload.accepted?.extra?.memo;
  if (typeof memo !== 'string') return refuse('unknown_nonce', 'the x402 payment names no nonce of this paywall (extra.memo)');
  const reading = paywall.nonces.read(memo, route.resource);
  if (!reading.ok)
    return refuse(
      reading.code,
      reading.code === 'wrong_resource' ? 'this payment was for another route' : 'this payment names a nonce this paywall never issued',
    );
  // An ended nonce buys nothing, unless a settlement of a payment under it began in time (left
  // pending, 503): that payment is served where the chain shows it ran (verifiedAndSettled), as the
  // buyer whose money it took was told to present it again.
  if (route.now > reading.terms.expiresAt && paywall.store.pendingSettlement(memo) === null)
    return refuse('receipt_expired', 'the nonce this payment names has expired; pay the fresh terms');
  if (paywall.store.isNonceUsed(memo)) return refuse('receipt_already_used', 'this nonce was already paid and used');
  const amount = reading.terms.amount > route.amount ? reading.terms.amount : route.amount;
  return {
    ok: true,
    requirements: requirementsOf({ amount, maxTimeoutSeconds: route.maxTimeoutSeconds, nonce: memo }),
    amount,
    nonce: memo,
    nonceExpiresAt: reading.terms.expiresAt,
  };
}

/**
 * A settled payment remembered (its transaction, or its nonce, buys one answer), and the answer's
 * header that says it was settled.
 */
function recorded(
  store: PaywallStore,
  rail: Rail,
  payload: PaymentPayload,
  /** `claim`: what the payment uses up (claimOf), beside its transaction. */
  match: PaymentMatch & { claim: string },
  { settled, payer }: Settlement,
  now: number,
  /**
   * On an EVM chain a facilitator may run several authorizations in one transaction, each a payment
   * of its own, accepted once by its authorization: the one the settled transaction was seen to run
   * (authorizationRan). Null for any other payment, which is its transaction alone.
   */
  authorization: string | null,
): X402Acceptance | X402Refusal {
  const { amount, nonce, claim } = match;
  // An EVM transaction hash in one spelling (Coffer receipts name it in lower case): one
  // transaction is one answer however the facilitator spells it.
  const transaction = /^0x[0-9a-fA-F]{64}$/.test(settled.transaction) ? settled.transaction.toLowerCase() : settled.transaction;
  const accepted = store.accept({
    txSignature: transaction,
    ...(authorization === null ? {} : { authorization }),
    // A v1 payment names no nonce of the paywall's: it uses up its claim (claimOf: `v1:` and its
    // digest), found used when it is presented again; one of no claim, its transaction.
    nonce: nonce !== '' ? nonce : claim !== '' ? claim : `x402:${settled.transaction}${authorization === null ? '' : `:${authorization}`}`,
    payer,
    amount,
    acceptedAt: now,
    nonceExpiresAt: match.nonceExpiresAt,
  });
  if (!accepted) return refuse('receipt_already_used', 'this payment was already accepted');
  return {
    ok: true,
    payment: { rail, payer, amount, txSignature: transaction, nonce },
    response: {
      name: payload.x402Version === 1 ? 'X-PAYMENT-RESPONSE' : 'PAYMENT-RESPONSE',
      value: encodePaymentResponseHeader(settled),
    },
  };
}

/**
 * The EIP-3009 authorization a payment on an EVM chain carries, where the transaction its facilitator
 * settled is seen to have run it (its `AuthorizationUsed` log): what keys the payment among others
 * the same transaction ran. Security invariant: a field of the buyer's payload is never the key on
 * its word (a Solana payload, a Permit2 one, or an authorization that transaction did not run could
 * name any nonce, and so buy an answer again with one transaction): null then, and the payment is
 * its transaction alone. Throws where the chain cannot be read now (below).
 */
async function authorizationRan(base: PaywallBaseTerms, payload: PaymentPayload, transaction: string): Promise<string | null> {
  const carried = carriedAuthorization(payload);
  if (carried === null) return null;
  // A chain that cannot be read now throws (503): recorded by its transaction alone, this payment
  // would take the answer of every other payment that transaction ran (a facilitator batching
  // them), whose money moved too. Presented again, it is found where it ran (verifiedAndSettled).
  const ran = await base.ranAuthorization(transaction, carried.from, carried.nonce);
  return ran ? carried.nonce : null;
}
