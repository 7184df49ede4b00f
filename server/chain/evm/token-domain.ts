/**
 * The name and version in a USDC token's EIP-712 domain, which its authorizations are signed under
 * and an x402 offer names: read from the token, never assumed (Base's USDC is "USD Coin", Base
 * Sepolia's "USDC"). Read once a node; a read that failed is tried again the next time it is asked.
 *
 * Held to the token's own `DOMAIN_SEPARATOR()` (Coffer pays USDC alone, and every FiatToken has
 * one): a name, version or chain id that is not the token's would have each authorization signed
 * under it refused on chain, found only once a move was sent and reverted, its signature public
 * (security invariant: found before anything is signed). A token that does not answer it is not
 * used: a node's error cannot be told from a missing function, and a check switched off by a flaky
 * read would stay off.
 */
import { domainSeparator, type Address, type PublicClient } from 'viem';
import { CofferError } from '../../wire/errors.js';
import { USDC_ABI } from './usdc-abi.js';

export interface TokenNaming {
  name: string;
  version: string;
}

/** Reads `usdc`'s EIP-712 name and version through `client` once, answering the same read after. */
export function tokenNamingReader(client: PublicClient, usdc: Address, chainId: number): () => Promise<TokenNaming> {
  let read: Promise<TokenNaming> | null = null;
  return () => {
    if (read !== null) return read;
    const reading = Promise.all([
      client.readContract({ address: usdc, abi: USDC_ABI, functionName: 'name' }),
      client.readContract({ address: usdc, abi: USDC_ABI, functionName: 'version' }),
      client.readContract({ address: usdc, abi: USDC_ABI, functionName: 'DOMAIN_SEPARATOR' }),
    ]).then(([name, version, separator]) => {
      if (separator.toLowerCase() !== domainSeparator({ domain: { name, version, chainId, verifyingContract: usdc } })) {
        throw new CofferError(
          'chain_unavailable',
          `the USDC token at ${usdc} does not sign under the domain it names ("${name}", version ${version}) on chain ${chainId}: is the node on another chain?`,
        );
      }
      return { name, version };
    });
    // Forgotten once failed (only this read: a newer one started since stays).
    reading.catch(() => {
      if (read === reading) read = null;
    });
    read = reading;
    return reading;
  };
}
