/**
 * A seller's x402 offer in Coffer's terms (server/core/ports/x402.ts): each `accepts` entry read
 * loosely, whatever its version, and the entry a chosen requirement came from, for the package to sign.
 */
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { X402Offer, X402Requirement } from '../../core/ports/x402.js';

/** An accepts entry (v1: `maxAmountRequired`; v2: `amount`) in Coffer's terms. */
export function toRequirement(entry: unknown): X402Requirement {
  const loose = entry as {
    scheme: string;
    network: string;
    amount?: string;
    maxAmountRequired?: string;
    asset: string;
    payTo: string;
    maxTimeoutSeconds?: unknown;
    extra?: Record<string, unknown>;
  };
  const amount = loose.amount ?? loose.maxAmountRequired ?? '';
  const feePayer = loose.extra?.feePayer;
  return {
    scheme: loose.scheme,
    network: loose.network,
    // One spelling only (no leading zero, sign or space): what is judged is what the package signs.
    amount: /^(0|[1-9]\d{0,19})$/.test(amount) ? BigInt(amount) : -1n,
    asset: loose.asset,
    payTo: loose.payTo,
    feePayer: typeof feePayer === 'string' ? feePayer : null,
    maxTimeoutSeconds:
      typeof loose.maxTimeoutSeconds === 'number' && Number.isSafeInteger(loose.maxTimeoutSeconds) ? loose.maxTimeoutSeconds : null,
    extra: loose.extra ?? {},
  };
}

/**
 * Whether two requirements say the same, `extra` and all: two entries may differ only there (one by
 * Permit2, one by EIP-3009 on one network), and the one chosen is the one the package must sign.
 */
const sameRequirement = (a: X402Requirement, b: X402Requirement) =>
  a.scheme === b.scheme &&
  a.network === b.network &&
  a.amount === b.amount &&
  a.asset === b.asset &&
  a.payTo === b.payTo &&
  a.feePayer === b.feePayer &&
  a.maxTimeoutSeconds === b.maxTimeoutSeconds &&
  JSON.stringify(a.extra) === JSON.stringify(b.extra);

/** The offer's entry a requirement was read from, as the official package parsed it. */
export function chosenEntry(offer: X402Offer, requirement: X402Requirement): { required: PaymentRequired; chosen: PaymentRequirements } {
  const required = offer.source as PaymentRequired;
  const accepts: PaymentRequirements[] = required.accepts;
  const chosen = accepts.find((entry) => sameRequirement(toRequirement(entry), requirement));
  if (chosen === undefined) throw new Error('the requirement to sign is not one of the offer');
  return { required, chosen };
}
