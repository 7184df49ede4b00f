/**
 * An x402 purchase on Base as an agent lives it, against the official buyer on the same seller,
 * facilitator and chain (issue 50): `coffer serve` as its own process beside a node with Base
 * Sepolia's chain id, an official `@x402/express` seller settling through the official `@x402/evm`
 * facilitator (in the bench process). Alternated in one shuffled sequence of both kinds, so that each
 * kind follows each kind about as often (what a purchase leaves running falls on the next one):
 * - `payingFetch` through Coffer: the 402, Coffer's `/x402` (policy, reservation, the agent's
 *   EIP-3009 authorization signed and read back), the paid retry (the facilitator's verify and
 *   settle); the settlement report follows, not waited for;
 * - the official `@x402/fetch` with a bare viem key (no policy, no ledger): the 402, signing, the retry;
 * - the floor: the same official buyer, its key held by a bare signer in another process that records
 *   each authorization with an fsync before answering (`bare-remote-signer.ts`). What any design
 *   that keeps the key out of the agent's process and writes before the handout costs at least.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseEther, type Address } from 'viem';
import { baseSepolia } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { x402Client } from '@x402/core/client';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { TestCluster } from '../fixtures/test-cluster.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { BASE_SEPOLIA_X402, startEvmFacilitator, startEvmV2Seller } from '../fixtures/x402-evm-peers.js';
import { micro, tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { Timings, paidAnswer, steppedFetch, type PurchaseSteps } from './stats.js';
import { Rng } from '../probe/lib/rng.js';

const WARM_UP = 10;

/** The bare remote signer (its own process) and a viem-shaped signer that asks it over HTTP. */
async function startBareRemoteSigner(dataDir: string) {
  const key = generatePrivateKey();
  const script = fileURLToPath(new URL('./bare-remote-signer.ts', import.meta.url));
  const runTs = fileURLToPath(new URL('../../server/cli/run-ts.js', import.meta.url));
  const child = spawn(process.execPath, [runTs, script], {
    env: { ...process.env, BARE_SIGNER_KEY: key, BARE_SIGNER_DB: join(dataDir, 'bare-signer.sqlite') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the bare signer exited with ${code}`)));
  });
  const address: Address = privateKeyToAccount(key).address;
  const signer = {
    address,
    signTypedData: async (typed: unknown) => {
      const body = JSON.stringify(typed, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
      const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (!answer.ok) throw new Error(`the bare signer refused: ${await answer.text()}`);
      return ((await answer.json()) as { signature: `0x${string}` }).signature;
    },
  };
  return { child, address, signer };
}

/**
 * A process's CPU time so far in ms (Linux: its /proc stat, in clock ticks of 10 ms; summed over a
 * thousand purchases, close enough), or null where there is none to read.
 */
function cpuMsOf(pid: number | undefined): number | null {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The CPU a kind of purchase costs, in this process (seller, facilitator, node, buyer) and in the one holding the key (`coffer serve`, or the floor's signer). */
class CpuPerPurchase {
  bench = 0;
  serve: number | null = 0;
  count = 0;
  async time(servePid: number | undefined, purchase: () => Promise<void>, measured: boolean): Promise<void> {
    const bench = process.cpuUsage();
    const serve = cpuMsOf(servePid);
    await purchase();
    if (!measured) return;
    const used = process.cpuUsage(bench);
    const served = cpuMsOf(servePid);
    this.bench += (used.user + used.system) / 1000;
    this.serve = this.serve === null || serve === null || served === null ? null : this.serve + served - serve;
    this.count += 1;
  }
  get summary() {
    return { bench: this.bench / this.count, serve: this.serve === null ? null : this.serve / this.count };
  }
}

export async function x402BaseRoundTrip(n: number) {
  const cluster = await new TestCluster({ as: 'devnet' }).start();
  const node = await TestEvmNode.start();
  const dataDir = tempDataDir();
  const serve = await spawnServe(dataDir, { COFFER_NETWORK: cluster.url, COFFER_BASE_RPC: node.url });
  const facilitator = await startEvmFacilitator(baseSepolia, node.url, (account) => node.fundEth(account, parseEther('10')));
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const seller = await startEvmV2Seller(facilitator, { payTo, price: '$0.01' });
  const bare = await startBareRemoteSigner(dataDir);
  try {
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const call = async (method: string, path: string, key: string, body?: unknown) =>
      fetch(`${serve.url}${path}?owner=${owner}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const treasury = (await json(call('GET', '/v1/dashboard', ownerKey))).treasury.wallets.base;
    await node.fundEth(treasury, parseEther('1'));
    await node.mint(treasury, micro('1000'));
    const agent = await json(
      call('POST', '/v1/agents/deploy', ownerKey, { agentId: 'bench-x402-base', dailyBudget: '1000000', maxPerPayment: '1' }),
    );
    await call('POST', '/v1/agents/bench-x402-base/allocate', ownerKey, { amount: '500', rail: 'base' });
    const paying = { cofferUrl: serve.url, owner, agentId: 'bench-x402-base', apiKey: agent.apiKey };
    // The official buyer: a bare key holding USDC on Base (the facilitator pays the gas).
    const buyer = privateKeyToAccount(generatePrivateKey());
    await node.mint(buyer.address, micro('500'));
    await node.mint(bare.address, micro('500'));
    let measuring = false;
    // Where each buyer's purchase spends its time: each request it makes, by what it is. The official
    // buyer's signing is what its purchase spends between its two requests.
    const steppedBy = (steps: PurchaseSteps) => steppedFetch(seller.url, () => measuring, steps);
    const steps = { seller402: new Timings(), x402: new Timings(), paidRetry: new Timings() };
    const officialSteps = { seller402: new Timings(), paidRetry: new Timings() };
    const floorSteps = { seller402: new Timings(), paidRetry: new Timings() };
    const stepped = steppedBy(steps);
    const officialBuyer = (signer: Parameters<typeof toClientEvmSigner>[0], fetched: typeof fetch) =>
      wrapFetchWithPayment(
        fetched,
        x402Client.fromConfig({ schemes: [{ network: BASE_SEPOLIA_X402.v2, client: new ExactEvmScheme(toClientEvmSigner(signer)) }] }),
      );
    const official = officialBuyer(buyer, steppedBy(officialSteps));
    const floor = officialBuyer(bare.signer, steppedBy(floorSteps));
    const timings = { coffer: new Timings(), official: new Timings(), floor: new Timings() };
    type Kind = keyof typeof timings;
    const KINDS = Object.keys(timings) as Kind[];
    // What each purchase costs the machine's two cores, while it runs: Coffer's settlement report, not
    // waited for, falls into the purchase after it, whichever that is.
    const cpu = { coffer: new CpuPerPurchase(), official: new CpuPerPurchase(), floor: new CpuPerPurchase() };
    // Each purchase timed again by the kind before it: a Coffer purchase leaves its settlement report
    // running (Coffer reads the receipt from the node, in this process, and records it).
    const after = Object.fromEntries(KINDS.map((before) => [before, { coffer: new Timings(), official: new Timings() }])) as Record<
      Kind,
      { coffer: Timings; official: Timings }
    >;
    const answers: Record<Kind, () => Promise<Response>> = {
      coffer: () => payingFetch(seller.url, {}, { agent: paying, fetch: stepped }).then((paid) => paid.response),
      official: () => official(seller.url),
      floor: () => floor(seller.url),
    };
    // The CPU of the process holding the key: `coffer serve`, or the floor's own signer.
    const keyHolder = (kind: Kind) => (kind === 'floor' ? bare.child.pid : serve.child.pid);
    const purchase = (kind: Kind) =>
      cpu[kind].time(keyHolder(kind), () => timings[kind].time(() => paidAnswer(answers[kind]()), measuring), measuring);
    // Seeded: every run shuffles alike. Shuffled in pairs (one of each kind a round), a kind followed
    // the other three times in four, so Coffer's report fell mostly on the official buyer's purchases.
    const order = new Rng(0x5ba5e402);
    const sequence = (count: number) => order.shuffle(KINDS.flatMap((kind) => Array<Kind>(count).fill(kind)));
    let before: Kind | null = null;
    for (const [measured, count] of [
      [false, WARM_UP],
      [true, n],
    ] as const) {
      measuring = measured;
      for (const kind of sequence(count)) {
        await purchase(kind);
        if (measuring && before !== null && kind !== 'floor') after[before][kind].ms.push(timings[kind].ms.at(-1)!);
        before = kind;
      }
    }
    return {
      coffer: timings.coffer.summary,
      official: timings.official.summary,
      floor: timings.floor.summary,
      steps: { seller402: steps.seller402.summary, x402: steps.x402.summary, paidRetry: steps.paidRetry.summary },
      officialSteps: { seller402: officialSteps.seller402.summary, paidRetry: officialSteps.paidRetry.summary },
      floorSteps: { seller402: floorSteps.seller402.summary, paidRetry: floorSteps.paidRetry.summary },
      cpu: { coffer: cpu.coffer.summary, official: cpu.official.summary, floor: cpu.floor.summary },
      after: {
        official: { coffer: after.official.coffer.summary, official: after.official.official.summary },
        coffer: { coffer: after.coffer.coffer.summary, official: after.coffer.official.summary },
      },
      settled: facilitator.settles.succeeded,
    };
  } finally {
    bare.child.kill('SIGTERM');
    await seller.close();
    await facilitator.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
    await node.stop();
    await cluster.stop();
  }
}
