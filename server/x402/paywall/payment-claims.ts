/**
 * What a paywall claims an x402 payment under, once: the paywall's nonce it spends, or a v1 payment's
 * digest; the claim a paywall gave it before its digest changed; and whether the payment is a replay:
 * its claim already used, or the same payment already remembered under another claim (a fresh
 * nonce). Paywall-x402.ts asks these once it holds the claim, before it settles the payment (a
 * nonce's use is first looked at in payment-match.ts, before anything is asked of the chain);
 * settled-on-chain.ts remembers the settlement under the claim.
 */
import type { PaywallStore } from './paywall-store.js';
import { refuse, type X402Refusal } from './x402-refusal.js';

/** A payment whose claim was used: the nonce it names paid and used, or (v1, naming none) this payment accepted. */
export const claimUsed = (nonce: string): X402Refusal =>
  refuse('receipt_already_used', nonce === '' ? 'this payment was already accepted' : 'this nonce was already paid and used');

/**
 * A payment claimed (SettlingNow), before its money moves: refused where it is a replay. Found unused
 * before the claim, its nonce may have been paid by another payment since (settled and recorded while
 * this one awaited the facilitator's word). A v1 payment is recorded under its claim (its digest):
 * presented again, it is a replay, refused here rather than left to a facilitator, whose duplicate
 * cache says only "try again" (503); its claim before the digest changed counts too (a v1 payment
 * accepted before the upgrade). And the facilitator resumes a settlement it sent by the payment's
 * signature alone: this very payment presented first under another nonce (or as v1) is that one's,
 * settled or not. Null: no replay (and what a paywall before the upgrade remembered of it is taken
 * over under today's digest). An EVM authorization accepted under another claim is a replay too.
 */
export function replayOfClaimed(
  store: Pick<
    PaywallStore,
    'isNonceUsed' | 'isAuthorizationAccepted' | 'pendingSettlement' | 'settlementDigestChanged' | 'settlingUnderAnotherNonce'
  >,
  claim: string,
  nonce: string,
  settling: PaymentDigests | null,
): X402Refusal | null {
  const formerClaim = formerClaimOf(claim, settling);
  if (claim !== '' && (store.isNonceUsed(claim) || (formerClaim !== null && store.isNonceUsed(formerClaim)))) return claimUsed(nonce);
  // An authorization accepted under another claim (a fresh nonce, or as v1) ran: the token refuses
  // it again, so a facilitator asked would answer a failed simulation, or send a transaction that
  // reverts at its own cost (helper 182).
  if (settling?.authorization && store.isAuthorizationAccepted(settling.authorization.payer, settling.authorization.nonce)) {
    return claimUsed('');
  }
  adoptFormerDigest(store, claim, settling);
  if (presentedUnderAnotherNonce(store, claim, settling)) {
    return refuse('receipt_already_used', 'this payment was presented first under another nonce of this paywall');
  }
  return null;
}

/** A payment as a paywall remembers it: its digest today, and the one a paywall before gave it. */
export interface PaymentDigests {
  /**
   * The payment, whatever shape it is presented in: an EIP-3009 authorization's fields (USDC runs one
   * authorization of a payer's nonce once, however its signature is spelled), a Solana transaction's
   * message (the one transaction, whatever bytes the signature slots its facilitator fills hold).
   * The one remembered, not another under its nonce.
   */
  digest: string;
  /**
   * The digest a paywall before 2026-11-28 gave the same payment (an authorization's signature with
   * its fields), or before 2026-11-30 on Solana (the whole wire transaction), where it differs: what
   * such a paywall remembered is taken over (adoptFormerDigest).
   */
  formerDigest: string | null;
  /**
   * An EIP-3009 authorization's payer and nonce, which the token runs once whatever else it says;
   * null on Solana. Accepted once, under whatever claim, it is a replay under any other.
   */
  authorization: { payer: string; nonce: string } | null;
}

/**
 * What a payment is claimed and remembered under: the paywall's nonce it spends (v2), or, for a v1
 * payment, which names none, `v1:` and its digest; '' where it is no payment of the route's terms.
 */
export const claimOf = (nonce: string, settling: Pick<PaymentDigests, 'digest'> | null): string =>
  nonce !== '' ? nonce : settling === null ? '' : `v1:${settling.digest}`;

/**
 * The claim a paywall before its digest changed gave this payment, where it differs: a v1 payment's,
 * which is its digest (a v2 payment's is the nonce it names, the same). Accepted under it, the payment
 * is used (paywall-x402.ts), as under today's.
 */
export function formerClaimOf(claim: string, settling: PaymentDigests | null): string | null {
  if (settling === null || settling.formerDigest === null || !claim.startsWith('v1:')) return null;
  return claimOf('', { digest: settling.formerDigest });
}

/**
 * What a paywall before its digest changed (2026-11-28 on Base, 2026-11-30 on Solana) remembered of
 * this payment under the digest it gave it then (and a v1 payment's claim with it), taken over under
 * today's: a payment whose settlement was left pending across the upgrade is still settled where it
 * ran. Such rows live a day at most (pruned).
 */
export function adoptFormerDigest(
  store: Pick<PaywallStore, 'pendingSettlement' | 'settlementDigestChanged'>,
  claim: string,
  settling: PaymentDigests | null,
): void {
  if (settling === null || settling.formerDigest === null) return;
  const formerClaim = formerClaimOf(claim, settling) ?? claim;
  // Read first: each payment presented passes here, and a write would take the store's lock
  // (which paywalls sharing the file take turns at) for a row that is almost never there.
  if (store.pendingSettlement(formerClaim)?.digest !== settling.formerDigest) return;
  store.settlementDigestChanged({ nonce: formerClaim, digest: settling.formerDigest }, { nonce: claim, digest: settling.digest });
}

/**
 * Whether this very payment (`settling`'s digest) is remembered under another claim than `claim`
 * (claimOf: another of the paywall's nonces, or as v1). Its settlement began there, and the
 * facilitator resumes a settlement it sent by the payment's signature alone (an EVM payment's
 * authorization carries no nonce of the paywall's, and where a chain's pending transactions are
 * public, whoever read it in flight could present it under a fresh nonce, or as v1).
 */
export const presentedUnderAnotherNonce = (
  store: Pick<PaywallStore, 'settlingUnderAnotherNonce'>,
  claim: string,
  settling: PaymentDigests | null,
): boolean =>
  settling !== null &&
  (store.settlingUnderAnotherNonce(claim, settling.digest) ||
    // Remembered under its former digest (before the upgrade), under another claim than its own then.
    (settling.formerDigest !== null && store.settlingUnderAnotherNonce(formerClaimOf(claim, settling) ?? claim, settling.formerDigest)));
