import { z } from 'zod';
import { getAddress, http } from 'viem';
import type { TransferFound, TransferLookup } from '../core/ports/chain.js';
import { NAMED_RPC_NETWORKS, identifyCluster, parseNetwork } from '../chain/solana/networks.js';
import { RpcChain, readGenesisHash } from '../chain/solana/cluster/chain.js';
import { evmTransferLookup, evmTransferLookupAt } from '../chain/evm/transfer-lookup.js';
import { baseNetworkOf } from '../chain/evm/networks.js';
import { rpcTransport } from '../chain/evm/rpc.js';

const healthSchema = z.object({
  network: z.string(),
  usdcMint: z.string(),
  base: z.object({ network: z.string(), chainId: z.number().int().positive(), usdc: z.string() }).nullish(),
});
const lookupSchema = z.object({
  transfer: z.object({
    txSignature: z.string(),
    succeeded: z.boolean(),
    error: z.string().nullable(),
    from: z.string(),
    to: z.string().nullable(),
    toTokenAccount: z.string(),
    mint: z.string(),
    amount: z.string().regex(/^\d+$/),
    memo: z.string().nullable(),
    blockTime: z.number().nullable(),
    slot: z.string().nullable(),
  }),
});

/**
 * Reads transfers from the chain a Coffer server holds (`GET /v1/chain/transactions/:signature`):
 * how a paid API on the embedded sim network verifies receipts. Learns the network and the USDC mint
 * from the server's health endpoint.
 */
export async function cofferTransferLookup(cofferUrl: string): Promise<TransferLookup> {
  const base = cofferUrl.replace(/\/+$/, '');
  const health = healthSchema.parse(await (await fetch(`${base}/v1/health`, { signal: AbortSignal.timeout(10_000) })).json());
  return {
    network: health.network,
    usdc: health.usdcMint,
    async findTransfer(txSignature: string): Promise<TransferFound | null> {
      const response = await fetch(`${base}/v1/chain/transactions/${encodeURIComponent(txSignature)}`, {
        signal: AbortSignal.timeout(10_000),
      });
      if (response.status === 404 || response.status === 400) return null;
      if (!response.ok) throw new Error(`the Coffer server answered ${response.status} to a transaction lookup`);
      const { transfer } = lookupSchema.parse(await response.json());
      return { ...transfer, amount: BigInt(transfer.amount), slot: transfer.slot === null ? null : BigInt(transfer.slot) };
    },
  };
}

/**
 * Reads transfers straight from a Solana RPC (devnet, mainnet or a URL, whose cluster its genesis hash
 * names): no keys, read-only.
 */
export async function rpcTransferLookup(network: string, usdcMint?: string): Promise<RpcChain> {
  const choice = parseNetwork(network, usdcMint);
  if (choice.kind !== 'rpc') throw new Error('the sim network is read through a Coffer server (cofferTransferLookup)');
  const cluster =
    network in NAMED_RPC_NETWORKS ? choice.network : identifyCluster(choice.network, await readGenesisHash(choice.network.rpcUrl));
  return new RpcChain(cluster, null);
}

/**
 * Reads Base transfers from the chain a Coffer server pays Base on, as its health names it: its
 * embedded EVM chain (`POST /evm-rpc`), or, where its Base rail reads a node of its own and it serves
 * none, that node given as `rpcUrl` (COFFER_BASE_RPC), answering the same chain id. How a paid API on
 * the sim network verifies Base receipts. Null where the server's Base rail is off; throws, saying
 * what to give, where neither answers that chain.
 */
export async function cofferBaseTransferLookup(cofferUrl: string, rpcUrl?: string) {
  const base = cofferUrl.replace(/\/+$/, '');
  const health = healthSchema.parse(await (await fetch(`${base}/v1/health`, { signal: AbortSignal.timeout(10_000) })).json());
  if (!health.base) return null;
  const network = { name: health.base.network, chainId: health.base.chainId, usdc: getAddress(health.base.usdc) };
  for (const url of [`${base}/evm-rpc`, ...(rpcUrl === undefined ? [] : [rpcUrl])]) {
    if ((await chainIdAt(url)) === network.chainId) return evmTransferLookup(rpcTransport(url), network);
  }
  throw new Error(
    rpcUrl === undefined
      ? `the Coffer at ${base} reads Base (${network.name}) from a node of its own, not at /evm-rpc: give that node's URL as COFFER_BASE_RPC`
      : `neither the Coffer at ${base} (/evm-rpc) nor COFFER_BASE_RPC ${rpcUrl} answers Base's chain id there, ${network.chainId}`,
  );
}

/** The chain id an EVM JSON-RPC answers, or null where it answers none (no such route, not a node). */
async function chainIdAt(rpcUrl: string): Promise<number | null> {
  try {
    return Number(BigInt((await http(rpcUrl, { retryCount: 0, timeout: 10_000 })({}).request({ method: 'eth_chainId' })) as string));
  } catch {
    return null;
  }
}

/**
 * Reads Base transfers over an EVM JSON-RPC: `rpcUrl` (COFFER_BASE_RPC), or the public RPC of the
 * Base network that goes with a Solana network's name (Base Sepolia with devnet, Base with mainnet).
 * Null where neither names one.
 */
export async function rpcBaseTransferLookup(solanaNetwork: string, rpcUrl?: string, usdc?: string) {
  const url = rpcUrl ?? baseNetworkOf(solanaNetwork)?.rpcUrl;
  return url === undefined ? null : evmTransferLookupAt(url, usdc);
}
