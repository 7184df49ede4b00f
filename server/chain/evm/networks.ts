/**
 * The EVM rail's networks: Base and Base Sepolia (Circle's USDC on each), or any EVM JSON-RPC named by
 * the chain id its node answers, with its USDC's address given. A network name covers both rails:
 * `devnet` is Solana devnet with Base Sepolia, `mainnet` both mainnets; the embedded chain goes with
 * `sim`. Each data dir keeps the EVM network it was made on.
 */
import { getAddress, isAddress, type Address } from 'viem';

/** An EVM network as Coffer names it, its chain id (read from its node) and its USDC. */
export interface EvmNetwork {
  name: string;
  chainId: number;
  usdc: Address;
  /** The embedded chain: test money. */
  isSim: boolean;
}

export interface NamedEvmNetwork {
  name: string;
  chainId: number;
  usdc: Address;
  /** Its public RPC, used where no other is set. */
  rpcUrl: string;
}

export const BASE: NamedEvmNetwork = {
  name: 'base',
  chainId: 8453,
  usdc: getAddress('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  rpcUrl: 'https://mainnet.base.org',
};
export const BASE_SEPOLIA: NamedEvmNetwork = {
  name: 'base-sepolia',
  chainId: 84532,
  usdc: getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e'),
  rpcUrl: 'https://sepolia.base.org',
};
const KNOWN = [BASE, BASE_SEPOLIA];

/** The Base network that goes with a Solana network's name: Base Sepolia with devnet, Base with mainnet. */
export const baseNetworkOf = (solanaNetwork: string): NamedEvmNetwork | null =>
  solanaNetwork === 'devnet' ? BASE_SEPOLIA : solanaNetwork === 'mainnet' ? BASE : null;

/**
 * The EVM network an RPC serves, by the chain id its node answers (never by its URL): a known one with
 * its USDC, or another chain with the USDC address given for it.
 */
export function evmNetworkOf(chainId: number, usdc: string | undefined): EvmNetwork {
  const known = KNOWN.find((network) => network.chainId === chainId);
  if (known !== undefined) {
    if (usdc !== undefined && getAddress(usdc) !== known.usdc) {
      throw new Error(`chain ${chainId} is ${known.name}, whose USDC is ${known.usdc}, not ${usdc}`);
    }
    return { name: known.name, chainId, usdc: known.usdc, isSim: false };
  }
  if (usdc === undefined || !isAddress(usdc)) {
    throw new Error(
      `the EVM RPC serves chain ${chainId}, which is not Base's: name its USDC's address (COFFER_BASE_USDC; usdc to a transfer lookup)`,
    );
  }
  return { name: `evm-${chainId}`, chainId, usdc: getAddress(usdc), isSim: false };
}

/**
 * How x402 names an EVM chain: v2 by its CAIP-2 id (`eip155:<chain id>`), v1 by the names its
 * packages know (`base`, `base-sepolia`; none for another chain, the embedded one included).
 */
export function x402EvmNetworks(chainId: number): { v1: string | null; v2: string } {
  const v1 = chainId === BASE.chainId ? 'base' : chainId === BASE_SEPOLIA.chainId ? 'base-sepolia' : null;
  return { v1, v2: `eip155:${chainId}` };
}
