import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { getAddress, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
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
import { inProcessFacilitator } from '../x402/paywall/in-process-facilitator.js';
import { refuse, type DemoRefusal } from './demo-refusal.js';
import { openDemoDir, type DemoDir } from './demo-dir.js';
import { buyerWallet, evmBuyerWallet } from './buyer-wallet.js';
import { createDemoX402Seller } from './x402-seller.js';
import type { LocalCluster } from './local-cluster.js';
import type { LocalEvmChain } from './local-evm-chain.js';

/** The seller's port by default: beside `coffer demo-api`'s 7403. */
export const DEMO_X402_PORT = 7404;

/** The agent the demo deploys: small limits, so a loop in a script cannot spend much even of test money. */
export const DEMO_AGENT = { agentId: 'x402-demo', dailyBudget: '1.00', maxPerPayment: '0.10', fund: '1.00' } as const;
const TREASURY_USDC = 100_000_000n;
const BUYER_USDC = 1_000_000n;
/** Test ETH for the accounts that send on the EVM chain: the treasury's (every move) and the facilitator's. */
const GAS_ETH = parseEther('10');

export interface RunningDemo {
  /** The demo's folder, and its Coffer's data dir in it (what the owner's commands take as --data-dir). */
  dir: { path: string; cofferDataDir: string; temporary: boolean; resumed: boolean };
  clusterUrl: string;
  /** The facilitator's fee payer (a key of this run, with test SOL). */
  feePayer: string;
  seller: { url: string; recipient: string; price: string };
  coffer: { url: string; loginUrl: string; network: string; treasury: string };
  agent: { agentId: string; walletAddress: string; configPath: string };
  buyer: { address: string; keyPath: string };
  /** A wallet's test USDC now (micro-USDC), read from the local cluster. */
  usdcOf(wallet: string): Promise<bigint>;
  /** The same x402 loop on the demo's local EVM chain; null where that chain's runtime (EDR) cannot load here. */
  base: RunningDemoBase | null;
  /** Stops every part, newest first (in-flight payments finish), then unlocks the folder (and removes a temporary one). */
  stop(): Promise<void>;
}

export interface RunningDemoBase {
  rpcUrl: string;
  chainId: number;
  /** The chain as x402 names it (`eip155:790527`). */
  x402Network: string;
  /** The chain as Coffer names it (its Base rail's network). */
  network: string;
  /** Its test USDC. */
  usdc: Address;
  /** The facilitator's account (a key of this run, with test ETH): it sends each payment and pays its gas. */
  facilitator: Address;
  sellerRecipient: string;
  treasury: Address;
  agent: Address;
  buyer: { address: Address; keyPath: string };
  /** An account's test USDC now (micro-USDC), read from the chain. */
  usdcOf(account: Address): Promise<bigint>;
}

/**
 * `coffer demo-x402`: the whole x402 loop on this machine with test money. A local cluster
 * (demo-localnet) and a local EVM chain (Coffer's embedded one, over JSON-RPC), the official
 * facilitator in this process for both, the demo seller behind the official middleware offering
 * both, and a Coffer on them with a funded treasury and an agent that can pay on each, all in a
 * folder of their own. Refused before anything starts when the seller's port is taken, the
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

  // The EVM chain, where its runtime loads here; without it the demo runs on Solana alone.
  const evm = await localEvmChain(dir.evmChainFile, options.log);
  if (evm !== null) stack.push(() => evm.stop());

  // The official facilitator: on Solana paying fees from a key of this run, on the EVM chain sending
  // from an account of this run; both given test gas money.
  const feePayer = await generateKeyPairSigner();
  cluster.airdrop(feePayer.address, 10n);
  const evmFacilitator = privateKeyToAccount(generatePrivateKey());
  if (evm !== null) await evm.sendEth(evmFacilitator.address, GAS_ETH);
  const facilitator = inProcessFacilitator({
    feePayer,
    rpcUrl: cluster.url,
    network: DEMO_LOCALNET,
    ...(evm !== null && { base: { account: evmFacilitator, rpcUrl: evm.url, chainId: evm.chainId } }),
  });

  // The seller behind the official middleware; whoever it pays on Solana needs a USDC account first.
  let sellerPort = options.port;
  const seller = createDemoX402Seller({
    facilitator,
    network: DEMO_LOCALNET,
    base: evm === null ? null : { chainId: evm.chainId, usdc: evm.usdc },
    port: () => sellerPort,
  });
  for (const recipient of seller.recipients) await cluster.mintUsdc(recipient, 0n);
  const sellerServer = await listenOnLoopback(seller.app, options.port, { requestTimeoutMs: 60_000 });
  sellerPort = sellerServer.port;
  stack.push(() => closeServer(sellerServer.server, 5_000));
  const sellerUrl = `http://127.0.0.1:${sellerPort}`;

  // Coffer on the cluster and the EVM chain (its Base rail, reached as any EVM RPC), in the demo's
  // folder; keys in files there, never in the user's keychain.
  const coffer = await openCoffer({
    dataDir: dir.cofferDir,
    network: cluster.url,
    ...(evm === null ? { baseRpc: 'off' } : { baseRpc: evm.url, baseUsdc: evm.usdc }),
    keyStore: 'file',
    log: options.log,
  });
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
  stack.push(announceDemoApi(dir.cofferDir, sellerUrl).withdraw);

  const resumed = !coffer.ownerCreated;
  // Funded by what the cluster holds, not by what this start made: a start cut short before the
  // mint funds the treasury at the next (its SOL first: a cut between the two gives SOL twice).
  if (!(await cluster.hasUsdcAccount(coffer.owner))) {
    cluster.airdrop(coffer.owner, 10n);
    await cluster.mintUsdc(coffer.owner, TREASURY_USDC);
  }
  const owner = keyClient(server.url, { owner: coffer.owner, key: coffer.ownerKey });
  const treasuryBase = evm === null ? null : (await owner.dashboard()).treasury.wallets.base;
  const treasuryOnBase = treasuryBase === null ? null : getAddress(treasuryBase);
  // Each wallet is funded once on the EVM chain (on the first run, or the first of a folder from
  // before the demo had the chain), each step recorded done on the chain's own file.
  if (evm !== null && treasuryOnBase !== null) {
    await evm.once(`treasury:${treasuryOnBase}`, async () => {
      await evm.sendEth(treasuryOnBase, GAS_ETH);
      await evm.mintUsdc(treasuryOnBase, TREASURY_USDC);
    });
  }
  const agent = await demoAgent(dir.agentConfig, server.url, coffer);
  const buyer = await buyerWallet(dir.buyerKey);
  if (!(await cluster.hasUsdcAccount(buyer))) await cluster.mintUsdc(buyer, BUYER_USDC);
  let base: RunningDemoBase | null = null;
  if (evm !== null && treasuryOnBase !== null && coffer.base !== null) {
    await evm.once(`agent:${agent.agentId}`, () => fundOnBase(owner, agent.agentId));
    const evmBuyer = evmBuyerWallet(dir.evmBuyerKey);
    await evm.once(`buyer:${evmBuyer}`, () => evm.mintUsdc(evmBuyer, BUYER_USDC));
    const agentOnBase = (await owner.balance(agent.agentId)).wallets.base;
    if (agentOnBase === null) throw new Error('the demo agent has no account on the EVM chain');
    base = {
      rpcUrl: evm.url,
      chainId: evm.chainId,
      x402Network: `eip155:${evm.chainId}`,
      network: coffer.base.chain.network,
      usdc: evm.usdc,
      facilitator: evmFacilitator.address,
      sellerRecipient: seller.baseRecipient!,
      treasury: treasuryOnBase,
      agent: getAddress(agentOnBase),
      buyer: { address: evmBuyer, keyPath: dir.evmBuyerKey },
      usdcOf: (account) => evm.usdcBalance(account),
    };
  }

  return {
    dir: { path: dir.path, cofferDataDir: dir.cofferDir, temporary: dir.temporary, resumed },
    clusterUrl: cluster.url,
    feePayer: feePayer.address,
    seller: { url: sellerUrl, recipient: seller.recipients[0]!, price: seller.price },
    coffer: { url: server.url, loginUrl: server.loginUrl(), network: coffer.chain.network, treasury: coffer.owner },
    agent: { agentId: agent.agentId, walletAddress: agent.walletAddress, configPath: dir.agentConfig },
    buyer: { address: buyer, keyPath: dir.buyerKey },
    usdcOf: (wallet) => cluster.usdcBalance(wallet),
    base,
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

/** The demo agent's test USDC on the EVM chain, allocated from the treasury there through Coffer's /v1. */
async function fundOnBase(owner: ReturnType<typeof keyClient>, agentId: string): Promise<void> {
  const allocated = await owner.allocate(agentId, { amount: DEMO_AGENT.fund, rail: 'base' });
  if (allocated.status !== 200) throw new Error(`the demo agent could not be funded on the EVM chain: ${JSON.stringify(allocated.body)}`);
}

/**
 * The demo's EVM chain, started from its file; null, said once, where its runtime (EDR, a native
 * module) cannot load on this platform: the demo then runs on Solana alone.
 */
async function localEvmChain(file: string, log: (message: string) => void): Promise<LocalEvmChain | null> {
  let start: typeof import('./local-evm-chain.js').startLocalEvmChain;
  try {
    ({ startLocalEvmChain: start } = await import('./local-evm-chain.js'));
  } catch (error) {
    log(
      `the local EVM chain (EDR) cannot run on ${process.platform}-${process.arch}: the demo runs on Solana alone (${(error as Error).message})`,
    );
    return null;
  }
  return start({ file });
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
