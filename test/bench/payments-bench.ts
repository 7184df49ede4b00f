/**
 * `npm run bench`: payments through Coffer's HTTP API on the embedded chain, beside the raw LiteSVM
 * transfer rate measured in the same process; the x402 round trip beside a bare /pay on a cluster
 * reached over JSON-RPC (see x402-round-trip.ts); and the start-up time of `coffer serve`.
 * Prints figures; asserts nothing (speed is read, not tested).
 */
import { LiteSVM, FailedTransactionMetadata } from 'litesvm';
import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { tempDataDir } from '../helpers/coffer.js';
import { openDatabase } from '../../server/store/database.js';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { createSimChainStore } from '../../server/chain/solana/sim/store.js';
import { SimLedger } from '../../server/chain/solana/sim/ledger.js';
import { MEMO_PROGRAM_ADDRESS } from '../../server/chain/solana/usdc-transfer.js';
import { systemClock } from '../../server/core/ports/keys.js';
import { CLI, spawnServe } from '../helpers/serve-process.js';
import { x402RoundTrip } from './x402-round-trip.js';
import { x402BaseRoundTrip } from './x402-base-round-trip.js';
import { scaleRun } from './scale-bench.js';
import { budgetsRun } from './budgets-bench.js';
import { whatIfRun } from './what-if-bench.js';
import { whatIfLoadLines, whatIfLoadRun } from './what-if-load-bench.js';
import { percentile } from './stats.js';
import { warnIfSourcesChange } from './build-freshness.js';
import { openRawEip3009 } from './raw-eip3009.js';

const TRANSFERS = Number(process.env.BENCH_N ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
// A p99 of 100 calls is the slowest one alone (one hiccup of the machine decided it: 0.4x to 2.7x
// between runs); of 300 the third slowest still swung 0.8x to 1.4x; of 1,000 it is the tenth.
const X402_TRIPS = Number(process.env.BENCH_X402_N ?? 1000);
const WARM_UP = 100;

async function rawLiteSvmRate(n: number): Promise<number> {
  const svm = new LiteSVM();
  const [payer, from, to, mint] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
  svm.airdrop(payer!.address, lamports(100_000_000_000n));
  const send = async (instructions: Instruction[]) => {
    const tx = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer!, m),
      (m) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const result = svm.sendTransaction(tx);
    if (result instanceof FailedTransactionMetadata) throw new Error(result.toString());
  };
  const space = BigInt(getMintSize());
  await send([
    getCreateAccountInstruction({
      payer: payer!,
      newAccount: mint!,
      lamports: svm.minimumBalanceForRentExemption(space),
      space,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint: mint!.address, decimals: 6, mintAuthority: payer!.address }),
  ]);
  const ata = async (owner: typeof from) =>
    (await findAssociatedTokenPda({ mint: mint!.address, owner: owner!.address, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const [source, destination] = [await ata(from), await ata(to)];
  await send([
    getCreateAssociatedTokenIdempotentInstruction({ payer: payer!, ata: source, owner: from!.address, mint: mint!.address }),
    getCreateAssociatedTokenIdempotentInstruction({ payer: payer!, ata: destination, owner: to!.address, mint: mint!.address }),
    getMintToCheckedInstruction({ mint: mint!.address, token: source, mintAuthority: payer!, amount: 10n ** 12n, decimals: 6 }),
  ]);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    // A distinct amount per transfer keeps every transaction unique under one blockhash.
    await send([
      getTransferCheckedInstruction({ source, mint: mint!.address, destination, authority: from!, amount: BigInt(i + 1), decimals: 6 }),
    ]);
  }
  return n / ((performance.now() - start) / 1000);
}

/**
 * A raw chain doing Coffer's own chain work and nothing else: the embedded chain's ledger (LiteSVM
 * with its accounts and log persisted to SQLite, WAL, as `coffer serve` keeps them) running the
 * transaction of a /pay (TransferChecked and its memo, signed by the agent and the treasury as fee
 * payer), built and signed with kit as the bare baseline builds its own. No HTTP, no policy, no ledger.
 */
async function rawLedgerRate(n: number): Promise<number> {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'coffer.db'), 'normal');
  try {
    const ledger = SimLedger.open(createSimChainStore(db), systemClock);
    const [treasury, agent, seller, mint] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
    ledger.airdrop(treasury!.address, 100_000_000_000n);
    const send = async (instructions: Instruction[]) => {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
      const tx = await pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(treasury!, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(blockhash), lastValidBlockHeight }, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
        (m) => signTransactionMessageWithSigners(m),
      );
      const { failure } = ledger.execute(getBase64EncodedWireTransaction(tx));
      if (failure !== null) throw new Error(failure.description);
    };
    const space = BigInt(getMintSize());
    await send([
      getCreateAccountInstruction({
        payer: treasury!,
        newAccount: mint!,
        lamports: ledger.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint!.address, decimals: 6, mintAuthority: treasury!.address }),
    ]);
    const ata = async (owner: typeof agent) =>
      (await findAssociatedTokenPda({ mint: mint!.address, owner: owner!.address, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
    const [source, destination] = [await ata(agent), await ata(seller)];
    await send([
      getCreateAssociatedTokenIdempotentInstruction({ payer: treasury!, ata: source, owner: agent!.address, mint: mint!.address }),
      getCreateAssociatedTokenIdempotentInstruction({ payer: treasury!, ata: destination, owner: seller!.address, mint: mint!.address }),
      getMintToCheckedInstruction({ mint: mint!.address, token: source, mintAuthority: treasury!, amount: 10n ** 12n, decimals: 6 }),
    ]);
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      await send([
        getTransferCheckedInstruction({ source, mint: mint!.address, destination, authority: agent!, amount: 10_000n, decimals: 6 }),
        getAddMemoInstruction({ memo: `pay_${i}` }, { programAddress: MEMO_PROGRAM_ADDRESS }),
      ]);
    }
    return n / ((performance.now() - start) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The benchmark's HTTP client: node:http with keep-alive, as a lean agent would call. (fetch costs
 * the client about 0.9 ms of CPU per call here, on the same two cores as the server it measures.)
 */
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });
function post(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; json(): Promise<{ apiKey: string }>; arrayBuffer(): Promise<Buffer> }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            json: async () => JSON.parse(bytes.toString('utf8')) as { apiKey: string },
            arrayBuffer: async () => bytes,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(data);
  });
}

