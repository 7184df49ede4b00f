import type Database from 'better-sqlite3';
import { SCHEMA } from './migrations/0001-schema.js';
import { upgradeToSmallLedger } from './migrations/0002-small-ledger.js';
import { writeTransfersOnce } from './migrations/0003-transfers-written-once.js';
import { indexTransactionsBySlot } from './migrations/0004-sim-blocks.js';
import { addEvmJournal } from './migrations/0005-evm-journal.js';
import { addRailWallets } from './migrations/0006-rail-wallets.js';
import { addTransferRails } from './migrations/0007-transfer-rails.js';
import { addServiceBasePayTo } from './migrations/0008-service-base-pay-to.js';
import { addRefusalRails } from './migrations/0009-refusal-rails.js';
import { addRevokedApiKeys } from './migrations/0010-revoked-api-keys.js';
import { allowBatchedX402Settlements } from './migrations/0011-batched-x402-settlements.js';
import { recordDepositsByTransfer } from './migrations/0012-deposits-by-transfer.js';
import { indexHeldPayments } from './migrations/0013-held-payments.js';
import { addDeployKeys } from './migrations/0014-deploy-keys.js';

/**
 * Versioned schema migrations, from the schema as it stood at the first release
 * (migrations/0001-schema.ts, version 1); the schema as it stands after them all is
 * current-schema.sql. Append only: a released migration is never edited; a change is a new entry, in
 * its own file under migrations/ (a table rebuilt when SQLite cannot alter it in place), and
 * current-schema.sql written again (its test says how). Each runs in one write transaction; one that
 * frees much of the file (`vacuum`) is followed by a VACUUM, once.
 */
export interface Migration {
  version: number;
  name: string;
  up: (db: Database.Database) => void;
  /** It frees a large share of the file: copy the ledger into a compact file afterwards. */
  vacuum?: boolean;
  /**
   * It copies a table that others reference into a new one and drops the old (SQLite's way to change
   * a constraint): it runs with foreign keys off, as SQLite asks (dropping the old table would
   * otherwise delete through its references), and every reference is checked before it commits.
   */
  copiesTables?: boolean;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'schema', up: (db) => db.exec(SCHEMA) },
  { version: 2, name: 'small ledger', up: upgradeToSmallLedger, vacuum: true },
  { version: 3, name: 'transfers written once', up: writeTransfersOnce, vacuum: true, copiesTables: true },
  { version: 4, name: 'sim blocks', up: indexTransactionsBySlot },
  { version: 5, name: 'evm journal', up: addEvmJournal },
  { version: 6, name: 'rail wallets', up: addRailWallets },
  { version: 7, name: 'transfer rails', up: addTransferRails },
  { version: 8, name: 'service base pay-to', up: addServiceBasePayTo },
  { version: 9, name: 'refusal rails', up: addRefusalRails },
  { version: 10, name: 'revoked api keys', up: addRevokedApiKeys },
  { version: 11, name: 'batched x402 settlements', up: allowBatchedX402Settlements },
  { version: 12, name: 'deposits by transfer', up: recordDepositsByTransfer },
  { version: 13, name: 'held payments', up: indexHeldPayments },
  { version: 14, name: 'deploy keys', up: addDeployKeys },
];

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
  let vacuum = false;
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    // A fresh ledger has nothing to compact.
    vacuum ||= migration.vacuum === true && applied.size > 0;
    // Foreign keys are switched only outside a transaction.
    const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
    if (migration.copiesTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        migration.up(db);
        if (migration.copiesTables && (db.pragma('foreign_key_check') as unknown[]).length > 0) {
          throw new Error(`migration ${migration.version} (${migration.name}) broke a reference between tables`);
        }
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          migration.version,
          migration.name,
          Date.now(),
        );
      }).immediate();
    } finally {
      if (migration.copiesTables) db.pragma(`foreign_keys = ${foreignKeys === 1 ? 'ON' : 'OFF'}`);
    }
  }
  if (vacuum) db.exec('VACUUM');
  return known;
}
