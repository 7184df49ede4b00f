/**
 * What-if (issue 26): a policy change with 10 budgets and a threshold asking the owner replayed on an agent's last 30 days holding
 * 10,000 payments, in process on a real ledger (SQLite file, the embedded chain). Target: under 50 ms.
 */
import { rmSync } from 'node:fs';
import { tempDataDir } from '../helpers/coffer.js';
import { openCoffer } from '../../server/boot/open-coffer.js';
import { percentile } from './stats.js';

const DAY = 86_400_000;
const DEMO_WEATHER = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';

export async function whatIfRun(payments = 10_000, rounds = 30) {
  const dataDir = tempDataDir();
  const coffer = await openCoffer({ dataDir, keyStore: 'file', log: () => undefined });
  try {
    const owner = { kind: 'owner' as const, owner: coffer.owner };
    await coffer.engine.deployAgent(owner, { agentId: 'busy', dailyBudget: '1000', maxPerPayment: '1' });
    const add = coffer.db.prepare(
      `INSERT INTO transfers (id, kind, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status, created_at,
         settled_at, protocol)
       VALUES (?, 'payment', ?, 'busy', 'demo-weather', 'Coffer demo weather', ?, ?, ?, '', 'confirmed', ?, ?, 'coffer')`,
    );
    const now = Date.now();
    coffer.db.transaction(() => {
      for (let i = 0; i < payments; i++) {
        const at = now - 60_000 - Math.floor(Math.random() * 30 * DAY);
        add.run(`pay_busy_${i}`, coffer.owner, DEMO_WEATHER, 10_000 + (i % 7) * 5_000, `pay_busy_${i}`, at, at);
      }
    })();
    const tried = {
      maxPerPayment: '0.03',
      // What would have waited for the owner is judged too (held-payments).
      askAbove: '0.02',
      askNewRecipient: true,
      budgets: [
        { amount: '5', window: 'hour' as const },
        { amount: '50', window: '24h' as const },
        { amount: '200', window: '7d' as const },
        { amount: '600', window: '30d' as const },
        { amount: '40', window: 'day' as const },
        { amount: '250', window: 'week' as const },
        { amount: '700', window: 'month' as const },
        { amount: '5000', window: 'lifetime' as const },
        { count: 300, window: 'day' as const, service: 'demo-weather' },
        { amount: '30', window: 'day' as const, recipient: DEMO_WEATHER },
      ],
    };
    const times: number[] = [];
    let refused = 0;
    let held = 0;
    for (let round = 0; round < rounds + 3; round++) {
      const began = performance.now();
      const answer = coffer.engine.policyWhatIf(owner, 'busy', tried);
      if (round >= 3) times.push(performance.now() - began);
      refused = answer.wouldRefuse.payments;
      held = answer.wouldHold.payments;
    }
    times.sort((a, b) => a - b);
    return { payments, refused, held, p50: percentile(times, 50), max: times[times.length - 1]! };
  } finally {
    await coffer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
