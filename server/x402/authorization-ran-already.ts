import type { PaymentPayload } from '@x402/core/types';
import { getAddress, isAddress, type Address, type Hash } from 'viem';
import type { CarriedAuthorization } from '../chain/evm/transfer-lookup.js';

/** Where the chain shows an authorization's nonce paid what it says (the paywall's Base lookup). */
export interface AuthorizationPayments {
  paidByAuthorization(authorization: CarriedAuthorization, earliest: bigint): Promise<Hash | null>;
}

/**
 * How far before its end an x402 authorization's landing is looked for, past the offer's timeout: the
 * official buyer opens its window 600 s back (a buyer's clock behind), and 300 s more is a buyer's
 * clock ahead. A window drawn longer is looked at in that last part only.
 */
const BEFORE_THE_TIMEOUT_SECONDS = 900n;
/**
 * An authorization the chain did not show paying so is not looked for again for a minute (a node
 * whose log index lags may show it later), and at most this many are remembered at once: a payment
 * presented again and again costs the node one search a minute.
 */
const NOT_PAID_MS = 60_000;
const REMEMBERED = 10_000;

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
 * A payment on Base whose authorization already ran, presented to a paywall that did not see it
 * settled: its facilitator's settlement was left pending (503) and the paywall restarted since, or it
 * stopped between the settlement and its record. The facilitator now refuses it (its verify finds the
 * nonce used) though the money arrived: the chain says where it ran, and the payment is taken as
 * settled there where that authorization paid this route's recipient its price. Whether it was
 * already served is the store's to say (an accepted payment is its transaction and authorization).
 *
 * Security invariant: the payer's word is never the proof. The authorization must name this
 * recipient and price, and the chain must show its nonce used in a transfer of exactly that, from
 * that payer, to that recipient (a payer may sign two authorizations with one nonce).
 */
export function createRanAlready(payments: AuthorizationPayments) {
  /** Authorizations the chain did not show paying so, until when they are not looked for (ms). */
  const notPaid = new Map<string, number>();
  return {
    async transactionOf(
      payload: PaymentPayload,
      route: { recipient: string; amount: bigint; maxTimeoutSeconds: number; now: number },
    ): Promise<Hash | null> {
      const authorization = carriedAuthorization(payload);
      if (authorization === null) return null;
      if (authorization.to !== getAddress(route.recipient) || authorization.value !== route.amount) return null;
      const key = `${authorization.from}:${authorization.nonce}`;
      if ((notPaid.get(key) ?? -Infinity) >= route.now) return null;
      const earliest = authorization.validBefore - BigInt(route.maxTimeoutSeconds) - BEFORE_THE_TIMEOUT_SECONDS;
      const transaction = await payments.paidByAuthorization(authorization, earliest);
      if (transaction === null) {
        for (const [each, end] of notPaid) if (end < route.now) notPaid.delete(each);
        if (notPaid.size < REMEMBERED) notPaid.set(key, route.now + NOT_PAID_MS);
      }
      return transaction;
    },
  };
}

export type RanAlready = ReturnType<typeof createRanAlready>;
