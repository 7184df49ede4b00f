import type Database from 'better-sqlite3';
import { SCHEMA } from './schema.js';

/**
 * Versioned schema migrations, from the schema as it stands at the first release (schema.ts, version
 * 1). Append only: a released migration is never edited; a change is a new entry (a table rebuilt
 * when SQLite cannot alter it in place), and schema.ts is brought to the same result.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [{ version: 1, name: 'schema', sql: SCHEMA }];

export function migrate(db: Database.Database): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
  );
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((row) => row.version));
  const newest = Math.max(0, ...applied);
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  if (newest > known) {
    throw new Error(`the data dir was written by a newer Coffer (schema ${newest}, this build knows ${known})`);
  }
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    }).immediate();
  }
  return known;
}
