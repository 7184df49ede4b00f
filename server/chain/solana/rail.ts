/**
 * The Solana rail (server/chain/rail.ts): USDC on Solana, on the embedded chain (the sim network:
 * LiteSVM in this process, offline, test money) or on a cluster reached over its JSON-RPC (devnet,
 * mainnet, or any URL, named by its genesis hash).
 */
import type { SqliteDatabase } from '../../store/sqlite-driver.js';
import type { Clock } from '../../core/ports/keys.js';
import type { WalletSigners } from './signers.js';
import type { OpenedRail } from '../rail.js';
import { NAMED_RPC_NETWORKS, identifyCluster, parseNetwork, type NetworkChoice } from './networks.js';
import { RpcChain, readGenesisHash } from './cluster/chain.js';
import { loadSimChain } from './sim/load.js';
import { createSimChainStore } from './sim/store.js';
import { embeddedSolana } from './sim/embedded.js';

/**
 * The network asked for (a name or an RPC URL), and its name; an RPC URL is the cluster its genesis
 * hash says (a private devnet endpoint is devnet).
 */
export async function chooseSolanaNetwork(asked: string, usdcMint?: string): Promise<{ choice: NetworkChoice; name: string }> {
  let choice = parseNetwork(asked, usdcMint);
  if (choice.kind === 'rpc' && !Object.hasOwn(NAMED_RPC_NETWORKS, asked)) {
    choice = { kind: 'rpc', network: identifyCluster(choice.network, await readGenesisHash(choice.network.rpcUrl)) };
  }
  return { choice, name: choice.kind === 'sim' ? 'sim' : choice.network.name };
}

/** The rail opened, and on a cluster its adapter (Coffer's x402 buyer reads the cluster's blockhash through it). */
export interface OpenedSolanaRail extends OpenedRail {
  cluster: RpcChain | null;
}

/**
 * Opens the rail on a chosen network: the embedded chain with its state in the ledger's database, or
 * the cluster's adapter. The embedded chain (and LiteSVM's native module) is loaded only for the sim
 * network, so every other network works where LiteSVM has no build.
 */
export async function openSolanaRail(
  choice: NetworkChoice,
  deps: { db: SqliteDatabase; vault: WalletSigners; clock: Clock },
): Promise<OpenedSolanaRail> {
  if (choice.kind === 'rpc') {
    const cluster = new RpcChain(choice.network, deps.vault);
    return { chain: cluster, embedded: null, cluster };
  }
  const sim = await (await loadSimChain()).open(createSimChainStore(deps.db), deps.vault, deps.clock);
  return { chain: sim, embedded: embeddedSolana(sim), cluster: null };
}