/** Bytes of a file, 0 where there is none (a write-ahead log truncated or not yet made). */
const fileBytes = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/**
 * What a data dir's SQLite files take on disk while payments run: the database file, and the
 * write-ahead log, sampled for its peak (it must stay bounded whatever the load, see
 * server/store/background-checkpoints.ts); and the ledger's own size (its pages, those still in the
 * log included: the file lags behind its checkpoints) when the watch starts and stops, whose growth
 * over the payments between is what each payment costs for good.
 */
function watchDisk(dataDir: string) {
  const database = join(dataDir, 'coffer.db');
  const wal = `${database}-wal`;
  /** The ledger's pages in all, and by the table or index that holds them (SQLite's dbstat). */
  const ledgerBytes = () => {
    const db = openConnection(database, { readonly: true, fileMustExist: true });
    try {
      const total = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
      const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as { name: string; bytes: number }[];
      return { total, byName: new Map(rows.map((row) => [row.name, row.bytes])) };
    } finally {
      db.close();
    }
  };
  const ledgerAtStart = ledgerBytes();
  let walPeak = fileBytes(wal);
  const sampler = setInterval(() => (walPeak = Math.max(walPeak, fileBytes(wal))), 50);
  return {
    stop: () => {
      clearInterval(sampler);
      const atEnd = ledgerBytes();
      const grown = atEnd.total - ledgerAtStart.total;
      const grownBy = [...atEnd.byName]
        .map(([name, bytes]) => ({ name, bytes: bytes - (ledgerAtStart.byName.get(name) ?? 0) }))
        .filter((row) => row.bytes !== 0)
        .sort((a, b) => b.bytes - a.bytes);
      return { database: fileBytes(database), wal: fileBytes(wal), walPeak: Math.max(walPeak, fileBytes(wal)), grown, grownBy };
    },
  };
}

