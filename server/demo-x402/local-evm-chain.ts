import express from 'express';
import { decodeFunctionResult, encodeFunctionData, type Address, type Hash } from 'viem';
import { openDatabase } from '../store/database.js';
import { systemClock } from '../core/ports/keys.js';
import { loopbackRefusal } from '../http/guards.js';
import { closeServer, listenOnLoopback } from '../boot/loopback-server.js';
import { openEmbeddedEvm, type EmbeddedEvm } from '../chain/evm/sim/chain.js';
import { EVM_RPC_PATH, evmRpcRoute } from '../chain/evm/sim/json-rpc-route.js';
import { USDC_ABI } from '../chain/evm/usdc-abi.js';
import { DEMO_EVM_CHAIN_ID } from '../wire/network-words.js';

/** The demo's EVM chain, as a node on this machine serves one. */
export interface LocalEvmChain {
  /** Its Ethereum JSON-RPC (viem's `http()`, the facilitator, a wallet). */
  url: string;
  chainId: number;
  usdc: Address;
  /**
   * Runs a step of the demo's set-up on this chain (a wallet funded) unless it was done before, and
   * records it done, beside the chain's journal, once it has run: a start cut short before then does
   * it at the next: at worst twice, where the cut fell between the step and its record, never not at all.
   */
  once(step: string, run: () => Promise<unknown>): Promise<void>;
  mintUsdc(to: Address, amount: bigint): Promise<Hash>;
  sendEth(to: Address, wei: bigint): Promise<Hash>;
  /** A wallet's test USDC now (micro-USDC). */
  usdcBalance(account: Address): Promise<bigint>;
  stop(): Promise<void>;
}

/**
 * `coffer demo-x402`'s Base-like chain: Coffer's embedded EVM chain (a real EVM running the real test
 * USDC, chain id 790527, never a real chain's nor a Coffer's own) in this process, its journal in its own file in the
 * demo's folder, served over JSON-RPC on a loopback port of its own. The demo's Coffer reaches it as
 * any EVM RPC (`COFFER_BASE_RPC`), as do the official facilitator and buyer: the chain is the demo's,
 * not Coffer's. Its test money comes from the chain's faucet, which only this process can move.
 */
export async function startLocalEvmChain(options: { file: string; idleBlockMs?: number }): Promise<LocalEvmChain> {
  const db = openDatabase(options.file, 'normal');
  try {
    const evm = await openEmbeddedEvm(db, systemClock, { chainId: DEMO_EVM_CHAIN_ID });
    let port = 0;
    const app = express();
    app.disable('x-powered-by');
    // This machine's processes only, as Coffer's own /evm-rpc: a page elsewhere cannot reach it by DNS rebinding.
    app.use((req, res, next) => {
      const refusal = loopbackRefusal(req, port);
      if (refusal === null) return next();
      res.status(403).json({ error: refusal.message, code: refusal.code });
    });
    app.use(evmRpcRoute(evm));
    const listening = await listenOnLoopback(app, 0, { requestTimeoutMs: 60_000 });
    port = listening.port;
    // Once it serves: a start that fails before leaves no timer behind.
    const blocks = idleBlocks(evm, options.idleBlockMs ?? IDLE_BLOCK_MS);
    return {
      url: `http://127.0.0.1:${port}${EVM_RPC_PATH}`,
      chainId: evm.chainId,
      usdc: evm.usdc,
      once: async (step, run) => {
        const key = `demo-x402.done.${step}`;
        if (db.prepare('SELECT 1 FROM meta WHERE key = ?').get(key) !== undefined) return;
        await run();
        db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, new Date().toISOString());
      },
      mintUsdc: (to, amount) => evm.mintTestUsdc(to, amount),
      sendEth: (to, wei) => evm.sendTestEth(to, wei),
      usdcBalance: async (account) => {
        const data = encodeFunctionData({ abi: USDC_ABI, functionName: 'balanceOf', args: [account] });
        const result = (await evm.request('eth_call', [{ to: evm.usdc, data }, 'latest'])) as `0x${string}`;
        return decodeFunctionResult({ abi: USDC_ABI, functionName: 'balanceOf', data: result });
      },
      stop: async () => {
        await blocks.stop();
        await closeServer(listening.server, 5_000);
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * How long the demo's chain goes without a block: a chain mines as time passes (Base every 2 s),
 * while the embedded one mines only when a transaction comes, so its time stood still between them.
 * An x402 authorization that no seller used then never read as ended on it (the demo's Coffer reaches
 * it as any RPC, and a remote chain is never asked to mine), and its payment stayed pending, its
 * budget held, until some other transaction came. Within this (and a third more) of the clock passing
 * an authorization's end, a block says so, and the next chain watch fails the payment `dropped`. Each
 * block is journaled and replayed at the next start (about 0.3 ms each): 30 s is 2,880 blocks, about
 * a second of start, a day left running idle.
 */
const IDLE_BLOCK_MS = 30_000;

/** An empty block once the chain went `idleMs` without one (each journaled, as every block is), looked at every third of it. */
function idleBlocks(evm: EmbeddedEvm, idleMs: number): { stop(): Promise<void> } {
  let mining: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    mining = mining
      .then(async () => {
        const latest = (await evm.request('eth_getBlockByNumber', ['latest', false])) as { timestamp: `0x${string}` };
        if (Date.now() - Number(BigInt(latest.timestamp)) * 1000 >= idleMs) await evm.mineToNow();
      })
      // A block not mined now is mined at the next look; a chain that cannot mine says so at its next request.
      .catch(() => undefined);
  }, idleMs / 3);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await mining;
    },
  };
}
