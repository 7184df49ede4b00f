/**
 * What an x402 payment presented to a paywall must match: its header read, the rail it names, and
 * the terms this paywall offered there, rebuilt (v1: the route's price; v2: the paywall's nonce,
 * issued for this route, unused, in time).
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import { readWireTransaction } from '../../chain/solana/wire-transaction.js';
import type { Rail } from '../../wire/rails.js';
import type { PaymentTerms } from '../payment-required.js';
import type { Nonces } from './nonces.js';
import type { Rails } from './paywall-rails.js';
import type { PaywallStore } from './paywall-store.js';
import { claimUsed } from './payment-claims.js';
import { refuse, type X402Refusal } from './x402-refusal.js';
import { evmV1Requirements, evmV2Requirements, v1Requirements, v2Requirements, type X402BaseSeller } from './x402-requirements.js';

/** The terms a v1 and a v2 requirement are made of. */
type V1Terms = Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'resource' | 'description'>;
type V2Terms = Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'nonce'>;

/** The route an x402 payment is presented on, and when. */
export type Route = { resource: string; url: string; description: string; amount: bigint; maxTimeoutSeconds: number; now: number };

/**
 * What a payment must match: the requirements the facilitator checks it against, the amount, the
 * paywall's nonce it spends (none in v1) and until when that nonce is remembered.
 */
export type PaymentMatch = {
  ok: true;
  requirements: PaymentRequirements | PaymentRequirementsV1;
  amount: bigint;
  nonce: string;
  nonceExpiresAt: number;
};

/** The payment payload of a `PAYMENT-SIGNATURE` (or x402 `X-PAYMENT`) header. */
export function decodePayment(header: string): { ok: true; payload: PaymentPayload } | X402Refusal {
  try {
    const parsed = parsePaymentPayload(decodePaymentSignatureHeader(header));
    if (!parsed.success) return refuse('invalid_payment', 'the x402 payment does not follow the protocol');
    return { ok: true, payload: parsed.data as PaymentPayload };
  } catch {
    return refuse('invalid_payment', 'the x402 payment header is not base64 JSON');
  }
}

/** The rail of this paywall's a payment names (x402's v1 or v2 name of its network); a refusal for any other. */
export function railOf(payload: PaymentPayload, { sol, base }: Pick<Rails, 'sol' | 'base'>): Rail | X402Refusal {
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
export async function matchOn(rail: Rail, payload: PaymentPayload, route: Route, rails: Rails): Promise<PaymentMatch | X402Refusal> {
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

/**
 * The fee payer a Solana payment's terms are rebuilt with: the one its transaction names, where the
 * facilitator names it among its own (it names one of its keys at random each time it is asked,
 * and may have named another since); else the one it names now.
 */
function feePayerFor(payload: PaymentPayload, said: { feePayer: string; feePayers: string[] }): string {
  const named = feePayerOf(payload);
  return named !== null && said.feePayers.includes(named) ? named : said.feePayer;
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

export const hasV1Name = (base: X402BaseSeller): base is X402BaseSeller & { names: { v1: string } } => base.names.v1 !== null;

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
  if (paywall.store.isNonceUsed(memo)) return claimUsed(memo);
  const amount = reading.terms.amount > route.amount ? reading.terms.amount : route.amount;
  return {
    ok: true,
    requirements: requirementsOf({ amount, maxTimeoutSeconds: route.maxTimeoutSeconds, nonce: memo }),
    amount,
    nonce: memo,
    nonceExpiresAt: reading.terms.expiresAt,
  };
}