/** The bench's disk row: what a payment costs on disk, and where (the tables and indexes that grew). */
function diskLines({ onDisk, payments }: Awaited<ReturnType<typeof cofferHttpRun>>, n: number): string[] {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  // What a payment costs for good is the ledger's growth over the run; the log is a bounded cost, not
  // one per payment (over a short run it weighs on the whole files' figure), and an empty ledger's own
  // size (the registry) weighs on it too.
  return [
    `on disk (the concurrent run): ${(onDisk.grown / n).toFixed(0)} bytes a payment (the ledger's growth over its ${n} payments); ` +
      `after ${payments} payments the database is ${(onDisk.database / payments).toFixed(0)} bytes a payment, with its write-ahead log ` +
      `${((onDisk.database + onDisk.wal) / payments).toFixed(0)}; the log peaked at ${mb(onDisk.walPeak)} MB (${mb(onDisk.wal)} MB at the end)`,
    `  by table and index (bytes a payment): ${onDisk.grownBy.map((row) => `${row.name} ${(row.bytes / n).toFixed(0)}`).join(', ')}`,
  ];
}

/** An EVM recipient: `rail: 'base'` runs pay it in USDC on Base (the embedded EVM chain). */
const BASE_SELLER = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * `coffer serve` running as its own process, as agents on the machine would call it, with an agent
 * funded on `rail` and warmed up; `run` measures payments from it, as many times as asked.
 */
async function openCofferHttp(rail: 'sol' | 'base' = 'sol') {
  const dataDir = tempDataDir();
  const serve = await spawnServe(dataDir);
  const close = async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const call = (path: string, key: string, body: unknown) => post(`${serve.url}${path}?owner=${owner}`, key, body);
    const agent = await (
      await call('/v1/agents/deploy', ownerKey, { agentId: 'bench', dailyBudget: '1000000', maxPerPayment: '1' })
    ).json();
    await call('/v1/agents/bench/allocate', ownerKey, { amount: '500', rail });
    const paid = rail === 'sol' ? { service: 'demo-weather' } : { service: 'bench-api', recipient: BASE_SELLER };
    // Warm-up, not measured: the first payments compile the hot code and the transfer's shape.
    for (let i = 0; i < WARM_UP; i++) {
      await (await call('/v1/agents/bench/pay', agent.apiKey, { ...paid, amount: '0.01', description: `warm-up ${i}` })).arrayBuffer();
    }
    let paidSoFar = WARM_UP;
    const run = async (n: number, concurrency: number) => {
      const disk = watchDisk(dataDir);
      const latencies: number[] = [];
      let next = 0;
      let failures = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < n) {
            const i = next++;
            const began = performance.now();
            const response = await call('/v1/agents/bench/pay', agent.apiKey, {
              ...paid,
              amount: '0.01',
              currency: 'USDC',
              description: `bench ${paidSoFar + i}`,
            });
            await response.arrayBuffer();
            latencies.push(performance.now() - began);
            if (response.status !== 200) failures += 1;
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      const onDisk = disk.stop();
      latencies.sort((a, b) => a - b);
      paidSoFar += n;
      // Every payment of the data dir, the warm-up's too, is in these files.
      return { rate: n / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures, onDisk, payments: paidSoFar };
    };
    return { run, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `n` payments at `concurrency` against a `coffer serve` of their own. */
async function cofferHttpRun(n: number, concurrency: number, rail: 'sol' | 'base' = 'sol') {
  const coffer = await openCofferHttp(rail);
  try {
    return await coffer.run(n, concurrency);
  } finally {
    await coffer.close();
  }
}

/** Milliseconds from spawning a process to its exit, the fastest of `runs`. */
function processTime(args: string[], runs = 5): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited with ${result.status}`);
    best = Math.min(best, performance.now() - began);
  }
  return best;
}

async function serveStartup(dataDir: string): Promise<number> {
  const began = performance.now();
  const serve = await spawnServe(dataDir);
  const health = await fetch(`${serve.url}/v1/health`);
  const elapsed = performance.now() - began;
  if (health.status !== 200) throw new Error('health did not answer');
  serve.child.kill('SIGTERM');
  await serve.exited;
  return elapsed;
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(8);
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;

/** The x402 rows: each purchase beside the official client's, Coffer's steps, /pay and MCP beside it. */
function x402Lines(overRpc: Awaited<ReturnType<typeof x402RoundTrip>>): string[] {
  const { coffer: viaCoffer, official, mcp, agentProcess, steps, officialSteps } = overRpc;
  const ms = (value: number) => fmt(value, 2);
  return [
    `On a cluster over JSON-RPC (the test cluster as devnet), ${X402_TRIPS} calls each, alternated:`,
    '                                                       p50 ms   p99 ms',
    `x402 purchase, official @x402/fetch, bare keypair      ${ms(official.p50)} ${ms(official.p99)}`,
    `x402 purchase, payingFetch through Coffer              ${ms(viaCoffer.p50)} ${ms(viaCoffer.p99)}`,
    `x402 purchase, MCP fetch_paid through coffer mcp       ${ms(mcp.p50)} ${ms(mcp.p99)}`,
    `x402 purchase, payingFetch in an agent's own process   ${ms(agentProcess.p50)} ${ms(agentProcess.p99)}`,
    `  Coffer's steps (p50): the seller's 402 ${steps.seller402.p50.toFixed(2)} ms, POST /x402 ${steps.x402.p50.toFixed(2)} ms, the paid retry ${steps.paidRetry.p50.toFixed(2)} ms`,
    `  the official buyer's (p50): the seller's 402 ${officialSteps.seller402.p50.toFixed(2)} ms, the paid retry ${officialSteps.paidRetry.p50.toFixed(2)} ms; signing, the rest, ${(official.p50 - officialSteps.seller402.p50 - officialSteps.paidRetry.p50).toFixed(2)} ms`,
    `Coffer /pay over HTTP (Coffer sends, confirms)         ${ms(overRpc.pay.p50)} ${ms(overRpc.pay.p99)}`,
    `MCP pay through coffer mcp                             ${ms(overRpc.mcpPay.p50)} ${ms(overRpc.mcpPay.p99)}`,
    `ratio payingFetch / official: p50 ${(viaCoffer.p50 / official.p50).toFixed(3)}, p99 ${(viaCoffer.p99 / official.p99).toFixed(3)} (facilitator settlements: ${overRpc.settled})`,
    `MCP beside HTTP: fetch_paid ${signed(mcp.p50 - agentProcess.p50)} ms p50 (beside payingFetch in a process of its own), pay ${signed(overRpc.mcpPay.p50 - overRpc.pay.p50)} ms p50`,
  ];
}

