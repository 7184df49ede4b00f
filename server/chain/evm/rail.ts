/**
 * The EVM rail (server/chain/rail.ts): USDC on Base. On sim its network is the embedded chain (EDR in
 * this process, offline, test money, its state journaled in the ledger's database); elsewhere Base or
 * Base Sepolia (or another EVM chain) over its JSON-RPC (networks.ts).
 */
import type { Router } from 'express';
import { createPublicClient, custom } from 'viem';
import type { NamedEvmNetwork } from './networks.js';
import { evmRpcAt, rpcTransport } from './rpc.js';
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
 * USDC or `usdc` for another chain.
 */
export async function openRemoteEvmRail(
  rpcUrl: string,
  usdc: string | undefined,
  deps: { vault: EvmSigners; clock: Clock },
): Promise<OpenedEvmRail> {
  const { transport, network } = await evmRpcAt(rpcUrl, usdc);
  const chain = new EvmChain(network, transport, deps.vault, deps.clock, null);
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
  return (account) => hasEvmActivity(client, network.usdc, account);
}
