import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { DEMO_LOCALNET } from '../wire/network-words.js';
import { DEMO_LOCALNET_GENESIS_HASH } from '../chain/solana/networks.js';
import { openCoffer } from '../boot/open-coffer.js';
import { startHttpServer } from '../boot/http-server.js';
import { startChainWatch } from '../boot/chain-watch.js';
import { announceConnection, removeConnectionFile } from '../boot/connection-file.js';
import { announceDemoApi } from '../boot/demo-api-presence.js';
import { closeServer, listenOnLoopback } from '../boot/loopback-server.js';
import { keyClient } from '../client/coffer-client.js';
import { readAgentConfig, writeAgentConfig } from '../linked-agent/agent-config.js';
import { inProcessFacilitator } from '../x402/paywall-x402.js';
import { refuse, type DemoRefusal } from './demo-refusal.js';
import { openDemoDir, type DemoDir } from './demo-dir.js';
import { buyerWallet } from './buyer-wallet.js';
import { createDemoX402Seller } from './x402-seller.js';
import type { LocalCluster } from './local-cluster.js';

/** The seller's port by default: beside `coffer demo-api`'s 7403. */
export const DEMO_X402_PORT = 7404;

/** The agent the demo deploys: small limits, so a loop in a script cannot spend much even of test money. */
export const DEMO_AGENT = { agentId: 'x402-demo', dailyBudget: '1.00', maxPerPayment: '0.10', fund: '1.00' } as const;
const TREASURY_USDC = 100_000_000n;
const BUYER_USDC = 1_000_000n;

export interface RunningDemo {
  dir: { path: string; temporary: boolean; resumed: boolean };
  clusterUrl: string;
  /** The facilitator's fee payer (a key of this run, with test SOL). */
  feePayer: string;
  seller: { url: string; recipient: string; price: string };
  coffer: { url: string; loginUrl: string; network: string; treasury: string };
  agent: { agentId: string; walletAddress: string; configPath: string };
  buyer: { address: string; keyPath: string };
  /** A wallet's test USDC now (micro-USDC), read from the local cluster. */
  usdcOf(wallet: string): Promise<bigint>;
  /** Stops every part, newest first (in-flight payments finish), then unlocks the folder (and removes a temporary one). */
  stop(): Promise<void>;
}

/**
 * `coffer demo-x402`: the whole x402 loop on this machine with test money. A local cluster
 * (demo-localnet), the official facilitator in this process, the demo seller behind the official
 * middleware, and a Coffer on that cluster with a funded treasury and an agent that can pay, all in
 * a folder of their own. Refused before anything starts when the seller's port is taken, the
 * folder is not the demo's or is in use, or the local cluster cannot run here.
 */
