import { openConnection } from '../store/sqlite-driver.js';
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import { CofferError } from '../wire/errors.js';
import { join } from 'node:path';
import { whereItRuns } from './already-running.js';

/** The lock's file in a data dir. */
export const LOCK_FILE = 'coffer.lock';

/**
 * One process per data dir. The embedded chain lives in each process's memory and the ledger assumes
 * it is the only writer, so a second `serve` (or the desktop app beside a headless server) on the same
 * data dir must be refused, not interleaved. The lock is SQLite's exclusive lock on DIR/coffer.lock:
 * the operating system drops it when the process dies, so a crash never leaves a stale lock behind.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new CofferError(
      'data_dir_unusable',
      `the data dir ${dataDir} is a file, not a folder: name a folder (--data-dir or COFFER_HOME)`,
    );
  }
  const file = join(dataDir, LOCK_FILE);
  makePrivate(file);
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

/**
 * The lock file made (or, left 0644 by an older Coffer, set) 0600 before SQLite opens it: SQLite
 * gives its journal the database file's mode, so both stay the user's alone whatever the umask. They
 * hold only a pid; kept private as everything in the data dir is.
 *
 * Never by opening a file that exists: closing any descriptor of a file drops every POSIX lock this
 * process holds on it, so a second lockDataDir beside a held lock would free that lock. Only a new
 * file is opened (no lock can be held on it yet); an existing one is changed by its path.
 */
function makePrivate(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  chmodSync(file, 0o600);
}