/** The x402 row on Base (issue 50): each purchase beside the official EVM client's, on the same seller, facilitator and chain. */
function x402BaseLines(onBase: Awaited<ReturnType<typeof x402BaseRoundTrip>>): string[] {
  const { coffer, official, floor } = onBase;
  const ms = (value: number) => fmt(value, 2);
  return [
    `x402 on Base (a node with Base Sepolia's chain id, over JSON-RPC), ${X402_TRIPS} calls each, shuffled together:`,
    '                                                       p50 ms   p99 ms',
    `x402 purchase, official @x402/fetch, bare viem key     ${ms(official.p50)} ${ms(official.p99)}`,
    `x402 purchase, payingFetch through Coffer              ${ms(coffer.p50)} ${ms(coffer.p99)}`,
    `x402 purchase, official buyer, key in a bare signer    ${ms(floor.p50)} ${ms(floor.p99)}`,
    `  Coffer's steps (p50): the seller's 402 ${onBase.steps.seller402.p50.toFixed(2)} ms, POST /x402 ${onBase.steps.x402.p50.toFixed(2)} ms, the paid retry ${onBase.steps.paidRetry.p50.toFixed(2)} ms`,
    `  the official buyer's (p50): the seller's 402 ${onBase.officialSteps.seller402.p50.toFixed(2)} ms, the paid retry ${onBase.officialSteps.paidRetry.p50.toFixed(2)} ms; signing, the rest, ${(official.p50 - onBase.officialSteps.seller402.p50 - onBase.officialSteps.paidRetry.p50).toFixed(2)} ms`,
    `  the floor's (p50): the seller's 402 ${onBase.floorSteps.seller402.p50.toFixed(2)} ms, the paid retry ${onBase.floorSteps.paidRetry.p50.toFixed(2)} ms; signing in its signer, the rest, ${(floor.p50 - onBase.floorSteps.seller402.p50 - onBase.floorSteps.paidRetry.p50).toFixed(2)} ms`,
    cpuLine(onBase.cpu),
    ...afterLines(onBase.after),
    `ratio payingFetch / official on Base: p50 ${(coffer.p50 / official.p50).toFixed(3)} (goal 1.1), p99 ${(coffer.p99 / official.p99).toFixed(3)} (facilitator settlements: ${onBase.settled}; ${coffer.failures + official.failures + floor.failures} failed)`,
    `  the floor (the key in another process, each authorization written with an fsync before it is answered, nothing else) / official: p50 ${(floor.p50 / official.p50).toFixed(3)}`,
    // What a goal this row can hold would name (docs/BENCH.md): Coffer's own work beyond the floor.
    `  payingFetch / the floor: p50 ${(coffer.p50 / floor.p50).toFixed(3)}; Coffer adds ${(coffer.p50 - official.p50).toFixed(2)} ms at p50 to the official buyer, ${(coffer.p50 - floor.p50).toFixed(2)} ms to the floor`,
  ];
}

