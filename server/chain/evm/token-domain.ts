/**
 * The name and version in a USDC token's EIP-712 domain, which its authorizations are signed under
 * and an x402 offer names: read from the token, never assumed (Base's USDC is "USD Coin", Base
 * Sepolia's "USDC"). Read once a node; a read that failed is tried again the next time it is asked.
 */
import type { Address, PublicClient } from 'viem';
import { USDC_ABI } from './usdc-abi.js';

export interface TokenNaming {
  name: string;
  version: string;
}

/** Reads `usdc`'s EIP-712 name and version through `client` once, answering the same read after. */
export function tokenNamingReader(client: PublicClient, usdc: Address): () => Promise<TokenNaming> {
  let read: Promise<TokenNaming> | null = null;
  return () => {
    if (read !== null) return read;
    const reading = Promise.all(
      (['name', 'version'] as const).map((functionName) => client.readContract({ address: usdc, abi: USDC_ABI, functionName })),
    ).then(([name, version]) => ({ name: name!, version: version! }));
    // Forgotten once failed (only this read: a newer one started since stays).
    reading.catch(() => {
      if (read === reading) read = null;
    });
    read = reading;
    return reading;
  };
}
