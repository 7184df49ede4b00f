/**
 * An x402 payment the facilitator settled, accepted: remembered in the paywall's store (a payment
 * buys one answer), and the header that tells the buyer so.
 */
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import type { Rail } from '../../wire/rails.js';
import type { PaymentMatch } from './payment-match.js';
import type { PaywallBaseTerms } from './paywall-rails.js';
import type { PaywallStore } from './paywall-store.js';
import { carriedAuthorization } from './settled-on-chain.js';
import type { VerifiedPayment } from './verify-receipt.js';
import { refuse, type X402Refusal } from './x402-refusal.js';
import type { Settlement } from './x402-settlement.js';

export type X402Acceptance = { ok: true; payment: VerifiedPayment; response: { name: string; value: string } };

/**
 * A settled payment remembered (its transaction, or its nonce, buys one answer), and the answer's
 * header that says it was settled.
 */
export function recorded(
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
  // An authorization the transaction was seen to run is its signer's: the payer kept (and an accepted
  // authorization found again by, payment-claims.ts), not the facilitator's word, which x402 lets it
  // leave out (helper 186: an accepted authorization under a fresh nonce then went to the facilitator).
  const payerRan = authorization === null ? payer : (carriedAuthorization(payload)?.from ?? payer);
  // An EVM transaction hash in one spelling (Coffer receipts name it in lower case): one
  // transaction is one answer however the facilitator spells it.
  const transaction = /^0x[0-9a-fA-F]{64}$/.test(settled.transaction) ? settled.transaction.toLowerCase() : settled.transaction;
  // The one guard that holds whatever came before: the store takes a transaction (and an EVM
  // authorization) and a nonce once, in one write. The checks before it (settling-now.ts, the claim
  // found used, payment-claims.ts) refuse a payment before its money moves; this one refuses its answer.
  const accepted = store.accept({
    txSignature: transaction,
    ...(authorization === null ? {} : { authorization }),
    // A v1 payment names no nonce of the paywall's: it uses up its claim (claimOf: `v1:` and its
    // digest), found used when it is presented again; one of no claim, its transaction.
    nonce: nonce !== '' ? nonce : claim !== '' ? claim : `x402:${settled.transaction}${authorization === null ? '' : `:${authorization}`}`,
    payer: payerRan,
    amount,
    acceptedAt: now,
    nonceExpiresAt: match.nonceExpiresAt,
  });
  if (!accepted) return refuse('receipt_already_used', 'this payment was already accepted');
  return {
    ok: true,
    payment: { rail, payer: payerRan, amount, txSignature: transaction, nonce },
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
export async function authorizationRan(base: PaywallBaseTerms, payload: PaymentPayload, transaction: string): Promise<string | null> {
  const carried = carriedAuthorization(payload);
  if (carried === null) return null;
  // A chain that cannot be read now throws (503): recorded by its transaction alone, this payment
  // would take the answer of every other payment that transaction ran (a facilitator batching
  // them), whose money moved too. Presented again, it is found where it ran (verifiedAndSettled).
  const ran = await base.ranAuthorization(transaction, carried.from, carried.nonce);
  return ran ? carried.nonce : null;
}

/**
 * An accepted payment's settlement forgotten: its one answer is given, so presented again it is a
 * replay (a v1 payment's, which names no nonce to be found used, refused at once rather than
 * searched for). Best effort: the acceptance stands; a row left (a store busy with another process)
 * costs a replay one search.
 */
export function forgetSettlement(store: PaywallStore, claim: string, log: (message: string) => void): void {
  try {
    store.settlementAccepted(claim);
  } catch (error) {
    log(`paywall: an accepted payment's settlement could not be forgotten: ${(error as Error).message}`);
  }
}