/** Each kind's p50 by the kind of purchase before it (a Coffer purchase's settlement report runs into the next one). */
function afterLines(after: Awaited<ReturnType<typeof x402BaseRoundTrip>>['after']): string[] {
  const side = (each: { coffer: { p50: number; n: number }; official: { p50: number; n: number } }) =>
    `Coffer ${each.coffer.p50.toFixed(2)} ms (${each.coffer.n}), official ${each.official.p50.toFixed(2)} ms (${each.official.n}), ratio ${(each.coffer.p50 / each.official.p50).toFixed(3)}`;
  return [
    `  p50 after an official purchase: ${side(after.official)}`,
    `  p50 after a Coffer purchase (its settlement report still running): ${side(after.coffer)}`,
  ];
}

/** The CPU each kind of Base purchase cost, in the bench's process and in `coffer serve` (where it can be read). */
function cpuLine(cpu: Awaited<ReturnType<typeof x402BaseRoundTrip>>['cpu']): string {
  const serve = (each: { serve: number | null }) => (each.serve === null ? 'unread' : `${each.serve.toFixed(1)} ms`);
  return `  CPU while each ran (mean): via Coffer ${cpu.coffer.bench.toFixed(1)} ms here, ${serve(cpu.coffer)} in coffer serve; official ${cpu.official.bench.toFixed(1)} ms here, ${serve(cpu.official)} in coffer serve; the floor ${cpu.floor.bench.toFixed(1)} ms here, ${serve(cpu.floor)} in its signer`;
}

/** Rounds the Base row alternates its two sides in: this machine's speed drifts by a quarter within a minute. */
const BASE_ROUNDS = Number(process.env.BENCH_BASE_ROUNDS ?? 5);

/**
 * The Base rail (issue 49): /pay on the embedded EVM chain against a raw EIP-3009 transfer there,
 * alternated in rounds (a round's ratio compares the two at the same minute; the median of the rounds
 * is the row's), and Solana's /pay in the same run.
 */
async function baseLines(): Promise<string[]> {
  const perRound = Math.max(1, Math.round(TRANSFERS / BASE_ROUNDS));
  const raw = await openRawEip3009();
  const coffer = await openCofferHttp('base');
  const rounds: { raw: number; coffer: Awaited<ReturnType<typeof coffer.run>> }[] = [];
  try {
    for (let round = 0; round < BASE_ROUNDS; round++) {
      const rawRate = await raw.rate(perRound);
      rounds.push({ raw: rawRate, coffer: await coffer.run(perRound, CONCURRENCY) });
    }
  } finally {
    raw.close();
    await coffer.close();
  }
  const ratios = rounds.map((round) => round.coffer.rate / round.raw).sort((a, b) => a - b);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const ledger = await rawLedgerRate(TRANSFERS);
  const onSolana = await cofferHttpRun(TRANSFERS, CONCURRENCY, 'sol');
  const list = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
  return [
    `The Base rail (embedded EVM chain), ${BASE_ROUNDS} rounds of ${perRound} payments at ${CONCURRENCY} concurrent, each beside as many raw transfers:`,
    `raw EIP-3009 transfer (viem, sequential, its receipt)  ${list(rounds.map((round) => round.raw))}/s`,
    `Coffer /pay to an EVM recipient                        ${list(rounds.map((round) => round.coffer.rate))}/s   p50 ${median(rounds.map((round) => round.coffer.p50)).toFixed(2)} ms   p99 ${median(rounds.map((round) => round.coffer.p99)).toFixed(2)} ms   (${rounds.reduce((sum, round) => sum + round.coffer.failures, 0)} failed)`,
    `ratio Coffer /pay on Base / raw EIP-3009 transfer: median ${median(ratios).toFixed(3)} (rounds ${ratios[0]!.toFixed(3)} to ${ratios.at(-1)!.toFixed(3)}; goal 0.8)`,
    `Solana in the same run: /pay ${onSolana.rate.toFixed(0)}/s against its raw chain ${ledger.toFixed(0)}/s, ratio ${(onSolana.rate / ledger).toFixed(3)}`,
  ];
}

