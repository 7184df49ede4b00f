/**
 * The EVM rail (server/chain/rail.ts): USDC on Base. Today its network is the embedded chain (sim:
 * EDR in this process, offline, test money, its state journaled in the ledger's database), opened
 * beside the Solana sim; Base and Base Sepolia over their RPC come next (issue 49, point 2).
 */
import type { Router } from 'express';
import { custom } from 'viem';
import type { SqliteDatabase } from '../../store/sqlite-driver.js';
import type { Clock } from '../../core/ports/keys.js';
import type { Chain } from '../../core/ports/chain.js';
import type { EvmSigners } from './signers.js';
import { EvmChain } from './chain.js';
import { EMBEDDED_EVM_CHAIN_ID, openEmbeddedEvm } from './sim/chain.js';
import { openEvmTestFunds } from './sim/test-funds.js';
import { evmRpcRoute } from './sim/json-rpc-route.js';

/** The EVM rail opened: its Chain port, and what its embedded chain serves beside /v1 (null elsewhere). */
export interface OpenedEvmRail {
  chain: Chain;
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
    { name: 'sim', chainId: EMBEDDED_EVM_CHAIN_ID, usdc: evm.usdc, isSim: true },
    transport,
    deps.vault,
    deps.clock,
    testFunds,
  );
  return { chain, httpRoutes: evmRpcRoute(evm) };
}
