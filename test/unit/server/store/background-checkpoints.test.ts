import { describe, expect, it } from 'vitest';
import { openConnection } from '../../../../server/store/sqlite-driver.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../../../../server/store/background-checkpoints.js';

const until = async (condition: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('WAL checkpoints on a background connection', () => {
  it('the serving connection stops checkpointing, the worker copies the log into the file, and closing leaves every row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-ckpt-'));
    const file = join(dir, 'coffer.db');
    try {
      const db = openConnection(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
      db.pragma('wal_checkpoint(TRUNCATE)');
      const checkpoints = startBackgroundCheckpoints(db);
      await until(() => db.pragma('wal_autocheckpoint', { simple: true }) === 0);

      const sizeBefore = statSync(file).size;
      const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
      // Each commit its own transaction, as payments are: about 3,000 pages of log.
      for (let i = 0; i < 3000; i++) insert.run(Buffer.alloc(2000, i % 256));
      // The main connection checkpoints nothing now: only the worker can grow the database file.
      await until(() => statSync(file).size > sizeBefore + 3000 * 2000 * 0.9);

      await checkpoints.stop();
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      db.close();
      const reopened = openConnection(file, { readonly: true });
      expect(reopened.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3000);
      reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
