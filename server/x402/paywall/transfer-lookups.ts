import { z } from 'zod';
import { getAddress } from 'viem';
import type { TransferFound, TransferLookup } from '../../core/ports/chain.js';
import { NAMED_RPC_NETWORKS, identifyCluster, parseNetwork } from '../../chain/solana/networks.js';
import { RpcChain, readGenesisHash } from '../../chain/solana/cluster/chain.js';
import { evmTransferLookup, evmTransferLookupAt } from '../../chain/evm/transfer-lookup.js';
import { baseNetworkOf } from '../../chain/evm/networks.js';
import { rpcTransport } from '../../chain/evm/rpc.js';
import { rpcOrigin } from '../../chain/evm/node-errors.js';

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
  // Its embedded chain, where it serves one (a Coffer whose rail reads a node answers 404 there).
  const own = await chainIdServedAt(`${base}/evm-rpc`, `${base}/evm-rpc`);
  if (own === network.chainId) return evmTransferLookup(rpcTransport(`${base}/evm-rpc`), network);
  if (rpcUrl === undefined) {
    throw new Error(
      own === null
        ? `the Coffer at ${base} reads Base (${network.name}) from a node of its own, not at /evm-rpc: give that node's URL (rpcUrl; COFFER_BASE_RPC to coffer demo-api)`
        : `the Coffer at ${base} serves chain ${own} at /evm-rpc, not Base's chain there, ${network.chainId}`,
    );
  }
  const named = `the Base node given (${rpcOrigin(rpcUrl)})`;
  const given = await chainIdServedAt(rpcUrl, named);
  if (given !== network.chainId) {
    throw new Error(
      `${named} answers ${given === null ? 'no EVM JSON-RPC' : `chain ${given}`}, not Base's chain there, ${network.chainId}`,
    );
  }
  return evmTransferLookup(rpcTransport(rpcUrl), network);
}

/**
 * The chain id an EVM JSON-RPC answers; null where there is none at that URL (404). Anything else
 * (a timeout, a Coffer shutting down) is thrown as it is: a node that cannot be read now is not one
 * that is not there.
 */
async function chainIdServedAt(rpcUrl: string, named: string): Promise<number | null> {
  const answer = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(10_000),
  });
  if (answer.status === 404) return null;
  if (!answer.ok) throw new Error(`${named} answered ${answer.status} to eth_chainId`);
  const { result } = (await answer.json()) as { result?: unknown };
  if (typeof result !== 'string') throw new Error(`${named} answered eth_chainId with no chain id`);
  return Number(BigInt(result));
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
