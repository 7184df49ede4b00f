import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';
import { x402Facilitator } from '@x402/core/facilitator';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import type { KeyPairSigner } from '@solana/kit';
import { x402Networks } from '../chain/networks.js';
import type { PaymentTerms } from './payment-required.js';
import type { Nonces } from './nonces.js';
import type { PaywallStore } from './paywall-store.js';
import type { VerifiedPayment } from './verify-receipt.js';

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

/** A settlement the facilitator sent but has not seen confirmed (`@x402/core`'s own name for it). */
const SETTLEMENT_PENDING = 'settlement_pending';

export type X402Refusal = { ok: false; code: X402RefusalCode; reason: string };

export type X402RefusalCode =
  'invalid_payment' | 'unknown_nonce' | 'wrong_resource' | 'receipt_expired' | 'receipt_already_used' | 'payment_rejected';

/** How long the facilitator's fee payer is kept before it is asked again (the official v1 middleware asks each time). */
const FEE_PAYER_KEPT_MS = 60_000;
/** How soon after a refusal made it ask again another refusal may. */
const FEE_PAYER_ASKED_AGAIN_MS = 5_000;

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
  let feePayer: Promise<string | null> | null = null;
  let askedAt = 0;
  const askFacilitator = async (): Promise<string | null> => {
    try {
      const supported = await options.facilitator.getSupported();
      const kind = supported.kinds.find((entry) => entry.scheme === 'exact' && entry.network === names.v2);
      const address = kind?.extra?.feePayer;
      if (typeof address !== 'string') throw new Error(`it pays no fees on ${names.v2}`);
      return address;
    } catch (error) {
      options.log(`paywall: the x402 facilitator could not be asked: ${(error as Error).message}`);
      return null;
    }
  };
  /**
   * The facilitator's fee payer for this network, kept a while: asked again after FEE_PAYER_KEPT_MS,
   * and at once after the facilitator refused a payment (it may have restarted with another key, and
   * every offer naming the old one would be refused), at most every FEE_PAYER_ASKED_AGAIN_MS so a
   * stream of bad payments cannot make it ask for each one. A failure (no answer, or no fee payer
   * for this network) is logged and asked again next time, never kept.
   */
  const feePayerOf = (): Promise<string | null> => {
    const now = Date.now();
    if (now - askedAt > FEE_PAYER_KEPT_MS) feePayer = null;
    if (feePayer === null) {
      askedAt = now;
      const asking = askFacilitator();
      feePayer = asking;
      // No answer is never kept, unless a newer question replaced it meanwhile.
      void asking.then((fee) => {
        if (fee === null && feePayer === asking) feePayer = null;
      });
    }
    return feePayer;
  };
  let refusedAt = 0;
  /** After a refusal: the fee payer is asked again, unless a refusal made it ask a moment ago. */
  const askFeePayerAgain = () => {
    const now = Date.now();
    if (now - refusedAt <= FEE_PAYER_ASKED_AGAIN_MS) return;
    refusedAt = now;
    feePayer = null;
  };

  const v2Requirements = (terms: Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'nonce'>, fee: string): PaymentRequirements => ({
    scheme: 'exact',
    network: names.v2 as `${string}:${string}`,
    amount: terms.amount.toString(),
    asset: options.usdcMint,
    payTo: options.recipient,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: { feePayer: fee, memo: terms.nonce },
  });
  const v1Requirements = (
    terms: Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'resource' | 'description'>,
    fee: string,
  ): PaymentRequirementsV1 => ({
    scheme: 'exact',
    network: names.v1 as PaymentRequirementsV1['network'],
    maxAmountRequired: terms.amount.toString(),
    resource: terms.resource,
    description: terms.description,
    mimeType: 'application/json',
    outputSchema: {},
    payTo: options.recipient,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    asset: options.usdcMint,
    extra: { feePayer: fee },
  });

  return {
    /** What a 402 adds for x402 clients; nothing when the facilitator cannot be asked (receipts still work). */
    async offers(
      terms: PaymentTerms,
      error: string,
    ): Promise<{ body: { x402Version: 1; accepts: PaymentRequirementsV1[] }; header: string } | null> {
      const fee = await feePayerOf();
      if (fee === null) return null;
      const required: PaymentRequired = {
        x402Version: 2,
        error,
        resource: { url: terms.resource, description: terms.description, mimeType: 'application/json' },
        accepts: [v2Requirements(terms, fee)],
      };
      return { body: { x402Version: 1, accepts: [v1Requirements(terms, fee)] }, header: encodePaymentRequiredHeader(required) };
    },

    /**
     * Checks, verifies and settles an x402 payment for this route. Throws only when the facilitator
     * cannot be reached (the caller answers 503, and the payment can be presented again).
     */
    async accept(
      header: string,
      route: { resource: string; url: string; description: string; amount: bigint; maxTimeoutSeconds: number; now: number },
    ): Promise<{ ok: true; payment: VerifiedPayment; response: { name: string; value: string } } | X402Refusal> {
      const refuse = (code: X402RefusalCode, reason: string): X402Refusal => ({ ok: false, code, reason });
      let payload: PaymentPayload;
      try {
        const parsed = parsePaymentPayload(decodePaymentSignatureHeader(header));
        if (!parsed.success) return refuse('invalid_payment', 'the x402 payment does not follow the protocol');
        payload = parsed.data as PaymentPayload;
      } catch {
        return refuse('invalid_payment', 'the x402 payment header is not base64 JSON');
      }
      const fee = await feePayerOf();
      if (fee === null) throw new Error('the x402 facilitator cannot be reached');
      let requirements: PaymentRequirements | PaymentRequirementsV1;
      let nonce: string;
      let nonceExpiresAt: number;
      if (payload.x402Version === 1) {
        // v1 carries no seller nonce: the transaction itself is the one-time token (the facilitator
        // lands it once; the paywall remembers it).
        requirements = v1Requirements(
          { amount: route.amount, maxTimeoutSeconds: route.maxTimeoutSeconds, resource: route.url, description: route.description },
          fee,
        );
        nonce = '';
        nonceExpiresAt = route.now + route.maxTimeoutSeconds * 1000;
      } else {
        const memo = payload.accepted?.extra?.memo;
        if (typeof memo !== 'string') return refuse('unknown_nonce', 'the x402 payment names no nonce of this paywall (extra.memo)');
        const reading = options.nonces.read(memo, route.resource);
        if (!reading.ok)
          return refuse(
            reading.code,
            reading.code === 'wrong_resource'
              ? 'this payment was for another route'
              : 'this payment names a nonce this paywall never issued',
          );
        if (route.now > reading.terms.expiresAt)
          return refuse('receipt_expired', 'the nonce this payment names has expired; pay the fresh terms');
        if (options.store.isNonceUsed(memo)) return refuse('receipt_already_used', 'this nonce was already paid and used');
        const amount = reading.terms.amount > route.amount ? reading.terms.amount : route.amount;
        requirements = v2Requirements({ amount, maxTimeoutSeconds: route.maxTimeoutSeconds, nonce: memo }, fee);
        nonce = memo;
        nonceExpiresAt = reading.terms.expiresAt;
      }
      const verified = await options.facilitator.verify(payload, requirements as PaymentRequirements);
      if (!verified.isValid) askFeePayerAgain();
      if (!verified.isValid)
        return refuse(
          'payment_rejected',
          `the facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}${verified.invalidMessage ? ` (${verified.invalidMessage})` : ''}`,
        );
      // As the official resource server does: a settlement still pending (sent, not yet confirmed) is
      // asked once more; still pending, the outcome is unknown, so the answer is 503 and the nonce
      // stays unused: the same payment presented again is settled then (the facilitator keeps it).
      const settle = () => options.facilitator.settle(payload, requirements as PaymentRequirements);
      const pending = (result: { success: boolean; errorReason?: string; transaction?: string }) =>
        !result.success && result.errorReason === SETTLEMENT_PENDING && Boolean(result.transaction);
      let settled = await settle();
      if (pending(settled)) settled = await settle();
      if (pending(settled)) throw new Error(`the facilitator has not finished settling ${settled.transaction}`);
      if (!settled.success) askFeePayerAgain();
      if (!settled.success)
        return refuse(
          'payment_rejected',
          `the payment could not be settled: ${settled.errorReason ?? 'failed'}${settled.errorMessage ? ` (${settled.errorMessage})` : ''}`,
        );
      const payer = settled.payer ?? verified.payer ?? '';
      const amount = BigInt(
        payload.x402Version === 1
          ? (requirements as PaymentRequirementsV1).maxAmountRequired
          : (requirements as PaymentRequirements).amount,
      );
      const accepted = options.store.accept({
        txSignature: settled.transaction,
        nonce: nonce === '' ? `x402:${settled.transaction}` : nonce,
        payer,
        amount,
        acceptedAt: route.now,
        nonceExpiresAt,
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
    },
  };
}

export type PaywallX402 = ReturnType<typeof createPaywallX402>;