function whatIfLine(whatIf: Awaited<ReturnType<typeof whatIfRun>>): string {
  return `What-if (issue 26): 10 budgets, a lower max and a threshold replayed on ${whatIf.payments.toLocaleString('en-US')} payments of 30 days, over HTTP (${whatIf.refused} would be refused, ${whatIf.held} held for the owner): p50 ${whatIf.p50.toFixed(1)} ms, slowest ${whatIf.max.toFixed(1)} ms (target under 50 ms)`;
}

warnIfSourcesChange();
console.log(`Coffer payments benchmark: ${TRANSFERS} payments, node ${process.version}; coffer serve runs as its own process`);
// BENCH_ONLY=disk: the concurrent run and its disk row alone (seconds, where the whole bench takes minutes).
if (process.env.BENCH_ONLY === 'disk') {
  for (const line of diskLines(await cofferHttpRun(TRANSFERS, CONCURRENCY), TRANSFERS)) console.log(line);
  process.exit(0);
}
// BENCH_ONLY=pay: the /pay throughput row alone, beside its two baselines (a minute).
if (process.env.BENCH_ONLY === 'pay') {
  const [bare, ledger, run] = [
    await rawLiteSvmRate(TRANSFERS),
    await rawLedgerRate(TRANSFERS),
    await cofferHttpRun(TRANSFERS, CONCURRENCY),
  ];
  console.log(
    `raw LiteSVM ${bare.toFixed(0)}/s, raw chain with Coffer's transfer and persistence ${ledger.toFixed(0)}/s, Coffer /pay at ${CONCURRENCY} concurrent ${run.rate.toFixed(0)}/s`,
  );
  console.log(
    `ratio Coffer (concurrent) / raw chain with Coffer's transfer and persistence: ${(run.rate / ledger).toFixed(3)}; / raw LiteSVM: ${(run.rate / bare).toFixed(3)}`,
  );
  process.exit(0);
}
// BENCH_ONLY=base: the Base rail's /pay row beside a raw EIP-3009 transfer on the same EVM, and the Solana row in the same run.
if (process.env.BENCH_ONLY === 'base') {
  for (const line of await baseLines()) console.log(line);
  process.exit(0);
}
// BENCH_ONLY=scale: the rows at scale alone (a few minutes).
if (process.env.BENCH_ONLY === 'scale') {
  for (const line of await scaleRun()) console.log(line);
  process.exit(0);
}
// BENCH_ONLY=x402: the x402 rows alone (a minute).
if (process.env.BENCH_ONLY === 'x402') {
  for (const line of x402Lines(await x402RoundTrip(X402_TRIPS))) console.log(line);
  process.exit(0);
}
// BENCH_ONLY=x402-base: the x402 row on Base alone (a minute or two).
if (process.env.BENCH_ONLY === 'x402-base') {
  for (const line of x402BaseLines(await x402BaseRoundTrip(X402_TRIPS))) console.log(line);
  process.exit(0);
}
// BENCH_ONLY=what-if: the what-if row alone (seconds).
if (process.env.BENCH_ONLY === 'what-if') {
  console.log(whatIfLine(await whatIfRun()));
  process.exit(0);
}
// BENCH_ONLY=what-if-load: /pay alone and beside an agent hammering the what-if (a few minutes; also in the whole run).
if (process.env.BENCH_ONLY === 'what-if-load') {
  for (const line of whatIfLoadLines(await whatIfLoadRun(TRANSFERS, Number(process.env.BENCH_WHAT_IF_ROUNDS ?? 3)))) console.log(line);
  process.exit(0);
}
const raw = await rawLiteSvmRate(TRANSFERS);
const rawLedger = await rawLedgerRate(TRANSFERS);
const sequential = await cofferHttpRun(Math.min(TRANSFERS, 300), 1);
const concurrent = await cofferHttpRun(TRANSFERS, CONCURRENCY);
const overRpc = await x402RoundTrip(X402_TRIPS);
const x402OnBase = await x402BaseRoundTrip(X402_TRIPS);
const onBase = await baseLines();
const budgets = await budgetsRun(Number(process.env.BENCH_BUDGET_N ?? 300));
const whatIf = await whatIfRun();
const whatIfLoad = await whatIfLoadRun(TRANSFERS, Number(process.env.BENCH_WHAT_IF_ROUNDS ?? 3));
const dir = tempDataDir();
const firstStart = await serveStartup(dir);
const warmStart = await serveStartup(dir);
rmSync(dir, { recursive: true, force: true });
const bareNode = processTime(['-e', '0']);
const version = processTime([CLI, '--version']);

