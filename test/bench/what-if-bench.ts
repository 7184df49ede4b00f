/**
 * What-if (issue 26): a policy change with 10 budgets and a threshold asking the owner replayed on an
 * agent's last 30 days holding 10,000 payments, as the owner's editor asks for it: POST
 * /v1/agents/:id/policy/what-if on `coffer serve` (the compiled app, its own process). Target: under
 * 50 ms.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../helpers/coffer.js';
import { spawnServe } from '../helpers/serve-process.js';
import { DEMO_WEATHER, seedHistory } from './seed-history.js';
import { percentile } from './stats.js';

/** The change asked about: 10 budgets and thresholds asking the owner (the load bench asks the same). */
export const TRIED = {
  maxPerPayment: '0.03',
  // What would have waited for the owner is judged too (held-payments).
  askAbove: '0.02',
  askNewRecipient: true,
  budgets: [
    { amount: '5', window: 'hour' },
    { amount: '50', window: '24h' },
    { amount: '200', window: '7d' },
    { amount: '600', window: '30d' },
    { amount: '40', window: 'day' },
    { amount: '250', window: 'week' },
    { amount: '700', window: 'month' },
    { amount: '5000', window: 'lifetime' },
    { count: 300, window: 'day', service: 'demo-weather' },
    { amount: '30', window: 'day', recipient: DEMO_WEATHER },
  ],
};

export async function whatIfRun(payments = 10_000, rounds = 30) {
  const dataDir = tempDataDir();
  let serve = await spawnServe(dataDir);
  try {
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${serve.url}${path}?owner=${owner}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { wouldRefuse: { payments: number }; wouldHold: { payments: number } };
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    await post('/v1/agents/deploy', { agentId: 'busy', dailyBudget: '1000', maxPerPayment: '1' });
    serve.child.kill('SIGTERM');
    await serve.exited;
    // 0.010 to 0.040 USDC: some over the tried max, some over its threshold.
    seedHistory(dataDir, 'busy', payments, (i) => 10_000 + (i % 7) * 5_000);
    serve = await spawnServe(dataDir);
    const times: number[] = [];
    let refused = 0;
    let held = 0;
    for (let round = 0; round < rounds + 3; round++) {
      const began = performance.now();
      const answer = await post('/v1/agents/busy/policy/what-if', TRIED);
      if (round >= 3) times.push(performance.now() - began);
      refused = answer.wouldRefuse.payments;
      held = answer.wouldHold.payments;
    }
    times.sort((a, b) => a - b);
    return { payments, refused, held, p50: percentile(times, 50), max: times[times.length - 1]! };
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
