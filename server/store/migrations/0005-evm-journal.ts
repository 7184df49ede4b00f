import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 5, the embedded EVM chain (issue 49): its journal, every request that changed its state, in
 * order, each with the time its block was given (server/chain/evm/sim/journal.ts). The chain's
 * state is the journal replayed from its first entry, whose time is the genesis block's.
 */
export function addEvmJournal(db: SqliteDatabase): void {
  db.exec(`
    CREATE TABLE evm_journal (
      seq INTEGER PRIMARY KEY,
      at INTEGER NOT NULL,
      method TEXT NOT NULL,
      params TEXT NOT NULL
    ) STRICT;
  `);
}
