/**
 * One agent's what-ifs beside every agent's payments (issue 47): /pay at 8 concurrent from one agent,
 * alone and while another agent hammers POST /v1/agents/:id/policy/what-if (4, then 8 at a time, each
 * asked again the moment it is answered, a refusal included, as a key that ignores Retry-After would),
 * while the owner does (never refused: what the worker alone keeps off the serving thread), and, for
 * the floor any request has, while an agent hammers its balance 8 at a time. One `coffer serve` (its
 * own process), each row beside /pay alone measured just before it. The asker's history is the
 * what-if row's: 10,000 payments of 30 days, a replay of some 20 ms. Goal: /pay hammered / alone >= 0.8.
 */
import http from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../helpers/coffer.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { seedHistory } from './seed-history.js';
import { percentile } from './stats.js';
// The what-if row's own change: its 10 budgets' worth of judging per payment is the replay's full cost.
import { TRIED } from './what-if-bench.js';

const HISTORY = 10_000;
const PAY_LANES = 8;

/** One call over a kept-alive connection (as the /pay row calls): its status once the body is read. */
function call(keepAlive: http.Agent, url: string, key: string | null, body?: unknown): Promise<number> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: data === undefined ? 'GET' : 'POST',
        agent: keepAlive,
        headers: {
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(data);
  });
}

interface Keys {
  owner: string;
  ownerKey: string;
  payer: string;
  asker: string;
}

/** Who hammers what, and how many at a time (none: /pay alone). */
interface Load {
  label: string;
  key: 'asker' | 'ownerKey' | null;
  lanes: number;
  /** The asker's balance instead of the what-if: what any request costs. */
  balance?: boolean;
}

