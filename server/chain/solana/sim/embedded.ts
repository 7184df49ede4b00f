/**
 * The embedded Solana chain as the boot opens it (server/chain/rail.ts EmbeddedChain): LiteSVM with
 * its accounts, blocks and transactions in the ledger's database, its JSON-RPC and subscriptions
 * served beside /v1, its faucet's test USDC buying drawn test images.
 */
import { Router } from 'express';
import type { EmbeddedChain } from '../../rail.js';
import type { SimChain } from './chain.js';
import { createSimImageProvider } from './images.js';
import { simImageRoutes } from './images-route.js';
import { createSimRpc } from './json-rpc/rpc.js';
import { simRpcRoute } from './json-rpc/route.js';
import { createSimRpcSubscriptions } from './json-rpc/subscriptions.js';
import { serveSimRpcSubscriptions } from './json-rpc/socket.js';

export const embeddedSolana = (sim: SimChain): EmbeddedChain => ({
  openUsdcAccounts: (wallets) => sim.openUsdcAccounts(wallets),
  imageProvider: (baseUrl) => createSimImageProvider(baseUrl),
  httpRoutes: () => Router().use(simRpcRoute(createSimRpc(sim.ledger)), simImageRoutes()),
  serveSubscriptions: (server, port) => serveSimRpcSubscriptions(server, createSimRpcSubscriptions(sim.ledger), port),
});
