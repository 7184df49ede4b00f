import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECKPOINT_OPTIONS, startBackgroundCheckpoints } from '../../server/store/background-checkpoints.js';
import { WAL_FILE_LIMIT_BYTES, openDatabase } from '../../server/store/database.js';
import { fundedAgent, type TestCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';

/** Bytes of a file, 0 where there is none (a log truncated away). */
const fileBytes = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** The largest size the file reaches while `work` runs, sampled every 20 ms. */
async function peakBytesDuring<T>(file: string, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = fileBytes(file);
  const sampler = setInterval(() => (peak = Math.max(peak, fileBytes(file))), 20);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, fileBytes(file)) };
  } finally {
    clearInterval(sampler);
  }
}

/** `count` payments of 0.01 USDC, `concurrency` at a time, as busy agents send them; their statuses. */
async function sustainedPayments(t: TestCoffer, agentId: string, apiKey: string, count: number, concurrency: number) {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const response = await payUsdc(t, agentId, apiKey, { service: 'demo-weather', amount: '0.01', description: `steady ${i}` });
        statuses.push(response.status);
      }
    }),
  );
  return statuses;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('the write-ahead log under sustained payments', () => {
  const t = useCoffer();
  // Each payment writes about 110 KB of log: left to grow, 1,500 of them make about 165 MB.
  const PAYMENTS = 1500;

  it('stays bounded while payments run, and is truncated once they stop while the server keeps serving', async () => {
    const agent = await fundedAgent(t, 'steady', '20.00', { dailyBudget: '1000.00', maxPerPayment: '1.00' });
    const wal = join(t.dataDir, 'coffer.db-wal');

    const { result: statuses, peak } = await peakBytesDuring(wal, () => sustainedPayments(t, 'steady', agent.apiKey, PAYMENTS, 8));
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // Where the log restarts, plus what the payments of a checkpoint tick or two add before it does.
    expect(peak).toBeLessThan(3 * DEFAULT_CHECKPOINT_OPTIONS.restartAboveBytes);

    // Idle: the log file is cut to nothing within a few seconds, without a stop.
    expect(await waitFor(() => fileBytes(wal) === 0, 5000), `the log still holds ${fileBytes(wal)} bytes`).toBe(true);
    // Nothing was lost on the way into the database file, and payments go on.
    const confirmed = t.coffer.db.prepare("SELECT COUNT(*) FROM payments WHERE agent_id = 'steady' AND status = 'confirmed'").pluck();
    expect(confirmed.get()).toBe(PAYMENTS);
    const after = await payUsdc(t, 'steady', agent.apiKey, { service: 'demo-weather', amount: '0.01', description: 'after the quiet' });
    expect(after.status).toBe(200);
    expect(confirmed.get()).toBe(PAYMENTS + 1);
  });
});

describe('the write-ahead log once writes stop', () => {
  it('is truncated even when the last commits left it past the size where it restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-wal-'));
    try {
      const file = join(dir, 'coffer.db');
      const db = openDatabase(file, 'normal');
      const restartAboveBytes = 1024 * 1024;
      const checkpoints = startBackgroundCheckpoints(db, { restartAboveBytes });
      // The worker has started once the serving connection no longer checkpoints.
      expect(await waitFor(() => db.pragma('wal_autocheckpoint', { simple: true }) === 0, 5000)).toBe(true);
      db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
      const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 1000; i++) insert.run(Buffer.alloc(4000, i % 256));
      })();
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(restartAboveBytes);
      expect(await waitFor(() => fileBytes(`${file}-wal`) === 0, 5000), `the log still holds ${fileBytes(`${file}-wal`)} bytes`).toBe(true);
      await checkpoints.stop();
      expect(db.prepare('SELECT COUNT(*) FROM filler').pluck().get()).toBe(1000);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the write-ahead log with checkpoints on the serving connection (no background worker)', () => {
  it('is trimmed back to the file limit after a long transaction', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-wal-'));
    try {
      const file = join(dir, 'coffer.db');
      const db = openDatabase(file, 'normal');
      db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
      const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
      // One transaction of 100 MB (a migration, a large catalog): the log must hold all of it at once.
      db.transaction(() => {
        for (let i = 0; i < 25_000; i++) insert.run(Buffer.alloc(4000, i % 256));
      })();
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(WAL_FILE_LIMIT_BYTES);
      // Ordinary commits after it: the checkpoint at the end of the long one copied the log, so the
      // next commit starts the log again and trims the file.
      let peak = 0;
      for (let i = 0; i < 200; i++) {
        insert.run(Buffer.alloc(4000, i % 256));
        peak = Math.max(peak, fileBytes(`${file}-wal`));
      }
      expect(peak).toBeLessThanOrEqual(WAL_FILE_LIMIT_BYTES);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
