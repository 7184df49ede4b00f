import type { PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import type { PaymentTerms } from './payment-required.js';

/** Who an x402 payment pays, in which token, on the network as x402 names it (v1 and v2). */
export interface X402Seller {
  names: { v1: string; v2: string };
  usdcMint: string;
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
