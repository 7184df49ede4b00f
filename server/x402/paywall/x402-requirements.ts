import type { PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import type { PaymentTerms } from '../payment-required.js';

/** Who an x402 payment pays, in which token, on the network as x402 names it (v1 and v2). */
export interface X402Seller {
  names: { v1: string; v2: string };
  usdcMint: string;
  recipient: string;
}

/** Who an x402 payment on Base pays: the chain as x402 names it (v1 only where it has a name), its USDC and that token's EIP-712 name and version. */
export interface X402BaseSeller {
  names: { v1: string | null; v2: string };
  usdc: string;
  recipient: string;
}

/** x402 v2's terms: the paywall's nonce as `extra.memo`, so the payment's transaction carries it on chain. */
export const v2Requirements = (
  seller: X402Seller,
  terms: Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'nonce'>,
  fee: string,
): PaymentRequirements => ({
  scheme: 'exact',
  network: seller.names.v2 as `${string}:${string}`,
  amount: terms.amount.toString(),
  asset: seller.usdcMint,
  payTo: seller.recipient,
  maxTimeoutSeconds: terms.maxTimeoutSeconds,
  extra: { feePayer: fee, memo: terms.nonce },
});

/** x402 v1's terms (an `accepts` entry in the 402's body): no nonce, the route's URL as its resource. */
export const v1Requirements = (
  seller: X402Seller,
  terms: Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'resource' | 'description'>,
  fee: string,
): PaymentRequirementsV1 => ({
  scheme: 'exact',
  network: seller.names.v1 as PaymentRequirementsV1['network'],
  maxAmountRequired: terms.amount.toString(),
  resource: terms.resource,
  description: terms.description,
  mimeType: 'application/json',
  outputSchema: {},
  payTo: seller.recipient,
  maxTimeoutSeconds: terms.maxTimeoutSeconds,
  asset: seller.usdcMint,
  extra: { feePayer: fee },
});

/**
 * x402 v2's terms on Base: an EIP-3009 authorization of the token named by its EIP-712 domain (the
 * payer signs over it), the paywall's nonce as `extra.memo` (checked by the paywall, not on chain:
 * the authorization's own nonce is the payer's).
 */
export const evmV2Requirements = (
  seller: X402BaseSeller,
  terms: Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'nonce'>,
  token: { name: string; version: string },
): PaymentRequirements => ({
  scheme: 'exact',
  network: seller.names.v2 as `${string}:${string}`,
  amount: terms.amount.toString(),
  asset: seller.usdc,
  payTo: seller.recipient,
  maxTimeoutSeconds: terms.maxTimeoutSeconds,
  extra: { name: token.name, version: token.version, memo: terms.nonce },
});

/** x402 v1's terms on Base (where v1 names the chain): no nonce, the route's URL as its resource. */
export const evmV1Requirements = (
  seller: X402BaseSeller & { names: { v1: string } },
  terms: Pick<PaymentTerms, 'amount' | 'maxTimeoutSeconds' | 'resource' | 'description'>,
  token: { name: string; version: string },
): PaymentRequirementsV1 => ({
  scheme: 'exact',
  network: seller.names.v1 as PaymentRequirementsV1['network'],
  maxAmountRequired: terms.amount.toString(),
  resource: terms.resource,
  description: terms.description,
  mimeType: 'application/json',
  outputSchema: {},
  payTo: seller.recipient,
  maxTimeoutSeconds: terms.maxTimeoutSeconds,
  asset: seller.usdc,
  extra: { name: token.name, version: token.version },
});
