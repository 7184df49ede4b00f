import { openConnection } from '../store/sqlite-driver.js';
import { join } from 'node:path';
import { whereItRuns } from './already-running.js';

/**
 * One process per data dir. The embedded chain lives in each process's memory and the ledger assumes
 * it is the only writer, so a second `serve` (or the desktop app beside a headless server) on the same
 * data dir must be refused, not interleaved. The lock is SQLite's exclusive lock on DIR/coffer.lock:
 * the operating system drops it when the process dies, so a crash never leaves a stale lock behind.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = join(dataDir, 'coffer.lock');
  const lock = openConnection(file, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL); BEGIN EXCLUSIVE');
    lock.prepare('DELETE FROM holder').run();
    lock.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new Error(
        `another Coffer is already using the data dir ${dataDir}; stop it first, or use another --data-dir.${whereItRuns(dataDir)}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  return { release: () => lock.close() };
}
