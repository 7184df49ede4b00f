/**
 * Budgets on the pay path (issue 25): /pay over HTTP for an agent holding 10 budgets (every window,
 * three scopes) and 100,000 payments of history over the last 30 days, beside an agent with the
 * daily budget alone, in the same server, alternated. The budgets' figures are kept per scope by
 * the ledger, so the ratio must not grow with the history.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../helpers/coffer.js';
import { spawnServe } from '../helpers/serve-process.js';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { percentile } from './stats.js';

const HISTORY = Number(process.env.BENCH_BUDGET_HISTORY ?? 100_000);
const DAY = 86_400_000;
const DEMO_WEATHER = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const BIG = '1000000';
/** Ten budgets, every one holding the measured payment. */
const BUDGETS = [
  { amount: BIG, window: 'hour' },
  { amount: BIG, window: '24h' },
  { amount: BIG, window: '7d' },
  { amount: BIG, window: '30d' },
  { amount: BIG, window: 'day' },
  { amount: BIG, window: 'week' },
  { amount: BIG, window: 'month' },
  { amount: BIG, window: 'lifetime' },
  { amount: BIG, window: 'day', service: 'demo-weather' },
  { amount: BIG, window: 'month', recipient: DEMO_WEATHER },
];

async function call(url: string, key: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The agent's history, written straight into the ledger while the server is stopped (confirmed payments to demo-weather). */
function seedHistory(dataDir: string, agentId: string, count: number) {
  const db = openConnection(join(dataDir, 'coffer.db'));
  const owner = db.prepare('SELECT address FROM owners').pluck().get() as string;
  const add = db.prepare(
    `INSERT INTO transfers (id, kind, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status, created_at,
       settled_at, protocol)
     VALUES (?, 'payment', ?, ?, 'demo-weather', 'Coffer demo weather', ?, 10000, ?, '', 'confirmed', ?, ?, 'coffer')`,
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = now - 60_000 - Math.floor(Math.random() * 30 * DAY);
      add.run(`pay_history${i}`, owner, agentId, DEMO_WEATHER, `pay_history${i}`, at, at);
    }
  })();
  db.close();
}

export async function budgetsRun(n: number) {
  const dataDir = tempDataDir();
  let serve = await spawnServe(dataDir);
  try {
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const url = (path: string) => `${serve.url}${path}?owner=${owner}`;
    const keys: Record<string, string> = {};
    for (const agentId of ['plain', 'budgeted']) {
      const deployed = await call(url('/v1/agents/deploy'), ownerKey, { agentId, dailyBudget: BIG, maxPerPayment: '1', fund: '100' });
      keys[agentId] = String(deployed.body.apiKey);
    }
    serve.child.kill('SIGTERM');
    await serve.exited;
    seedHistory(dataDir, 'budgeted', HISTORY);
    serve = await spawnServe(dataDir);
    const setting = performance.now();
    const set = await call(url('/v1/agents/budgeted/policy'), ownerKey, { budgets: BUDGETS });
    const setMs = performance.now() - setting;
    if (set.status !== 200) throw new Error(`budgets not set: ${JSON.stringify(set.body)}`);
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
    for (let i = 0; i < 50; i++) for (const agentId of ['plain', 'budgeted']) await pay(agentId, -i);
    const times: Record<string, number[]> = { plain: [], budgeted: [] };
    for (let i = 0; i < n; i++) {
      // Alternated, one at a time: the two agents share whatever the machine does meanwhile.
      for (const agentId of i % 2 === 0 ? ['plain', 'budgeted'] : ['budgeted', 'plain']) times[agentId]!.push(await pay(agentId, i));
    }
    const p50 = (agentId: string) =>
      percentile(
        [...times[agentId]!].sort((a, b) => a - b),
        50,
      );
    const p99 = (agentId: string) =>
      percentile(
        [...times[agentId]!].sort((a, b) => a - b),
        99,
      );
    return { plain: { p50: p50('plain'), p99: p99('plain') }, budgeted: { p50: p50('budgeted'), p99: p99('budgeted') }, setMs };
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
