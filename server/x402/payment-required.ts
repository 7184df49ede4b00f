import { z } from 'zod';
import { formatUsdc, tryParseUsdc } from '../wire/money.js';
import { payBodySchema } from '../wire/schemas.js';
import { ADDRESS_PATTERN } from '../wire/rails.js';
import { isEvmAddress, isZeroEvmAddress } from '../wire/rails.js';

/**
 * The body of a 402: Coffer's own fields (what the spec asks of a paid API: amount, currency,
 * recipient) plus the nonce to put in the payment's memo. Written once here, read by the paying
 * client below. It offers only what the paywall accepts: a Coffer receipt.
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
  /** Where the same terms are paid on Base too (a Coffer receipt of a payment there, with the same nonce). */
  base?: { recipient: string; network: string; chainId: number };
}

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
    ...(terms.base ? { base: terms.base } : {}),
    expiresInSeconds: terms.maxTimeoutSeconds,
  };
}

/** What a paying client needs out of a 402 in Coffer's form. */
export interface PaymentInstructions {
  amount: string;
  recipient: string;
  nonce: string | null;
  network: string | null;
  service: string | null;
  /** Where the same terms are paid on Base too: its recipient there, on the chain of that id. */
  base: { recipient: string; chainId: number } | null;
}

const address = z.string().regex(ADDRESS_PATTERN);
const decimal = z.string().refine((text) => tryParseUsdc(text) !== null && (tryParseUsdc(text) ?? 0n) > 0n);

const cofferForm = z.object({
  amount: decimal,
  currency: z.literal('USDC'),
  recipient: address,
  // As /pay takes a nonce (printable ASCII, it goes on chain as the memo): another is terms no payment carries.
  nonce: payBodySchema.shape.nonce,
  network: z.string().optional(),
  service: z.string().min(1).max(200).optional(),
  base: z
    .object({ recipient: z.string().refine((text) => isEvmAddress(text) && !isZeroEvmAddress(text)), chainId: z.number().int().positive() })
    .optional()
    // An offer on Base Coffer cannot read is no offer on Base: the terms on Solana stand.
    .catch(undefined),
});

/**
 * What a 402 offers. `coffer`: Coffer's own terms (paid through /pay, answered with a receipt).
 * `x402`: an x402 offer (a `PAYMENT-REQUIRED` header, or an `x402Version` body), which is completed
 * only by an x402 payment payload signed for the seller's facilitator: a Coffer receipt would pay
 * and buy nothing. `null`: no terms at all.
 */
export type Offer =
  | { kind: 'coffer'; instructions: PaymentInstructions }
  /** `signIn`: the seller also offers x402's `sign-in-with-x` (v2 only: a v1 body carries no extensions). */
  | { kind: 'x402'; version: number | null; signIn: boolean }
  | null;

export function readOffer(headers: Headers, body: unknown): Offer {
  const coffer = cofferForm.safeParse(body);
  if (coffer.success) {
    return {
      kind: 'coffer',
      instructions: {
        amount: coffer.data.amount,
        recipient: coffer.data.recipient,
        nonce: coffer.data.nonce ?? null,
        network: coffer.data.network ?? null,
        service: coffer.data.service ?? null,
        base: coffer.data.base ?? null,
      },
    };
  }
  const required = headers.get('payment-required');
  if (required !== null) return { kind: 'x402', version: 2, signIn: offersSignIn(required) };
  if (typeof body === 'object' && body !== null && ('x402Version' in body || 'accepts' in body)) {
    const version = (body as { x402Version?: unknown }).x402Version;
    return { kind: 'x402', version: typeof version === 'number' ? version : null, signIn: false };
  }
  return null;
}

/**
 * A PAYMENT-REQUIRED header's one value: a header a seller sends more than once reads as its copies
 * joined by commas (which base64 never holds), the same terms sent twice are those terms; null where
 * the copies differ (no offer to choose from), or there is none.
 */
export function onePaymentRequired(header: string): string | null {
  const copies = [...new Set(header.split(',').map((copy) => copy.trim()))].filter((copy) => copy !== '');
  return copies.length === 1 ? copies[0]! : null;
}

/** Whether a v2 PAYMENT-REQUIRED header (base64 JSON) carries x402's `sign-in-with-x` extension. */
function offersSignIn(header: string): boolean {
  const one = onePaymentRequired(header);
  if (one === null) return false;
  try {
    const required = JSON.parse(Buffer.from(one, 'base64').toString('utf8')) as { extensions?: Record<string, unknown> };
    return typeof required.extensions?.['sign-in-with-x'] === 'object';
  } catch {
    return false;
  }
}
