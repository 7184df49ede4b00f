/**
 * The contract of a rail: one chain family with its USDC (Solana's here; the Base rail's own opened
 * form is evm/rail.ts's OpenedEvmRail), in a folder of its own under server/chain (solana/, evm/),
 * opened for a data dir by the boot. The
 * engine's rules see only the Chain port (server/core/ports/chain.ts): addresses, micro-USDC, a
 * transfer prepared (signed, with its id, its bytes and when it can no longer land), submitted,
 * settled from what the chain says of it. What a rail gives the boot beyond that port is here.
 */
import type { Server } from 'node:http';
import type { Router } from 'express';
import type { Chain } from '../core/ports/chain.js';
import type { ImageProvider } from '../core/ports/image-provider.js';

/** A rail opened on a network: the Chain port, and its embedded chain when the network is that one. */
export interface OpenedRail {
  chain: Chain;
  /** Null on a remote network (a cluster reached over its RPC). */
  embedded: EmbeddedChain | null;
}

/**
 * A rail's own chain, run inside this process with its state in the ledger's database (so it rolls
 * back and survives with it, and the ledger's commits need no fsync of their own), offline, with test
 * money only.
 */
export interface EmbeddedChain {
  /** Opens the USDC accounts of wallets paid by payments that do not open one (the catalog's recipients). */
  openUsdcAccounts(wallets: string[]): Promise<void>;
  /** Generation paid with test money buys test pictures, drawn here and served by httpRoutes. */
  imageProvider(baseUrl: () => string): ImageProvider;
  /** What it serves beside /v1 on the data dir's HTTP server: its JSON-RPC, its test images. */
  httpRoutes(): Router;
  /** Its JSON-RPC subscriptions, on the HTTP server's WebSocket upgrade. */
  serveSubscriptions(server: Server, port: () => number): { close(): void };
}
