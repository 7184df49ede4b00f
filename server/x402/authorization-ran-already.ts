import { createHash } from 'node:crypto';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, isAddress, type Address } from 'viem';
import type { CarriedAuthorization } from '../chain/evm/transfer-lookup.js';
import type { PaywallStore } from './paywall-store.js';

/** Whether a transaction ran an authorization paying what it says (the paywall's Base lookup). */
export interface AuthorizationPayments {
  paidInTransaction(txHash: string, authorization: CarriedAuthorization): Promise<boolean>;
}

/** A Base payment's settlement as the chain may show it, for verifiedAndSettled (x402-settlement.ts). */
export interface PaidBefore {
  /** The facilitator sent the payment's transaction and has not seen it confirmed: remembered with the payment. */
  leftPending(transaction: string): void;
  /**
   * The transaction remembered for this very payment, where the chain shows it ran it paying what it
   * says: null where none was remembered, or it did not (dropped, reverted, another authorization).
   * Throws while that transaction is known to the node but not mined (503).
   */
  ranIn(): Promise<{ transaction: string; payer: Address } | null>;
}

/**
 * The EIP-3009 authorization an x402 payment on an EVM chain carries, its fields checked for shape;
 * null for any other payload (a Solana one, Permit2).
 */
export function carriedAuthorization(payload: PaymentPayload): CarriedAuthorization | null {
  const carried = payload.payload as { authorization?: Record<string, unknown>; signature?: unknown; permit2Authorization?: unknown };
  const { from, to, value, nonce, validAfter, validBefore } = carried.authorization ?? {};
  if (carried.permit2Authorization !== undefined || typeof carried.signature !== 'string') return null;
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

/** The whole authorization as presented, its signature with it: the payment remembered is this one, not another under its nonce. */
const digestOf = (authorization: CarriedAuthorization, payload: PaymentPayload) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        authorization.from,
        authorization.to,
        authorization.value.toString(),
        authorization.validAfter.toString(),
        authorization.validBefore.toString(),
        authorization.nonce,
        String((payload.payload as { signature: string }).signature).toLowerCase(),
      ]),
    )
    .digest('hex');

/**
 * A v2 payment on Base whose settlement the facilitator left pending (503), presented again to the
 * paywall restarted since: the facilitator then refuses it (its verify finds the authorization used)
 * though its transaction may have paid the seller. Where it did, the payment is settled there.
 *
 * Security invariants:
 * - A landed authorization is public (its transaction's calldata carries every field and the
 *   signature), so it proves nothing of who presents it. Only the payment this paywall's facilitator
 *   left pending is looked for, remembered durably with the paywall's nonce it spends, which never
 *   goes on chain: whoever presents it again holds what only the buyer and the seller saw.
 * - Only the transaction the facilitator sent for it counts, not wherever the authorization ran: a
 *   second paywall of the seller's (a store of its own) that settled the same authorization first
 *   would otherwise see its answer bought again here. (Through one facilitator, which resumes a
 *   pending settlement for any payment of the same signature, such paywalls share one store file:
 *   docs/API.md.)
 * - That transaction must show the authorization paying exactly what it says, from that payer, to
 *   this recipient (a payer may sign two authorizations with one nonce).
 * A v1 payment names no nonce of the paywall's: none of this.
 */
export function paidBefore(
  store: Pick<PaywallStore, 'rememberPending' | 'pendingSettlement'>,
  chain: AuthorizationPayments,
  payment: {
    payload: PaymentPayload;
    /** The paywall's nonce the payment spends (extra.memo). */
    memo: string;
    recipient: string;
    amount: bigint;
    nonceExpiresAt: number;
  },
): PaidBefore | null {
  const authorization = carriedAuthorization(payment.payload);
  if (payment.memo === '' || authorization === null) return null;
  if (authorization.to !== getAddress(payment.recipient) || authorization.value !== payment.amount) return null;
  const digest = digestOf(authorization, payment.payload);
  return {
    leftPending: (transaction) =>
      store.rememberPending({ nonce: payment.memo, authorization: digest, transaction, nonceExpiresAt: payment.nonceExpiresAt }),
    async ranIn() {
      const pending = store.pendingSettlement(payment.memo);
      if (pending === null || pending.authorization !== digest) return null;
      const paid = await chain.paidInTransaction(pending.transaction, authorization);
      return paid ? { transaction: pending.transaction, payer: authorization.from } : null;
    },
  };
}
