import { z } from 'zod';
import { formatUsdc, tryParseUsdc } from '../core/money.js';
import { ADDRESS_PATTERN } from '../core/schemas.js';

/**
 * The body of a 402: Coffer's own fields (what the spec asks of a paid API: amount, currency,
 * recipient) plus the nonce to put in the payment's memo, and an x402 v1 `accepts` list so x402
 * clients can read the same price. Written once here, read by the paying client below.
 */
export interface PaymentTerms {
  /** micro-USDC */
  amount: bigint;
  recipient: string;
  network: string;
  usdcMint: string;
  nonce: string;
  resource: string;
  description: string;
  maxTimeoutSeconds: number;
  service?: string;
}

/** x402 names Solana clusters "solana" and "solana-devnet"; Coffer's embedded chain is a local one. */
export const x402Network = (network: string): string =>
  network === 'mainnet' ? 'solana' : network === 'devnet' ? 'solana-devnet' : 'solana-localnet';

export function paymentRequiredBody(terms: PaymentTerms, reason?: { code: string; error: string }) {
  return {
    error: reason?.error ?? 'payment required',
    code: reason?.code ?? 'payment_required',
    amount: formatUsdc(terms.amount),
    currency: 'USDC' as const,
    recipient: terms.recipient,
    network: terms.network,
    nonce: terms.nonce,
    ...(terms.service ? { service: terms.service } : {}),
    expiresInSeconds: terms.maxTimeoutSeconds,
    x402Version: 1,
    accepts: [
      {
        scheme: 'exact' as const,
        network: x402Network(terms.network),
        maxAmountRequired: terms.amount.toString(),
        resource: terms.resource,
        description: terms.description,
        mimeType: 'application/json',
        payTo: terms.recipient,
        maxTimeoutSeconds: terms.maxTimeoutSeconds,
        asset: terms.usdcMint,
        extra: { nonce: terms.nonce, ...(terms.service ? { service: terms.service } : {}) },
      },
    ],
  };
}

/** What a paying client needs out of a 402, whichever form the API used. */
export interface PaymentInstructions {
  amount: string;
  recipient: string;
  nonce: string | null;
  network: string | null;
  service: string | null;
  /** The token mint an x402 offer names (null in Coffer's own form, which is USDC by its currency). */
  asset: string | null;
}

const address = z.string().regex(ADDRESS_PATTERN);
const decimal = z.string().refine((text) => tryParseUsdc(text) !== null && (tryParseUsdc(text) ?? 0n) > 0n);

const cofferForm = z.object({
  amount: decimal,
  currency: z.literal('USDC'),
  recipient: address,
  nonce: z.string().min(1).max(200).optional(),
  network: z.string().optional(),
  service: z.string().min(1).max(200).optional(),
});

const x402Form = z.object({
  accepts: z.array(
    z.object({
      scheme: z.string(),
      network: z.string(),
      maxAmountRequired: z.string().regex(/^\d{1,18}$/),
      payTo: address,
      asset: z.string().optional(),
      extra: z.object({ nonce: z.string().min(1).max(200).optional(), service: z.string().optional() }).loose().optional(),
    }).loose(),
  ),
});

/** Reads a 402 body; null when it carries no USDC-on-Solana terms Coffer can pay. */
export function readPaymentInstructions(body: unknown): PaymentInstructions | null {
  const coffer = cofferForm.safeParse(body);
  if (coffer.success) {
    return {
      amount: coffer.data.amount,
      recipient: coffer.data.recipient,
      nonce: coffer.data.nonce ?? null,
      network: coffer.data.network ?? null,
      service: coffer.data.service ?? null,
      asset: null,
    };
  }
  const x402 = x402Form.safeParse(body);
  if (!x402.success) return null;
  const offer = x402.data.accepts.find((entry) => entry.scheme === 'exact' && entry.network.startsWith('solana'));
  if (!offer || BigInt(offer.maxAmountRequired) <= 0n) return null;
  return {
    amount: formatUsdc(BigInt(offer.maxAmountRequired)),
    recipient: offer.payTo,
    nonce: offer.extra?.nonce ?? null,
    network: offer.network,
    service: offer.extra?.service ?? null,
    asset: offer.asset ?? null,
  };
}
