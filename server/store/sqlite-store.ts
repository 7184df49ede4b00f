/** The SQLite implementation of the core's Store port: one adapter per aggregate (./sqlite/) over one database. */
import type { Store } from '../core/ports/store.js';
import type { SqliteDatabase } from './sqlite-driver.js';
import { backgroundLogFlusher } from './log-flusher.js';
import { createAgentStore } from './sqlite/agents.js';
import { createApiKeyStore } from './sqlite/api-keys.js';
import { createApprovalStore } from './sqlite/approvals.js';
import { createAuditStore } from './sqlite/audit.js';
import { createLinkSessionStore } from './sqlite/link-sessions.js';
import { createMetaStore } from './sqlite/meta.js';
import { createNoticeStore } from './sqlite/notices.js';
import { createOwnerStore } from './sqlite/owners.js';
import { createRailWalletStore } from './sqlite/rail-wallets.js';
import { createRefusalStore } from './sqlite/refusals.js';
import { createRegistryStore } from './sqlite/registry.js';
import { createSpendStore } from './sqlite/spend.js';
import { createTaskStore } from './sqlite/tasks.js';
import { createTransferStore } from './sqlite/transfers.js';

export function createSqliteStore(db: SqliteDatabase): Store {
  const flushLogSoon = backgroundLogFlusher(`${db.name}-wal`);
  return {
    // One transaction over every aggregate: they share the connection, so a reservation's reads and
    // writes across agents, payments and spend commit together or not at all.
    transaction: (fn) => db.transaction(fn).immediate(),
    chainDerivedTransaction: (fn) => withoutWaitingForDisk(db, () => db.transaction(fn).immediate(), flushLogSoon),
    ...createMetaStore(db),
    ...createOwnerStore(db),
    ...createRailWalletStore(db),
    ...createApiKeyStore(db),
    ...createAgentStore(db),
    ...createTransferStore(db),
    ...createSpendStore(db),
    ...createRefusalStore(db),
    ...createNoticeStore(db),
    ...createTaskStore(db),
    ...createApprovalStore(db),
    ...createLinkSessionStore(db),
    ...createAuditStore(db),
    ...createRegistryStore(db),
  };
}

/** SQLite's PRAGMA synchronous: FULL fsyncs the log at each commit, NORMAL only at checkpoints. */
const SYNCHRONOUS_FULL = 2;

/**
 * Runs a write with the connection at synchronous=NORMAL when it is at FULL, then FULL again: in WAL
 * mode the commit then skips its fsync (most of a settlement's cost on an outside chain), the log
 * is flushed in the background, and the next FULL commit's fsync covers it whatever that flush did.
 * Inside a transaction the setting cannot change (SQLite refuses), nor need it: the outer commit
 * decides.
 */
function withoutWaitingForDisk<T>(db: SqliteDatabase, write: () => T, flushLogSoon: () => void): T {
  if (db.inTransaction || db.pragma('synchronous', { simple: true }) !== SYNCHRONOUS_FULL) return write();
  db.pragma('synchronous = NORMAL');
  let written: T;
  try {
    written = write();
  } finally {
    db.pragma('synchronous = FULL');
  }
  // Committed: its frames are in the log, not yet on disk.
  flushLogSoon();
  return written;
}