async function phase(serve: ServeProcess, keys: Keys, n: number, load: Load) {
  const url = (path: string) => `${serve.url}${path}?owner=${keys.owner}`;
  // Connections of its own: one idle past the server's keep-alive timeout (a row of /pay alone can
  // last longer) may be closed by it just as it is used again.
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const health: number[] = [];
  const answers = new Map<number, number>();
  let next = 0;
  let done = false;
  let failures = 0;
  const hammer = Array.from({ length: load.key === null ? 0 : load.lanes }, async () => {
    while (!done) {
      const status = load.balance
        ? await call(keepAlive, url('/v1/agents/asker/balance'), keys[load.key!])
        : await call(keepAlive, url('/v1/agents/asker/policy/what-if'), keys[load.key!], TRIED);
      answers.set(status, (answers.get(status) ?? 0) + 1);
    }
  });
  const watch = (async () => {
    while (!done) {
      const began = performance.now();
      await call(keepAlive, `${serve.url}/v1/health`, null);
      health.push(performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: PAY_LANES }, async () => {
      while (next < n) {
        const i = next++;
        const began = performance.now();
        const status = await call(keepAlive, url('/v1/agents/payer/pay'), keys.payer, {
          service: 'demo-weather',
          amount: '0.01',
          currency: 'USDC',
          description: `${load.label} ${i}`,
        });
        latencies.push(performance.now() - began);
        if (status !== 200) failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  done = true;
  await Promise.all([...hammer, watch]);
  keepAlive.destroy();
  latencies.sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  return {
    label: load.label,
    rate: n / seconds,
    p99: percentile(latencies, 99),
    healthP99: percentile(health, 99),
    answers: [...answers].sort(([a], [b]) => a - b),
    failures,
  };
}

/** Two agents (one pays, one asks what-ifs over 10,000 payments of history) in a `coffer serve` of their own. */
async function setUp(dataDir: string): Promise<{ serve: ServeProcess; keys: Keys }> {
  let serve = await spawnServe(dataDir);
  const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string; ownerKey: string };
  const deploy = async (agentId: string, fund: string) => {
    const response = await fetch(`${serve.url}/v1/agents/deploy?owner=${owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agentId, dailyBudget: '1000000', maxPerPayment: '1', fund }),
    });
    const body = (await response.json()) as { apiKey: string };
    if (response.status !== 200) throw new Error(`deploy ${agentId}: ${response.status} ${JSON.stringify(body)}`);
    return body.apiKey;
  };
  const keys = { owner, ownerKey, payer: await deploy('payer', '500'), asker: await deploy('asker', '1') };
  serve.child.kill('SIGTERM');
  await serve.exited;
  seedHistory(dataDir, 'asker', HISTORY, (i) => 10_000 + (i % 7) * 5_000);
  serve = await spawnServe(dataDir);
  return { serve, keys };
}

/** The loads, each measured beside /pay alone just before it. */
const LOADS: Load[] = [
  { label: 'an agent hammering the what-if, 4 at a time', key: 'asker', lanes: 4 },
  { label: 'an agent hammering the what-if, 8 at a time', key: 'asker', lanes: 8 },
  { label: 'the owner hammering the what-if, 4 at a time', key: 'ownerKey', lanes: 4 },
  { label: 'an agent hammering its balance, 8 at a time', key: 'asker', lanes: 8, balance: true },
];
type Phase = Awaited<ReturnType<typeof phase>>;

/**
 * `rounds` rounds of every load beside its /pay alone, in one server: on a machine shared with other
 * work one pair of rows swings by a third, so each load's figures are the medians of its rounds.
 */
export async function whatIfLoadRun(n: number, rounds: number) {
  const dataDir = tempDataDir();
  const { serve, keys } = await setUp(dataDir);
  try {
    // Warm-up, not measured: the first payments and replays compile the hot code (and start what they start).
    await phase(serve, keys, 100, { label: 'warm-up', key: 'ownerKey', lanes: 1 });
    const alone: Load = { label: '/pay alone', key: null, lanes: 0 };
    const pairs = LOADS.map(() => [] as { alone: Phase; loaded: Phase }[]);
    for (let round = 0; round < rounds; round += 1) {
      for (const [i, load] of LOADS.entries())
        pairs[i]!.push({ alone: await phase(serve, keys, n, alone), loaded: await phase(serve, keys, n, load) });
    }
    return pairs;
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Each load's row beside its /pay alone: the medians of its rounds, and each round's ratio. */
export function whatIfLoadLines(pairs: Awaited<ReturnType<typeof whatIfLoadRun>>): string[] {
  const lines = [
    `/pay at ${PAY_LANES} concurrent beside what-ifs over ${HISTORY.toLocaleString('en-US')} payments of history (issue 47), in one coffer serve,`,
    `each load beside /pay alone just before it, ${pairs[0]!.length} rounds (medians):`,
    "                                                  /pay per s   p99 ms   health p99 ms   the hammer's answers (all rounds)",
  ];
  const row = (label: string, phases: Phase[]) => {
    const answers = new Map<number, number>();
    for (const { answers: each } of phases) for (const [status, count] of each) answers.set(status, (answers.get(status) ?? 0) + count);
    const said =
      [...answers]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${count} x ${status}`)
        .join(', ') || '-';
    const [rate, p99, health] = [
      median(phases.map((p) => p.rate)),
      median(phases.map((p) => p.p99)),
      median(phases.map((p) => p.healthP99)),
    ];
    return `${label.padEnd(48)} ${rate.toFixed(0).padStart(10)} ${p99.toFixed(1).padStart(8)} ${health.toFixed(1).padStart(15)}   ${said}`;
  };
  for (const [i, load] of LOADS.entries()) {
    const rounds = pairs[i]!;
    const ratios = rounds.map(({ alone, loaded }) => loaded.rate / alone.rate);
    lines.push(
      row(
        '/pay alone',
        rounds.map(({ alone }) => alone),
      ),
      row(
        load.label,
        rounds.map(({ loaded }) => loaded),
      ),
    );
    lines.push(`  ratio /pay ${load.label} / alone: ${median(ratios).toFixed(3)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
  }
  lines.push('  (goal: >= 0.8 with an agent hammering the what-if)');
  const failures = pairs.flat().reduce((sum, { alone, loaded }) => sum + alone.failures + loaded.failures, 0);
  if (failures > 0) lines.push(`failed payments: ${failures}`);
  return lines;
}
