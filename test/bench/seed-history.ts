/**
 * An agent's history written straight into a stopped server's ledger: `count` confirmed payments to
 * demo-weather over the last 30 days (at random times, the last a minute ago), the i-th of
 * `amountOf(i)` micro-USDC. Only a bench seeds a ledger this way: it skips the chain.
 */
import { join } from 'node:path';
import { openConnection } from '../../server/store/sqlite-driver.js';

const DAY = 86_400_000;
export const DEMO_WEATHER = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';

export function seedHistory(dataDir: string, agentId: string, count: number, amountOf: (i: number) => number = () => 10_000) {
  const db = openConnection(join(dataDir, 'coffer.db'));
  const owner = db.prepare('SELECT address FROM owners').pluck().get() as string;
  const add = db.prepare(
    `INSERT INTO transfers (id, kind, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status, created_at,
       settled_at, protocol)
     VALUES (?, 'payment', ?, ?, 'demo-weather', 'Coffer demo weather', ?, ?, ?, '', 'confirmed', ?, ?, 'coffer')`,
  );
  const now = Date.now();
  const times = Array.from({ length: count }, () => now - 60_000 - Math.floor(Math.random() * 30 * DAY)).sort((a, b) => a - b);
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = times[i]!;
      add.run(`pay_${agentId}_${i}`, owner, agentId, DEMO_WEATHER, amountOf(i), `pay_${agentId}_${i}`, at, at);
    }
  })();
  db.close();
}
