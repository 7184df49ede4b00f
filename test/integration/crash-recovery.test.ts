import Database from 'better-sqlite3';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { micro, tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';

describe('SIGKILL in the middle of a payment burst', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('leaves no payment pending after a restart, and ledger and chain agree', async () => {
    const first = await spawnServe(dataDir);
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const call = (url: string, method: string, path: string, body?: unknown, key = ownerKey) =>
      fetch(`${url}${path}${path.includes('?') ? '&' : '?'}owner=${owner}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const deployed = await json(call(first.url, 'POST', '/v1/agents/deploy', { agentId: 'crashy', dailyBudget: '1000', maxPerPayment: '1' }));
    expect((await call(first.url, 'POST', '/v1/agents/crashy/allocate', { amount: '50' })).status).toBe(200);
    // (600 payments of 0.01 fit in 50 USDC and in the daily budget: nothing is refused by policy.)

    // Fire a burst and kill the server while payments are in flight.
    const confirmedBeforeKill: string[] = [];
    let answered = 0;
    const BURST = 600;
    const burst = Array.from({ length: BURST }, (_, i) =>
      call(first.url, 'POST', '/v1/agents/crashy/pay', { service: 'demo-weather', amount: '0.01', description: `burst ${i}` }, deployed.apiKey)
        .then(async (response) => {
          answered += 1;
          // Kill from inside the 40th answer, while the rest are still in flight.
          if (answered === 40) first.child.kill('SIGKILL');
          if (response.status === 200) confirmedBeforeKill.push((await json(response)).paymentId);
        })
        .catch(() => undefined),
    );
    await Promise.all(burst);
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(answered).toBeLessThan(BURST); // the kill really landed mid-burst

    // What the crash left behind: the ledger of a process that died mid-flight.
    const inspect = () => new Database(join(dataDir, 'coffer.db'), { readonly: true });
    let db = inspect();
    const pendingAtCrash = db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'pending'").pluck().get() as number;
    db.close();

    const second = await spawnServe(dataDir);
    try {
      console.log(`crash left ${pendingAtCrash} pending payment(s); ${confirmedBeforeKill.length} had been answered 200`);
      if (pendingAtCrash > 0) expect(await waitForLine(second.lines, /Reconciled/)).toMatch(/Reconciled/);
      db = inspect();
      expect(db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'pending'").pluck().get()).toBe(0);
      // Every payment answered 200 before the kill is confirmed: a 200 is never taken back.
      const statusOf = db.prepare('SELECT status FROM payments WHERE id = ?').pluck();
      for (const id of confirmedBeforeKill) expect(statusOf.get(id)).toBe('confirmed');
      const allocated = BigInt(db.prepare("SELECT SUM(amount) FROM allocations WHERE status = 'confirmed'").pluck().get() as number);
      const paid = BigInt((db.prepare("SELECT COALESCE(SUM(amount), 0) FROM payments WHERE status = 'confirmed'").pluck().get() as number) ?? 0);
      const confirmedCount = db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'confirmed'").pluck().get() as number;
      db.close();
      expect(confirmedCount).toBeGreaterThanOrEqual(confirmedBeforeKill.length);

      const balance = await json(call(second.url, 'GET', '/v1/agents/crashy/balance'));
      expect(micro(balance.balance)).toBe(allocated - paid);
      const dashboard = await json(call(second.url, 'GET', '/v1/dashboard'));
      expect(dashboard.agents[0].lifetimePayments).toBe(confirmedCount);

      // And the restarted server keeps paying.
      expect((await call(second.url, 'POST', '/v1/agents/crashy/pay', { service: 'demo-weather', amount: '0.01' }, deployed.apiKey)).status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    }
  });
});

async function waitForLine(lines: string[], pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const line = lines.find((l) => pattern.test(l));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return '';
}
