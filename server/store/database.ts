import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from './migrations.js';
import { openConnection, type SqliteDatabase } from './sqlite-driver.js';

/**
 * How hard a commit waits for the disk. `full` fsyncs every commit (but the chain-derived ones:
 * Store.chainDerivedTransaction): needed when money lives on an outside chain, where a ledger row
 * lost to a power cut could hide a transaction that did land.
 * `normal` (WAL) survives any process crash and loses at most the last commits on a power cut; that
 * is safe for the embedded chain, whose state lives in this same file and so rolls back with it.
 */
export type Durability = 'full' | 'normal';

/**
 * The most a write-ahead log file is left at once the log restarts (journal_size_limit). Without a
 * limit SQLite reuses the file at the longest it ever grew, a long transaction's size for good. It is
 * a backstop above the size sustained payments keep the log at (see background-checkpoints.ts): a
 * restart that trims the file costs the committing connection an ftruncate, so it should be rare.
 */
export const WAL_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/** Opens (creating when missing) the data dir's SQLite file in WAL mode and brings its schema up to date. */
export function openDatabase(file: string, durability: Durability = 'full'): SqliteDatabase {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = openConnection(file);
  // The ledger is private to the owner even though it holds no secret.
  chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma(`journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`);
  setDurability(db, durability);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export function setDurability(db: SqliteDatabase, durability: Durability): void {
  db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
}
