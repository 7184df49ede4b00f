/**
 * Which x402 requirements Coffer pays on a rail: the one rule a purchase (`x402-pay.ts`) and a Bazaar
 * listing (`registry/bazaar-listing.ts`, which calls what a purchase would pay "payable") share.
 */
import { isSolanaAddress } from '../../wire/rails.js';
import { isEvmAddress, type Rail } from '../../wire/rails.js';
import { paysSomeone } from './paid-to.js';

/** Where this Coffer pays x402 on a rail: how the offer's x402 version names its network, and its USDC. */
export interface X402RailTerms {
  network: string;
  usdc: string;
}

/** A requirement as an offer states it (a Bazaar item may leave its amount, asset or recipient out). */
export interface OfferedTerms {
  scheme: string;
  network: string;
  asset: string | null;
  payTo: string | null;
  amount: bigint | null;
  /** How the token moves on an EVM chain (`extra.assetTransferMethod`); undefined where the offer does not say (EIP-3009). */
  transferMethod?: unknown;
}

/** Whether an asset is the rail's USDC (an EVM address in any case; a Solana mint as written). */
export function isUsdcOn(rail: Rail, usdc: string, asset: string | null): boolean {
  if (asset === null) return false;
  return rail === 'sol' ? asset === usdc : isEvmAddress(asset) && asset.toLowerCase() === usdc.toLowerCase();
}

/**
 * `exact`, on this Coffer's network of the rail, in its USDC, a positive amount, to an address of the
 * rail; on an EVM chain by EIP-3009, the method said or none (Permit2 needs an approval the agent
 * would pay gas for). What a purchase would refuse to sign is never chosen over what it would pay
 * (`x402-pay.ts` picks among these).
 */
export function isPayableOn(rail: Rail, here: X402RailTerms, offered: OfferedTerms): boolean {
  return (
    offered.scheme === 'exact' &&
    offered.network === here.network &&
    offered.amount !== null &&
    offered.amount > 0n &&
    isUsdcOn(rail, here.usdc, offered.asset) &&
    offered.payTo !== null &&
    (rail === 'sol' ? isSolanaAddress(offered.payTo) : isEvmAddress(offered.payTo) && byEip3009(offered.transferMethod)) &&
    paysSomeone(offered.payTo, offered.asset)
  );
}

/**
 * An EVM offer Coffer signs: by EIP-3009, said `"eip3009"` or by no method at all (Permit2 needs an
 * approval the agent would pay gas for). Another spelling is not guessed at.
 */
export const byEip3009 = (method: unknown) => method === undefined || method === 'eip3009';

/** Why an offer by another method is not paid, after its method as offered. */
export const EIP3009_ONLY = 'Coffer signs EIP-3009 where an offer says "eip3009" or names no method';
