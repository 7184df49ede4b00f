import type { PaymentPayload } from '@x402/core/types';
import { getAddress, isAddress, type Address, type Hash } from 'viem';
import type { CarriedAuthorization } from '../chain/evm/transfer-lookup.js';
import type { PaywallStore } from './paywall-store.js';

/** Where the chain shows an authorization's nonce paid what it says (the paywall's Base lookup). */
export interface AuthorizationPayments {
  paidByAuthorization(authorization: CarriedAuthorization, earliest: bigint): Promise<Hash | null>;
}

/** A Base payment's settlement as the chain may show it, for verifiedAndSettled (x402-settlement.ts). */
export interface PaidBefore {
  /** The facilitator found the payment good: its authorization is remembered with the paywall's nonce it spends. */
  verified(): void;
  /**
   * Where the authorization remembered for this payment paid it: null where none was remembered (the
   * payment was never found good here), or the chain shows it did not pay so. Throws where it was
   * used but the node does not show where yet (the outcome is unknown: 503).
   */
  ranIn(): Promise<{ transaction: Hash; payer: Address } | null>;
}

/**
 * How far before the payment was first found good (or its window's start, the offer's timeout before
 * its end, if earlier) its landing is looked for: clocks differ (the official buyer opens its window
 * 600 s back, and a node's time lags).
 */
const CLOCK_SLACK_SECONDS = 900n;

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
    nonce: nonce.toLowerCase() as Hash,
    validAfter: BigInt(validAfter),
    validBefore: BigInt(validBefore),
  };
}

/**
 * A v2 payment on Base whose authorization may run before the paywall sees it settled: the
 * facilitator's settlement left pending (503) and the paywall restarted since, or stopped between
 * the settlement and its record. The facilitator then refuses it (its verify finds the nonce used)
 * though the money arrived, and the chain says where it ran.
 *
 * Security invariant: a landed authorization is public (its transaction's calldata carries every
 * field and the signature), so it proves nothing of who presents it. Only the authorization the
 * facilitator found good (signed, unused, paying this route) when first presented with the
 * paywall's nonce is looked for, remembered durably with that nonce, which never goes on chain:
 * whoever presents it again holds what only the buyer and the seller saw. And the chain must show
 * its nonce used in a transfer of exactly that sum from that payer to this recipient (a payer may
 * sign two authorizations with one nonce). A v1 payment names no nonce of the paywall's: none.
 */
export function paidBefore(
  store: Pick<PaywallStore, 'rememberVerified' | 'verifiedAuthorization'>,
  chain: AuthorizationPayments,
  payment: {
    payload: PaymentPayload;
    /** The paywall's nonce the payment spends (extra.memo). */
    memo: string;
    recipient: string;
    amount: bigint;
    maxTimeoutSeconds: number;
    nonceExpiresAt: number;
    now: number;
  },
): PaidBefore | null {
  const authorization = carriedAuthorization(payment.payload);
  if (payment.memo === '' || authorization === null) return null;
  if (authorization.to !== getAddress(payment.recipient) || authorization.value !== payment.amount) return null;
  return {
    verified: () =>
      store.rememberVerified({
        nonce: payment.memo,
        payer: authorization.from,
        authorization: authorization.nonce,
        verifiedAt: payment.now,
        nonceExpiresAt: payment.nonceExpiresAt,
      }),
    async ranIn() {
      const remembered = store.verifiedAuthorization(payment.memo);
      if (remembered === null || remembered.payer !== authorization.from || remembered.authorization !== authorization.nonce) return null;
      const verifiedAt = BigInt(Math.floor(remembered.verifiedAt / 1000));
      const opens = authorization.validBefore - BigInt(payment.maxTimeoutSeconds);
      const earliest = (verifiedAt < opens ? verifiedAt : opens) - CLOCK_SLACK_SECONDS;
      const transaction = await chain.paidByAuthorization(authorization, earliest);
      return transaction === null ? null : { transaction, payer: authorization.from };
    },
  };
}
