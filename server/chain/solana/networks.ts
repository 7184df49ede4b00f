import { DEMO_LOCALNET } from '../../wire/network-words.js';

/** The networks Coffer knows by name, with the real USDC mint of each. */
export interface RpcNetwork {
  name: string;
  rpcUrl: string;
  usdcMint: string;
}

export const USDC_MINTS = {
  mainnet: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  devnet: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
} as const;

export const NAMED_RPC_NETWORKS: Record<'devnet' | 'mainnet', RpcNetwork> = {
  devnet: { name: 'devnet', rpcUrl: 'https://api.devnet.solana.com', usdcMint: USDC_MINTS.devnet },
  mainnet: { name: 'mainnet', rpcUrl: 'https://api.mainnet-beta.solana.com', usdcMint: USDC_MINTS.mainnet },
};

/** The genesis hashes of Solana's public clusters: what a cluster is, whatever its RPC URL says. */
export const GENESIS_HASHES = {
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  mainnet: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
} as const;

/**
 * The genesis hash of the local cluster `coffer demo-x402` runs (the base58 SHA-256 of "coffer
 * demo-x402: a local cluster of test money"): a genesis of its own, so no Coffer pointed at it takes
 * it for devnet, though its USDC sits at devnet's mint address for x402's sake (DEMO_LOCALNET).
 */
export const DEMO_LOCALNET_GENESIS_HASH = 'C4tQM2wLGij8JQBHbbFwjqiKTv4FGJctRAxL13aTgdZp';

/**
 * Names an RPC URL's cluster by its genesis hash, when the RPC answered: devnet or mainnet (with
 * their real USDC mint, whatever was asked: a stray variable must never make another token pass for
 * USDC there), the demo's local cluster (`demo-localnet`, its test USDC at devnet's mint address),
 * or, for any other cluster, `localnet` on a loopback address and `custom` elsewhere.
 * Without an answer the URL's own words decide (parseNetwork).
 */
export function identifyCluster(parsed: RpcNetwork, genesisHash: string | null): RpcNetwork {
  if (genesisHash === null) return parsed;
  if (genesisHash === GENESIS_HASHES.devnet) return { ...NAMED_RPC_NETWORKS.devnet, rpcUrl: parsed.rpcUrl };
  if (genesisHash === GENESIS_HASHES.mainnet) return { ...NAMED_RPC_NETWORKS.mainnet, rpcUrl: parsed.rpcUrl };
  if (genesisHash === DEMO_LOCALNET_GENESIS_HASH) return { name: DEMO_LOCALNET, rpcUrl: parsed.rpcUrl, usdcMint: USDC_MINTS.devnet };
  const host = new URL(parsed.rpcUrl).hostname;
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  return { ...parsed, name: loopback ? 'localnet' : 'custom' };
}

/**
 * The x402 names of a network: v1 (`solana`, `solana-devnet`) and v2 (CAIP-2, `solana:<genesis>`);
 * null where x402 has none (the embedded chain, a local or custom cluster). x402 names no local
 * network, so the demo's local cluster speaks as devnet there, and only there: its payments can never
 * land on devnet (its blockhashes are its own), and Coffer names it demo-localnet everywhere else.
 */
export function x402Networks(network: string): { v1: string; v2: string } | null {
  if (network === 'mainnet') return { v1: 'solana', v2: `solana:${GENESIS_HASHES.mainnet}` };
  if (network === 'devnet' || network === DEMO_LOCALNET) return { v1: 'solana-devnet', v2: `solana:${GENESIS_HASHES.devnet}` };
  return null;
}

export type NetworkChoice = { kind: 'sim' } | { kind: 'rpc'; network: RpcNetwork };

/**
 * `sim`, `devnet`, `mainnet` or an RPC URL. A bare URL is taken as mainnet-compatible unless it names
 * devnet; `COFFER_USDC_MINT` sets the mint of such a cluster. The named networks always use their real
 * USDC mint: a stray variable must never make another token pass for USDC on mainnet.
 */
export function parseNetwork(value: string, usdcMintOverride?: string): NetworkChoice {
  if (value === 'sim') return { kind: 'sim' };
  if (value === 'devnet' || value === 'mainnet') {
    return { kind: 'rpc', network: { ...NAMED_RPC_NETWORKS[value] } };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--network must be sim, devnet, mainnet or an http(s) RPC URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`--network URL must be http or https (got "${value}")`);
  }
  const devnet = url.hostname.includes('devnet');
  return {
    kind: 'rpc',
    network: {
      name: devnet ? 'devnet' : url.hostname === '127.0.0.1' || url.hostname === 'localhost' ? 'localnet' : 'mainnet',
      rpcUrl: value,
      usdcMint: usdcMintOverride ?? (devnet ? USDC_MINTS.devnet : USDC_MINTS.mainnet),
    },
  };
}
