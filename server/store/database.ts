import Database from 'better-sqlite3';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from './migrations.js';

export type SqliteDatabase = Database.Database;

/** Opens (creating when missing) the data dir's SQLite file in WAL mode and brings its schema up to date. */
export function openDatabase(file: string): SqliteDatabase {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file);
  // The ledger is private to the owner even though it holds no secret.
  chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  // FULL: a payment marked pending or confirmed must survive power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}