export async function startDemoX402(options: {
  dataDir?: string;
  port: number;
  version: string;
  log: (message: string) => void;
}): Promise<{ ok: true; demo: RunningDemo } | DemoRefusal> {
  if (!(await portFree(options.port))) {
    return refuse(
      'port_in_use',
      `port ${options.port} on 127.0.0.1 is already in use (choose another with --port); nothing was started or created`,
    );
  }
  let LocalClusterClass: typeof LocalCluster;
  try {
    LocalClusterClass = (await import('./local-cluster.js')).LocalCluster;
  } catch (error) {
    return refuse(
      'local_chain_unavailable',
      `the local cluster runs on LiteSVM, which cannot load on ${process.platform}-${process.arch} (${(error as Error).message}); try x402 on devnet instead`,
    );
  }
  const opened = openDemoDir(options.dataDir);
  if (!opened.ok) return opened;
  const stack: (() => Promise<void> | void)[] = [() => opened.dir.close()];
  const stop = async () => {
    for (const step of stack.splice(0).reverse()) await step();
  };
  try {
    return { ok: true, demo: await startParts(opened.dir, LocalClusterClass, options, stack, stop) };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts each part in turn, pushing how to stop it on `stack` as soon as it runs. */
async function startParts(
  dir: DemoDir,
  LocalClusterClass: typeof LocalCluster,
  options: { port: number; version: string; log: (message: string) => void },
  stack: (() => Promise<void> | void)[],
  stop: () => Promise<void>,
): Promise<RunningDemo> {
  // The cluster: its own genesis hash, so Coffer names it demo-localnet; USDC at devnet's address for x402.
  const cluster = await new LocalClusterClass({
    file: dir.clusterFile,
    genesisHash: DEMO_LOCALNET_GENESIS_HASH,
    usdc: 'devnet-address',
  }).start();
  stack.push(() => cluster.stop());

  // The official facilitator, paying fees from a key of this run.
  const feePayer = await generateKeyPairSigner();
  cluster.airdrop(feePayer.address, 10n);
  const facilitator = inProcessFacilitator({ feePayer, rpcUrl: cluster.url, network: DEMO_LOCALNET });

  // The seller behind the official middleware; whoever it pays needs a USDC account first.
  let sellerPort = options.port;
  const seller = createDemoX402Seller({ facilitator, network: DEMO_LOCALNET, port: () => sellerPort });
  for (const recipient of seller.recipients) await cluster.mintUsdc(recipient, 0n);
  const sellerServer = await listenOnLoopback(seller.app, options.port, { requestTimeoutMs: 60_000 });
  sellerPort = sellerServer.port;
  stack.push(() => closeServer(sellerServer.server, 5_000));
  const sellerUrl = `http://127.0.0.1:${sellerPort}`;

  // Coffer on the cluster, in the demo's folder; keys in files there, never in the user's keychain.
  const coffer = await openCoffer({ dataDir: dir.cofferDir, network: cluster.url, keyStore: 'file', log: options.log });
  stack.push(() => coffer.close());
  if (coffer.chain.network !== DEMO_LOCALNET) throw new Error(`the demo's Coffer took its cluster for ${coffer.chain.network}`);
  const server = await startHttpServer({ coffer, port: 0, version: options.version, log: options.log });
  stack.push(() => server.stop());
  const chainWatch = startChainWatch(coffer, options.log);
  stack.push(() => chainWatch.stop());
  const connectionFile = announceConnection(dir.cofferDir, server.url, coffer);
  stack.push(() => removeConnectionFile(connectionFile, process.pid));
  // The registry's demo listings then name this seller, so Coffer knows what its agent buys.
  mkdirSync(join(dir.cofferDir, 'demo-api'), { recursive: true, mode: 0o700 });
  stack.push(announceDemoApi(dir.cofferDir, sellerUrl));

  const resumed = !coffer.ownerCreated;
  if (!resumed) {
    cluster.airdrop(coffer.owner, 10n);
    await cluster.mintUsdc(coffer.owner, TREASURY_USDC);
  }
  const agent = await demoAgent(dir.agentConfig, server.url, coffer);
  const buyer = await buyerWallet(dir.buyerKey);
  if (buyer.made) await cluster.mintUsdc(buyer.address, BUYER_USDC);

  return {
    dir: { path: dir.path, temporary: dir.temporary, resumed },
    clusterUrl: cluster.url,
    feePayer: feePayer.address,
    seller: { url: sellerUrl, recipient: seller.recipients[0]!, price: seller.price },
    coffer: { url: server.url, loginUrl: server.loginUrl(), network: coffer.chain.network, treasury: coffer.owner },
    agent: { agentId: agent.agentId, walletAddress: agent.walletAddress, configPath: dir.agentConfig },
    buyer: { address: buyer.address, keyPath: dir.buyerKey },
    usdcOf: (wallet) => cluster.usdcBalance(wallet),
    stop,
  };
}

/**
 * The demo agent, deployed and funded from the treasury through Coffer's /v1 on the first run, its
 * config written where `coffer fetch --config` reads it; on a later run the same agent, its config
 * pointed at this run's Coffer.
 */
async function demoAgent(configPath: string, url: string, coffer: { owner: string; ownerKey: string }) {
  if (existsSync(configPath)) {
    const config = readAgentConfig(configPath);
    writeAgentConfig(configPath, { ...config, url });
    return config;
  }
  const deployed = await keyClient(url, { owner: coffer.owner, key: coffer.ownerKey }).deploy({
    ...DEMO_AGENT,
    displayName: 'x402 demo agent (test money)',
  });
  // The owner's own key is never held for approval; anything else is a bug to stop on.
  if (deployed.status !== 200) throw new Error('the demo agent was held for approval');
  const { agent, apiKey, funding } = deployed.body;
  if (apiKey === undefined || funding?.status !== 'funded') {
    throw new Error(`the demo agent could not be funded: ${funding?.status === 'failed' ? funding.error : 'no key or funding answered'}`);
  }
  const { agentId, walletAddress } = agent;
  writeAgentConfig(configPath, { agentId, walletAddress, apiKey, owner: coffer.owner, url, linkedAt: new Date().toISOString() });
  return { agentId, walletAddress };
}

/** Whether a port on 127.0.0.1 can be listened on now (0 always can). */
async function portFree(port: number): Promise<boolean> {
  if (port === 0) return true;
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
