/**
 * Budgets on the pay path (issue 25): /pay over HTTP for agents holding 10 budgets (every window,
 * three scopes) and 100,000 payments of history over the last 30 days, beside an agent with the
 * daily budget alone, in the same server, alternated. The budgets' figures are kept per scope by
 * the ledger, so the ratio must not grow with the history. Two agents with budgets: one whose
 * budgets are far above all it ever spent (each is judged by its scope's total, one read a scope),
 * and one whose budgets its history reaches (every window read, a warning share passed).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../helpers/coffer.js';
import { spawnServe } from '../helpers/serve-process.js';
import { DEMO_WEATHER, seedHistory } from './seed-history.js';
import { percentile } from './stats.js';

const HISTORY = Number(process.env.BENCH_BUDGET_HISTORY ?? 100_000);
const BIG = '1000000';
/** Ten budgets of `amount` each, every one holding the measured payment. */
const budgetsOf = (amount: string) => [
  { amount, window: 'hour' },
  { amount, window: '24h' },
  { amount, window: '7d' },
  { amount, window: '30d' },
  { amount, window: 'day' },
  { amount, window: 'week' },
  { amount, window: 'month' },
  { amount: BIG, window: 'lifetime' },
  { amount, window: 'day', service: 'demo-weather' },
  { amount, window: 'month', recipient: DEMO_WEATHER },
];
/** The agents measured: the daily budget alone, budgets far above the history, budgets the history reaches (its 30 days spent some 1,000 USDC). */
const AGENTS = { plain: null, budgeted: budgetsOf(BIG), reached: budgetsOf('1100') } as const;
type Measured = keyof typeof AGENTS;

async function call(url: string, key: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function budgetsRun(n: number) {
  const dataDir = tempDataDir();
  let serve = await spawnServe(dataDir);
  try {
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const url = (path: string) => `${serve.url}${path}?owner=${owner}`;
    const keys: Record<string, string> = {};
    for (const agentId of Object.keys(AGENTS)) {
      const deployed = await call(url('/v1/agents/deploy'), ownerKey, { agentId, dailyBudget: BIG, maxPerPayment: '1', fund: '100' });
      keys[agentId] = String(deployed.body.apiKey);
    }
    serve.child.kill('SIGTERM');
    await serve.exited;
    seedHistory(dataDir, 'budgeted', HISTORY);
    seedHistory(dataDir, 'reached', HISTORY);
    serve = await spawnServe(dataDir);
    const setting = performance.now();
    const set = await call(url('/v1/agents/budgeted/policy'), ownerKey, { budgets: AGENTS.budgeted });
    const setMs = performance.now() - setting;
    if (set.status !== 200) throw new Error(`budgets not set: ${JSON.stringify(set.body)}`);
    const reached = await call(url('/v1/agents/reached/policy'), ownerKey, { budgets: AGENTS.reached });
    if (reached.status !== 200) throw new Error(`budgets not set: ${JSON.stringify(reached.body)}`);
    const pay = async (agentId: string, i: number) => {
      const began = performance.now();
      const paid = await call(url(`/v1/agents/${agentId}/pay`), keys[agentId]!, {
        service: 'demo-weather',
        amount: '0.01',
        description: `b ${i}`,
      });
      if (paid.status !== 200) throw new Error(`${agentId}: ${JSON.stringify(paid.body)}`);
      return performance.now() - began;
    };
    // Warm-up, not measured.
    const agents = Object.keys(AGENTS) as Measured[];
    for (let i = 0; i < 50; i++) for (const agentId of agents) await pay(agentId, -i);
    const times: Record<Measured, number[]> = { plain: [], budgeted: [], reached: [] };
    for (let i = 0; i < n; i++) {
      // Alternated, one at a time, each in turn first: the agents share whatever the machine does meanwhile.
      for (let k = 0; k < agents.length; k++) {
        const agentId = agents[(i + k) % agents.length]!;
        times[agentId].push(await pay(agentId, i));
      }
    }
    const at = (agentId: Measured, p: number) =>
      percentile(
        [...times[agentId]].sort((a, b) => a - b),
        p,
      );
    const figures = (agentId: Measured) => ({ p50: at(agentId, 50), p99: at(agentId, 99) });
    return { plain: figures('plain'), budgeted: figures('budgeted'), reached: figures('reached'), setMs };
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
