import { existsSync } from 'node:fs';
import { STOP_SIGNALS } from '../boot/stop-signals.js';
import { formatUsdc } from '../wire/money.js';
import { networkWords } from '../wire/network-words.js';
import { packagePath } from '../package/package-files.js';
import { shellCommand, shellWords } from '../boot/cli-invocation.js';
import { DEMO_AGENT, DEMO_X402_PORT, startDemoX402, type RunningDemo } from '../demo-x402/demo-x402.js';

/** The official x402 client the demo points at: a script of this repository (its @x402/fetch is a dev dependency). */
const OFFICIAL_BUYER = packagePath('examples', 'x402-official-buyer.mjs');

/**
 * `coffer demo-x402`: starts the whole x402 loop with test money (demo-x402.ts), prints where each
 * part runs and the two commands to pay it, then runs until SIGINT, SIGTERM or SIGHUP, when every part stops
 * (in-flight payments finish) and a temporary folder is removed. A refusal is one line with its code
 * on stderr, exit 1, nothing started.
 */
export async function demoX402(flags: { port?: string; 'data-dir'?: string }, version: string): Promise<number> {
  // Signals are listened for first: one during start-up stops the demo as soon as it is up.
  const early: string[] = [];
  let onSignal: (signal: string) => void = (signal) => void early.push(signal);
  // Listened to for good: a second Ctrl-C, or the terminal closing, must not cut the stop short
  // (and leave its temporary folder behind).
  for (const signal of STOP_SIGNALS) process.on(signal, () => onSignal(signal));
  // --port was checked as the command was read (table/engine-options.ts).
  const portText = flags.port ?? String(DEMO_X402_PORT);
  const log = (message: string) => process.stderr.write(`${message}\n`);

  const started = await startDemoX402({ dataDir: flags['data-dir'], port: Number(portText), version, log });
  if (!started.ok) {
    console.error(`coffer: ${started.message} (${started.code})`);
    return 1;
  }
  const { demo } = started;
  console.log(await describe(demo));
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping the demo`);
      demo.stop().then(
        () => {
          log(demo.dir.temporary ? `stopped; removed ${demo.dir.path}` : `stopped; ${demo.dir.path} kept`);
          resolve(0);
        },
        (error: unknown) => {
          log(`coffer: the demo did not stop cleanly: ${(error as Error).message}`);
          resolve(1);
        },
      );
    };
    onSignal = stop;
    if (early[0]) stop(early[0]);
  });
}

/** What the demo prints: test money first, where each part runs, then what to type next. */
async function describe(demo: RunningDemo): Promise<string> {
  const { base } = demo;
  const usdc = async (wallet: string) => `${formatUsdc(await demo.usdcOf(wallet))} test USDC`;
  const baseUsdc = async (account: `0x${string}`) => `${formatUsdc(await base!.usdcOf(account))} test USDC`;
  const weather = `${demo.seller.url}/weather?city=Lisbon`;
  const quote = `${demo.seller.url}/quote?symbol=SOL`;
  const official = existsSync(OFFICIAL_BUYER)
    ? [
        `  Pay with the official x402 client (@x402/fetch) from the buyer wallet${base === null ? '' : ', on Solana, then on the EVM chain'}:`,
        `    ${shellWords(['node', OFFICIAL_BUYER, demo.buyer.keyPath, demo.clusterUrl, quote])}`,
        ...(base === null
          ? []
          : [`    ${shellWords(['node', OFFICIAL_BUYER, base.buyer.keyPath, base.rpcUrl, quote, `${base.x402Network}/${base.usdc}`])}`]),
      ]
    : [
        '  Pay with an official x402 client (@x402/fetch) from the buyer wallet: its key file and the cluster above,',
        `  as in "Try x402 offline" in Coffer's docs/X402.md (${quote}).`,
      ];
  const chains =
    base === null
      ? `a local Solana cluster (${demo.coffer.network}), not devnet or mainnet`
      : `a local Solana cluster (${demo.coffer.network}) and a local EVM chain (${base.network}), not devnet, mainnet or Base`;
  return [
    `TEST MONEY: coffer demo-x402 runs x402 on ${chains}. Nothing here is worth anything.`,
    `  x402 names no local network, so the official packages see this cluster as devnet and its USDC sits at devnet's`,
    `  mint address; Coffer calls it ${demo.coffer.network}: ${networkWords(demo.coffer.network)}.`,
    ...(base === null
      ? []
      : [
          `  The EVM chain is embedded, as a Coffer's own is, with an id of its own (${base.chainId}, never a real chain's), which x402 calls ${base.x402Network};`,
          `  Coffer pays on it as its Base rail.`,
        ]),
    '',
    `Local cluster (Solana JSON-RPC): ${demo.clusterUrl}`,
    ...(base === null ? [] : [`Local EVM chain (Ethereum JSON-RPC): ${base.rpcUrl}`]),
    `Facilitator: the official @x402/core with @x402/svm${base === null ? '' : ' and @x402/evm'}, in this process; fees paid by ${demo.feePayer} (test SOL)` +
      (base === null ? '' : `; on the EVM chain sent by ${base.facilitator} (test ETH)`),
    `Seller: the official @x402/express middleware (x402 v2), ${demo.seller.price} test USDC a call, paid to ${demo.seller.recipient}` +
      (base === null ? '' : ` (on the EVM chain to ${base.sellerRecipient})`),
    `  ${weather}`,
    `  ${quote}`,
    `Coffer: ${demo.coffer.url} (network: ${demo.coffer.network}), treasury ${demo.coffer.treasury} holding ${await usdc(demo.coffer.treasury)}`,
    ...(base === null ? [] : [`  on the EVM chain: ${base.treasury} holding ${await baseUsdc(base.treasury)}`]),
    `  Dashboard login (one-time, 10 minutes): ${demo.coffer.loginUrl}`,
    `Agent ${demo.agent.agentId}: wallet ${demo.agent.walletAddress} holding ${await usdc(demo.agent.walletAddress)}` +
      ` (daily budget ${DEMO_AGENT.dailyBudget}, at most ${DEMO_AGENT.maxPerPayment} a payment)`,
    ...(base === null ? [] : [`  on the EVM chain: ${base.agent} holding ${await baseUsdc(base.agent)}`]),
    `  its config: ${demo.agent.configPath}`,
    `Buyer wallet for any x402 client: ${demo.buyer.address} holding ${await usdc(demo.buyer.address)}`,
    `  its key: ${demo.buyer.keyPath}`,
    ...(base === null
      ? []
      : [
          `Buyer account on the EVM chain: ${base.buyer.address} holding ${await baseUsdc(base.buyer.address)}`,
          `  its key: ${base.buyer.keyPath}`,
        ]),
    '',
    'Next, in another terminal:',
    `  Pay as the Coffer agent, within its policy${base === null ? '' : ' (on Solana, then with --rail base on the EVM chain)'}:`,
    `    ${shellCommand(['fetch', '--config', demo.agent.configPath, weather])}`,
    ...(base === null ? [] : [`    ${shellCommand(['fetch', '--rail', 'base', '--config', demo.agent.configPath, weather])}`]),
    ...official,
    `  See it as the owner (the treasury and each agent${base === null ? '):' : ', on each chain), and pay on the EVM chain where a seller takes both:'}`,
    `    ${shellCommand(['status', '--owner', '--data-dir', demo.dir.cofferDataDir])}`,
    ...(base === null ? [] : [`    ${shellCommand(['settings', '--preferred-rail', 'base', '--data-dir', demo.dir.cofferDataDir])}`]),
    '',
    demo.dir.temporary
      ? `Data dir: ${demo.dir.path} (temporary: removed when this stops)`
      : `Data dir: ${demo.dir.path} (kept${demo.dir.resumed ? '; started again where it stopped' : ''}: coffer demo-x402 --data-dir ${demo.dir.path} goes on from it)`,
    // The demo's folder holds its Coffer's data dir, which the owner's commands take (not the folder).
    `  its Coffer's, for the owner's commands (--data-dir): ${demo.dir.cofferDataDir}`,
    'Ctrl-C stops it all.',
  ].join('\n');
}
