/**
 * One agent's what-ifs beside every agent's payments (issue 47): /pay at 8 concurrent from one agent,
 * alone and while another agent hammers POST /v1/agents/:id/policy/what-if (4, then 8 at a time, each
 * asked again the moment it is answered, a refusal included, as a key that ignores Retry-After would),
 * and while the owner does (never refused: what the worker alone keeps off the serving thread). One
 * `coffer serve` (its own process), the rows alternated with /pay alone. The asker's history is the
 * what-if row's: 10,000 payments of 30 days, a replay of some 20 ms. Goal: /pay hammered / alone >= 0.8.
 */
import http from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../helpers/coffer.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { seedHistory } from './seed-history.js';
import { percentile } from './stats.js';

const HISTORY = 10_000;
const PAY_LANES = 8;
/** The what-if row's change: 10 budgets' worth of judging per payment is the replay's full cost. */
const TRIED = {
  maxPerPayment: '0.03',
  askAbove: '0.02',
  budgets: [
    { amount: '5', window: 'hour' },
    { amount: '50', window: '24h' },
    { amount: '200', window: '7d' },
    { amount: '600', window: '30d' },
    { amount: '40', window: 'day' },
    { amount: '250', window: 'week' },
    { amount: '700', window: 'month' },
    { amount: '5000', window: 'lifetime' },
  ],
};

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One call over a kept-alive connection (as the /pay row calls): its status once the body is read. */
function call(url: string, key: string | null, body?: unknown): Promise<number> {
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

/** Who hammers the what-if, and how many at a time (none: /pay alone). */
interface Load {
  label: string;
  key: 'asker' | 'ownerKey' | null;
  lanes: number;
}

async function phase(serve: ServeProcess, keys: Keys, n: number, load: Load) {
  const url = (path: string) => `${serve.url}${path}?owner=${keys.owner}`;
  const latencies: number[] = [];
  const health: number[] = [];
  const whatIfs = new Map<number, number>();
  let next = 0;
  let done = false;
  let failures = 0;
  const hammer = Array.from({ length: load.key === null ? 0 : load.lanes }, async () => {
    while (!done) {
      const status = await call(url('/v1/agents/asker/policy/what-if'), keys[load.key!], TRIED);
      whatIfs.set(status, (whatIfs.get(status) ?? 0) + 1);
    }
  });
  const watch = (async () => {
    while (!done) {
      const began = performance.now();
      await call(`${serve.url}/v1/health`, null);
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
        const status = await call(url('/v1/agents/payer/pay'), keys.payer, {
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
  latencies.sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  return {
    label: load.label,
    rate: n / seconds,
    p99: percentile(latencies, 99),
    healthP99: percentile(health, 99),
    whatIfs: [...whatIfs].sort(([a], [b]) => a - b),
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

export async function whatIfLoadRun(n: number) {
  const dataDir = tempDataDir();
  const { serve, keys } = await setUp(dataDir);
  try {
    // Warm-up, not measured: the first payments and replays compile the hot code (and start what they start).
    await phase(serve, keys, 100, { label: 'warm-up', key: 'ownerKey', lanes: 1 });
    const alone: Load = { label: '/pay alone', key: null, lanes: 0 };
    const rows = [];
    for (const load of [
      { label: 'an agent hammering the what-if, 4 at a time', key: 'asker', lanes: 4 },
      { label: 'an agent hammering the what-if, 8 at a time', key: 'asker', lanes: 8 },
      { label: 'the owner hammering the what-if, 4 at a time', key: 'ownerKey', lanes: 4 },
    ] as const) {
      rows.push(await phase(serve, keys, n, alone), await phase(serve, keys, n, load));
    }
    return rows;
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The rows, each loaded one beside the /pay alone measured just before it. */
export function whatIfLoadLines(rows: Awaited<ReturnType<typeof whatIfLoadRun>>): string[] {
  const lines = [
    `/pay at ${PAY_LANES} concurrent beside what-ifs over ${HISTORY.toLocaleString('en-US')} payments of history (issue 47), alternated in one coffer serve:`,
    '                                                  /pay per s   p99 ms   health p99 ms   what-if answers',
  ];
  for (let i = 0; i < rows.length; i += 2) {
    const [alone, loaded] = [rows[i]!, rows[i + 1]!];
    for (const row of [alone, loaded]) {
      const answers = row.whatIfs.map(([status, count]) => `${count} x ${status}`).join(', ') || '-';
      lines.push(
        `${row.label.padEnd(48)} ${row.rate.toFixed(0).padStart(10)} ${row.p99.toFixed(1).padStart(8)} ${row.healthP99.toFixed(1).padStart(15)}   ${answers}`,
      );
    }
    lines.push(`  ratio /pay ${loaded.label} / alone: ${(loaded.rate / alone.rate).toFixed(3)} (goal >= 0.8 with an agent hammering)`);
  }
  const failures = rows.reduce((sum, row) => sum + row.failures, 0);
  if (failures > 0) lines.push(`failed payments: ${failures}`);
  return lines;
}
