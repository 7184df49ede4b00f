import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';
import { x402Facilitator } from '@x402/core/facilitator';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import type { KeyPairSigner } from '@solana/kit';
import { x402Networks } from '../chain/solana/networks.js';
import type { PaymentTerms } from './payment-required.js';
import type { Nonces } from './nonces.js';
import type { PaywallStore } from './paywall-store.js';
import type { VerifiedPayment } from './verify-receipt.js';
import { facilitatorFeePayer } from './fee-payer.js';
import { refuse, type X402Refusal } from './x402-refusal.js';
import { v1Requirements, v2Requirements, type X402Seller } from './x402-requirements.js';
import { verifiedAndSettled, type Settlement } from './x402-settlement.js';

/**
 * Who verifies and settles x402 payments for a paywall: an official facilitator, in this process
 * (`inProcessFacilitator`, with a fee payer the seller funds with SOL) or at a URL (`facilitatorAt`).
 */
export type Facilitator = FacilitatorClient;

/**
 * The official facilitator (`@x402/core` + `@x402/svm`) in this process, paying fees from `feePayer`,
 * on a network x402 names (devnet, mainnet, or the demo's local cluster, which it knows as devnet).
 */
export function inProcessFacilitator(options: { feePayer: KeyPairSigner; rpcUrl: string; network: string }): Facilitator {
  const facilitator = new x402Facilitator();
  const names = x402Networks(options.network);
  if (names === null) throw new Error(`x402 names no network ${options.network}: its facilitator runs on devnet or mainnet`);
  registerExactSvmScheme(facilitator, {
    signer: toFacilitatorSvmSigner(options.feePayer, { defaultRpcUrl: options.rpcUrl }),
    networks: names.v2 as `${string}:${string}`,
  });
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
  };
}

/** A facilitator reached over HTTP (its `/supported`, `/verify`, `/settle`). */
export function facilitatorAt(url: string): Facilitator {
  return new HTTPFacilitatorClient({ url });
}

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

/**
 * The x402 face of a Coffer paywall (devnet and mainnet): its 402 offers the route in x402 v1 (an
 * `accepts` list in the body) and v2 (a `PAYMENT-REQUIRED` header, the paywall's nonce as
 * `extra.memo`, so the payment's transaction carries it on chain), both with the facilitator's fee
 * payer. A payment payload (`PAYMENT-SIGNATURE`, or `X-PAYMENT` that is not a Coffer receipt) is
 * checked against the terms this paywall issued (v2: its nonce, unused, for this route, in time),
 * then verified and settled by the facilitator before the route runs; the transaction it landed in
 * is remembered like a receipt's, so a payment buys one answer.
 */
export function createPaywallX402(options: {
  facilitator: Facilitator;
  network: string;
  usdcMint: string;
  recipient: string;
  store: PaywallStore;
  nonces: Nonces;
  log: (message: string) => void;
}) {
  const names = x402Networks(options.network);
  if (names === null) throw new Error(`x402 pays on devnet or mainnet; this paywall reads ${options.network}`);
  const seller: X402Seller = { names, usdcMint: options.usdcMint, recipient: options.recipient };
  const feePayer = facilitatorFeePayer(options.facilitator, names.v2, options.log);

  return {
    /** What a 402 adds for x402 clients; nothing when the facilitator cannot be asked (receipts still work). */
    async offers(
      terms: PaymentTerms,
      error: string,
    ): Promise<{ body: { x402Version: 1; accepts: PaymentRequirementsV1[] }; header: string } | null> {
      const fee = await feePayer.current();
      if (fee === null) return null;
      const required: PaymentRequired = {
        x402Version: 2,
        error,
        resource: { url: terms.resource, description: terms.description, mimeType: 'application/json' },
        accepts: [v2Requirements(seller, terms, fee)],
      };
      return { body: { x402Version: 1, accepts: [v1Requirements(seller, terms, fee)] }, header: encodePaymentRequiredHeader(required) };
    },

    /**
     * Checks, verifies and settles an x402 payment for this route. Throws only when the facilitator
     * cannot be reached (the caller answers 503, and the payment can be presented again).
     */
    async accept(header: string, route: Route): Promise<X402Acceptance | X402Refusal> {
      const decoded = decodePayment(header);
      if (!decoded.ok) return decoded;
      const { payload } = decoded;
      const fee = await feePayer.current();
      if (fee === null) throw new Error('the x402 facilitator cannot be reached');
      const match = payload.x402Version === 1 ? v1Match(seller, route, fee) : v2Match(seller, payload, route, fee, options);
      if (!match.ok) return match;
      const settlement = await verifiedAndSettled(options.facilitator, payload, match.requirements);
      if (!settlement.ok) {
        feePayer.refused();
        return settlement;
      }
      return recorded(options.store, payload, match, settlement, route.now);
    },
  };
}

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
function v1Match(seller: X402Seller, route: Route, fee: string): PaymentMatch {
  const terms = { amount: route.amount, maxTimeoutSeconds: route.maxTimeoutSeconds, resource: route.url, description: route.description };
  return {
    ok: true,
    requirements: v1Requirements(seller, terms, fee),
    amount: route.amount,
    nonce: '',
    nonceExpiresAt: route.now + route.maxTimeoutSeconds * 1000,
  };
}

/** v2 names the paywall's nonce (extra.memo): one it issued, for this route, in time, not yet used. */
function v2Match(
  seller: X402Seller,
  payload: PaymentPayload,
  route: Route,
  fee: string,
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
  if (route.now > reading.terms.expiresAt)
    return refuse('receipt_expired', 'the nonce this payment names has expired; pay the fresh terms');
  if (paywall.store.isNonceUsed(memo)) return refuse('receipt_already_used', 'this nonce was already paid and used');
  const amount = reading.terms.amount > route.amount ? reading.terms.amount : route.amount;
  return {
    ok: true,
    requirements: v2Requirements(seller, { amount, maxTimeoutSeconds: route.maxTimeoutSeconds, nonce: memo }, fee),
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
  payload: PaymentPayload,
  match: PaymentMatch,
  { settled, payer }: Settlement,
  now: number,
): X402Acceptance | X402Refusal {
  const { amount, nonce } = match;
  const accepted = store.accept({
    txSignature: settled.transaction,
    nonce: nonce === '' ? `x402:${settled.transaction}` : nonce,
    payer,
    amount,
    acceptedAt: now,
    nonceExpiresAt: match.nonceExpiresAt,
  });
  if (!accepted) return refuse('receipt_already_used', 'this payment was already accepted');
  return {
    ok: true,
    payment: { payer, amount, txSignature: settled.transaction, nonce },
    response: {
      name: payload.x402Version === 1 ? 'X-PAYMENT-RESPONSE' : 'PAYMENT-RESPONSE',
      value: encodePaymentResponseHeader(settled),
    },
  };
}
