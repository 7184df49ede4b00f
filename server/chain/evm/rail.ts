/**
 * The EVM rail (server/chain/rail.ts): USDC on Base. On sim its network is the embedded chain (EDR in
 * this process, offline, test money, its state journaled in the ledger's database); elsewhere Base or
 * Base Sepolia (or another EVM chain) over its JSON-RPC (networks.ts).
 */
import type { Router } from 'express';
import { createPublicClient, custom, type Transport } from 'viem';
import { CofferError } from '../../wire/errors.js';
import { evmNetworkOf, type EvmNetwork, type NamedEvmNetwork } from './networks.js';
import { chainCheckedTransport, evmRpcAt, rpcTransport } from './rpc.js';
import { nodeErrorWords, nodeUnanswered } from './node-errors.js';
import type { SqliteDatabase } from '../../store/sqlite-driver.js';
import type { Clock } from '../../core/ports/keys.js';
import type { EvmSigners } from './signers.js';
import { EvmChain } from './chain.js';
import { hasEvmActivity } from './log-reads.js';
import { openEmbeddedEvm } from './sim/chain.js';
import { openEvmTestFunds } from './sim/test-funds.js';
import { evmRpcRoute } from './sim/json-rpc-route.js';

/** The EVM rail opened: its Chain port, and what its embedded chain serves beside /v1 (null elsewhere). */
export interface OpenedEvmRail {
  chain: EvmChain;
  httpRoutes: Router | null;
}

export async function openEmbeddedEvmRail(deps: { db: SqliteDatabase; vault: EvmSigners; clock: Clock }): Promise<OpenedEvmRail> {
  const evm = await openEmbeddedEvm(deps.db, deps.clock);
  const testFunds = await openEvmTestFunds(evm, deps.db, deps.vault);
  const transport = custom(
    { request: ({ method, params }) => evm.request(method, (params as unknown[] | undefined) ?? []) },
    { retryCount: 0 },
  );
  const chain = new EvmChain(
    { name: 'sim', chainId: evm.chainId, usdc: evm.usdc, isSim: true },
    transport,
    deps.vault,
    deps.clock,
    testFunds,
    evm,
  );
  return { chain, httpRoutes: evmRpcRoute(evm) };
}

/**
 * The rail on an EVM JSON-RPC: the network its node says it is (its chain id, read now), a known one's
 * USDC or `usdc` for another chain. Where the node does not answer now and the chain it must serve is
 * known (`expected`: the Solana network's Base, or the data dir's), the rail opens on that chain all
 * the same, its node's chain checked once it answers (rpc.ts chainCheckedTransport), and
 * `unanswered` says why; otherwise the node's silence is thrown.
 */
export async function openRemoteEvmRail(
  rpcUrl: string,
  usdc: string | undefined,
  deps: { vault: EvmSigners; clock: Clock },
  expected?: { chainId: number; mismatch: (served: number) => string; unanswered: (words: string) => void },
): Promise<OpenedEvmRail> {
  let opened: { transport: Transport; network: EvmNetwork };
  try {
    opened = await evmRpcAt(rpcUrl, usdc);
  } catch (error) {
    if (!(error instanceof CofferError && error.code === 'chain_unavailable')) throw error;
    const words = nodeErrorWords(error.cause);
    if (expected === undefined) {
      throw new Error(
        `COFFER_BASE_RPC did not answer which chain it serves (${words}); this data dir has not been opened on a Base network yet: start Coffer again once it answers, or with COFFER_BASE_RPC=off`,
        { cause: error },
      );
    }
    let network: EvmNetwork;
    try {
      network = evmNetworkOf(expected.chainId, usdc);
    } catch {
      // The chain known is not one Coffer can name without its node (another chain's USDC not given).
      throw new Error(
        `COFFER_BASE_RPC did not answer which chain it serves (${words}): start Coffer again once it answers, or with COFFER_BASE_RPC=off`,
        {
          cause: error,
        },
      );
    }
    expected.unanswered(words);
    opened = { transport: chainCheckedTransport(rpcUrl, network, expected.mismatch, words, () => deps.clock.now()), network };
  }
  const chain = new EvmChain(opened.network, opened.transport, deps.vault, deps.clock, null);
  return { chain, httpRoutes: null };
}

/** The rail on a known network's public RPC, named by the network (nothing is asked of its node until it is used). */
export function openNamedEvmRail(network: NamedEvmNetwork, deps: { vault: EvmSigners; clock: Clock }): OpenedEvmRail {
  const transport = rpcTransport(network.rpcUrl);
  const chain = new EvmChain(
    { name: network.name, chainId: network.chainId, usdc: network.usdc, isSim: false },
    transport,
    deps.vault,
    deps.clock,
    null,
  );
  return { chain, httpRoutes: null };
}

/**
 * Whether accounts were used on an EVM network, read over its RPC (a restore by phrase looking for the
 * phrase's Base accounts; nothing is signed): the network's own USDC, or `usdc` on another chain.
 */
export async function evmActivityReader(rpcUrl: string, usdc: string | undefined): Promise<(account: string) => Promise<boolean>> {
  const { transport, network } = await evmRpcAt(rpcUrl, usdc);
  const client = createPublicClient({ transport });
  return (account) =>
    hasEvmActivity(client, network.usdc, account).catch((error: unknown) => {
      throw nodeUnanswered(network.name, "a wallet's history", error);
    });
}