console.log('');
console.log('                                       per second   p50 ms   p99 ms');
console.log(`raw LiteSVM transferChecked (baseline)   ${fmt(raw)}`);
console.log(`raw chain, Coffer's transfer + persisted ${fmt(rawLedger)}`);
console.log(`Coffer /pay over HTTP, 1 at a time       ${fmt(sequential.rate)} ${fmt(sequential.p50, 2)} ${fmt(sequential.p99, 2)}`);
console.log(
  `Coffer /pay over HTTP, ${String(CONCURRENCY).padEnd(2)} concurrent    ${fmt(concurrent.rate)} ${fmt(concurrent.p50, 2)} ${fmt(concurrent.p99, 2)}`,
);
console.log('');
console.log(`ratio Coffer (concurrent) / raw LiteSVM: ${(concurrent.rate / raw).toFixed(3)}`);
console.log(`ratio Coffer (sequential) / raw LiteSVM: ${(sequential.rate / raw).toFixed(3)}`);
console.log(`ratio Coffer (concurrent) / raw chain with Coffer's transfer and persistence: ${(concurrent.rate / rawLedger).toFixed(3)}`);
console.log(
  `serial p50 beside the raw transfer's own time (${(1000 / raw).toFixed(2)} ms): +${(sequential.p50 - 1000 / raw).toFixed(2)} ms; p99 at ${CONCURRENCY} concurrent / p50: ${(concurrent.p99 / concurrent.p50).toFixed(2)}`,
);
console.log('');
for (const line of x402Lines(overRpc)) console.log(line);
console.log('');
for (const line of x402BaseLines(x402OnBase)) console.log(line);
console.log('');
for (const line of onBase) console.log(line);
console.log('');
for (const line of diskLines(concurrent, TRANSFERS)) console.log(line);
console.log('');
console.log('Budgets (issue 25): /pay one at a time, alternated, same server:');
console.log(`agent with the daily budget alone                      p50 ${fmt(budgets.plain.p50, 2)}   p99 ${fmt(budgets.plain.p99, 2)}`);
console.log(
  `agent with 10 budgets and 100,000 payments of history  p50 ${fmt(budgets.budgeted.p50, 2)}   p99 ${fmt(budgets.budgeted.p99, 2)}`,
);
console.log(
  `  the same, its budgets within its history's reach     p50 ${fmt(budgets.reached.p50, 2)}   p99 ${fmt(budgets.reached.p99, 2)}`,
);
console.log(
  `ratio p50 (10 budgets / daily alone): ${(budgets.budgeted.p50 / budgets.plain.p50).toFixed(3)}, within reach ${(budgets.reached.p50 / budgets.plain.p50).toFixed(3)}; the budgets set over that history in ${budgets.setMs.toFixed(0)} ms`,
);
console.log(whatIfLine(whatIf));
for (const line of whatIfLoadLines(whatIfLoad)) console.log(line);
console.log(
  `failed payments: ${sequential.failures + concurrent.failures + [overRpc.pay, overRpc.mcpPay, overRpc.coffer, overRpc.official, overRpc.mcp, overRpc.agentProcess, x402OnBase.coffer, x402OnBase.official].reduce((sum, row) => sum + row.failures, 0)}`,
);
console.log(`coffer serve to /v1/health: first start ${firstStart.toFixed(0)} ms, warm restart ${warmStart.toFixed(0)} ms`);
console.log(`coffer --version ${version.toFixed(0)} ms, beside node -e 0 ${bareNode.toFixed(0)} ms (fastest of 5)`);

if (process.env.BENCH_SCALE) {
  console.log('');
  console.log('At scale (BENCH_SCALE=1; seeded by direct inserts):');
  for (const line of await scaleRun()) console.log(line);
}
