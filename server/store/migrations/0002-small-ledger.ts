import type { SqliteDatabase } from '../sqlite-driver.js';
import type { SimTransactionMeta } from '../../chain/solana/sim/ledger.js';
import { encodeSimTransaction } from '../../chain/solana/sim/transaction-codec.js';
import { createSimKeys, signatureHead } from '../../chain/solana/sim/store.js';

/**
 * Schema 2, a small ledger (issue 28): a payment took some 6.5 KB, mostly the embedded chain's log
 * keeping each transaction as base64 text with 2.4 KB of metadata JSON and a second copy of the
 * signed transaction in `transfers`. Now:
 * - `sim_keys` numbers the chain's addresses; `sim_transactions` keeps each transaction as one BLOB
 *   (server/chain/solana/sim/transaction-codec.ts: the wire with its account keys as those numbers, the
 *   metadata deflated), ordered by `seq` (its rowid) and found by a number read from its signature
 *   (`signature_head`, checked against the signature itself); `sim_address_signatures` lists a
 *   transaction under its addresses' numbers. Every row is carried over, in its order.
 * - A confirmed transfer no longer keeps its signed transaction (tx_wire): only a pending one is
 *   sent again or settled from it (reconcile.ts), and a failed one keeps it (a retry under its
 *   Idempotency-Key tells a failure before any transaction by its absence).
 */
export const SMALL_LEDGER_SQL = `
  CREATE TABLE sim_keys (
    id INTEGER PRIMARY KEY,
    address TEXT NOT NULL UNIQUE
  ) STRICT;
  CREATE TABLE sim_transactions_2 (
    seq INTEGER PRIMARY KEY,
    signature_head INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    block_time INTEGER NOT NULL,
    -- LiteSVM's words for a failure; NULL when it succeeded.
    error TEXT,
    body BLOB NOT NULL
  ) STRICT;
  CREATE TABLE sim_address_signatures_2 (
    key INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (key, seq)
  ) STRICT, WITHOUT ROWID;
`;

interface OldTransaction {
  signature: string;
  wire: string;
  slot: number;
  block_time: number;
  error: string | null;
  seq: number;
  meta: string;
}

export function upgradeToSmallLedger(db: SqliteDatabase): void {
  db.exec(SMALL_LEDGER_SQL);
  const keys = createSimKeys(db);
  const insert = db.prepare(
    'INSERT INTO sim_transactions_2 (seq, signature_head, slot, block_time, error, body) VALUES (?, ?, ?, ?, ?, ?)',
  );
  // In batches: a connection cannot write while it steps through a query, and a long log is not read at once.
  const batch = db.prepare('SELECT * FROM sim_transactions WHERE seq > ? ORDER BY seq LIMIT 1000');
  for (let after = 0, rows = batch.all(after) as OldTransaction[]; rows.length > 0; rows = batch.all(after) as OldTransaction[]) {
    for (const row of rows) {
      const meta = JSON.parse(row.meta) as SimTransactionMeta;
      const body = encodeSimTransaction(Buffer.from(row.wire, 'base64'), meta.accountKeys, meta, keys);
      insert.run(row.seq, signatureHead(row.signature), row.slot, row.block_time, row.error, body);
      after = row.seq;
    }
  }
  db.exec(`
    INSERT OR IGNORE INTO sim_keys (address) SELECT DISTINCT address FROM sim_address_signatures;
    INSERT INTO sim_address_signatures_2 (key, seq)
      SELECT k.id, a.seq FROM sim_address_signatures a JOIN sim_keys k ON k.address = a.address;
    DROP TABLE sim_address_signatures;
    DROP TABLE sim_transactions;
    ALTER TABLE sim_transactions_2 RENAME TO sim_transactions;
    ALTER TABLE sim_address_signatures_2 RENAME TO sim_address_signatures;
    CREATE INDEX sim_transactions_by_signature ON sim_transactions (signature_head);
    UPDATE transfers SET tx_wire = NULL WHERE status = 'confirmed' AND tx_wire IS NOT NULL;
  `);
}
