import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * How many of a transaction signature's first characters `transfers_by_signature` keeps. Ten base58
 * characters tell apart any two signatures but once in some 4 * 10^17 pairs, and a lookup compares
 * the whole signature after (so two that share them are still told apart, only found together).
 */
export const SIGNATURE_PREFIX_CHARS = 10;

/**
 * Schema 3, each transfer written once at its final size (issue 28): measured per table (dbstat,
 * 1,000 payments through coffer serve), a payment took 1,585 bytes, of which its transfers row 455
 * and the UNIQUE index of its 88-character tx_signature 106. The row was written with its signed
 * transaction (tx_wire, some 1 KB of base64) and shrunk when it was confirmed in the same commit, so
 * every page was split to make room for a row four times its final size and left a quarter empty.
 * Now:
 * - `transfer_wires` keeps the signed transaction of a transfer that has one (written in the same
 *   write as its row); a confirmed transfer lets go of it (a trigger, whatever settles it), a pending
 *   one keeps it (reconcile sends it again or settles from it) and a failed one too (a retry under
 *   its Idempotency-Key tells a failure before any transaction by its absence). The views read it
 *   back as their `tx_wire` column, as before.
 * - A signature is found by its first characters (`transfers_by_signature`, an index of an
 *   expression), and recorded once by two triggers that refuse a second row with it, in place of
 *   the UNIQUE constraint whose index repeated each whole signature.
 * SQLite changes a column's constraint only by copying the table: every row keeps its rowid, and the
 * other indexes and triggers of `transfers` are made again as they were (read from sqlite_master).
 * Measured the same way after: the row 373 bytes, the signature's index 25, a payment 1,420 in all.
 */
export const TRANSFERS_3_SQL = `
  CREATE TABLE transfers_3 (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('payment', 'allocation', 'return', 'faucet', 'deposit', 'refund')),
    owner TEXT NOT NULL REFERENCES owners(address),
    agent_id TEXT CHECK ((agent_id IS NULL) = (kind IN ('faucet', 'deposit'))),
    amount INTEGER NOT NULL CHECK (amount > 0),
    status TEXT NOT NULL CHECK (status IN ('held', 'pending', 'confirmed', 'failed') AND (status != 'held' OR kind = 'payment')),
    -- Recorded once: see transfers_signature_once below.
    tx_signature TEXT,
    last_valid_block_height TEXT,
    error_code TEXT,
    idempotency_key TEXT,
    request_hash TEXT,
    created_at INTEGER NOT NULL,
    settled_at INTEGER,
    service_id TEXT CHECK ((service_id IS NOT NULL) = (kind = 'payment')),
    service_name TEXT,
    recipient TEXT,
    memo TEXT,
    description TEXT,
    protocol TEXT CHECK (protocol IN ('coffer', 'x402')),
    resource TEXT,
    x402_header TEXT,
    payer_signature TEXT,
    refunded_at INTEGER,
    refund_tx_signature TEXT,
    from_address TEXT,
    payment_id TEXT REFERENCES transfers(id) CHECK ((payment_id IS NOT NULL) = (kind = 'refund')),
    task_id TEXT REFERENCES generation_tasks(id),
    destination TEXT CHECK (destination IN ('agent', 'treasury')),
    FOREIGN KEY (owner, agent_id) REFERENCES agents(owner, agent_id)
  ) STRICT;
`;

const COLUMNS = `id, kind, owner, agent_id, amount, status, tx_signature, last_valid_block_height, error_code, idempotency_key,
  request_hash, created_at, settled_at, service_id, service_name, recipient, memo, description, protocol, resource, x402_header,
  payer_signature, refunded_at, refund_tx_signature, from_address, payment_id, task_id, destination`;

/** What schema 3 adds once `transfers` is copied: the wires, the signature's index and triggers, the views. */
const AFTER_COPY_SQL = `
  CREATE INDEX transfers_by_signature ON transfers (substr(tx_signature, 1, ${SIGNATURE_PREFIX_CHARS})) WHERE tx_signature IS NOT NULL;
  CREATE TRIGGER transfers_signature_once BEFORE INSERT ON transfers
    WHEN NEW.tx_signature IS NOT NULL AND EXISTS (SELECT 1 FROM transfers
      WHERE substr(tx_signature, 1, ${SIGNATURE_PREFIX_CHARS}) = substr(NEW.tx_signature, 1, ${SIGNATURE_PREFIX_CHARS}) AND tx_signature = NEW.tx_signature)
  BEGIN
    SELECT RAISE(ABORT, 'UNIQUE constraint failed: transfers.tx_signature');
  END;
  CREATE TRIGGER transfers_signature_once_update BEFORE UPDATE OF tx_signature ON transfers
    WHEN NEW.tx_signature IS NOT NULL AND EXISTS (SELECT 1 FROM transfers
      WHERE substr(tx_signature, 1, ${SIGNATURE_PREFIX_CHARS}) = substr(NEW.tx_signature, 1, ${SIGNATURE_PREFIX_CHARS}) AND tx_signature = NEW.tx_signature
        AND rowid != OLD.rowid)
  BEGIN
    SELECT RAISE(ABORT, 'UNIQUE constraint failed: transfers.tx_signature');
  END;

  -- The signed transaction of a transfer not confirmed (base64, as it is sent).
  CREATE TABLE transfer_wires (
    id TEXT PRIMARY KEY REFERENCES transfers(id) ON DELETE CASCADE,
    wire TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE TRIGGER transfers_confirmed_wire AFTER UPDATE OF status ON transfers WHEN NEW.status = 'confirmed' BEGIN
    DELETE FROM transfer_wires WHERE id = NEW.id;
  END;

  CREATE VIEW payments AS SELECT id, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status,
    tx_signature, (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire, last_valid_block_height, error_code,
    idempotency_key, request_hash, created_at, settled_at, refunded_at, refund_tx_signature, protocol, resource, x402_header, payer_signature
    FROM transfers WHERE kind = 'payment';
  CREATE VIEW allocations AS SELECT id, owner, agent_id, amount, status, tx_signature,
    (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire, last_valid_block_height,
    error_code, created_at, settled_at, idempotency_key, request_hash,
    CASE kind WHEN 'return' THEN 'to_treasury' ELSE 'to_agent' END AS direction
    FROM transfers WHERE kind IN ('allocation', 'return');
  CREATE VIEW deposits AS SELECT id, owner, tx_signature, amount, from_address,
    CASE kind WHEN 'faucet' THEN 'faucet' ELSE 'chain' END AS source, status,
    (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire, last_valid_block_height, error_code,
    idempotency_key, request_hash, created_at, settled_at
    FROM transfers WHERE kind IN ('faucet', 'deposit');
  CREATE VIEW refunds AS SELECT id, owner, agent_id, payment_id, task_id, amount, status, tx_signature,
    (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire,
    last_valid_block_height, error_code, created_at, settled_at, destination
    FROM transfers WHERE kind = 'refund';
`;

/** Runs with foreign keys off (see Migration.copiesTables): the table is dropped and made again under its name. */
export function writeTransfersOnce(db: SqliteDatabase): void {
  // The indexes and triggers of transfers as they stand (all but the UNIQUE constraint's own index).
  const kept = db
    .prepare(
      "SELECT sql FROM sqlite_master WHERE tbl_name = 'transfers' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid",
    )
    .pluck()
    .all() as string[];
  db.exec(`
    DROP VIEW payments;
    DROP VIEW allocations;
    DROP VIEW deposits;
    DROP VIEW refunds;
    ${TRANSFERS_3_SQL}
    INSERT INTO transfers_3 (rowid, ${COLUMNS}) SELECT rowid, ${COLUMNS} FROM transfers ORDER BY rowid;
    CREATE TABLE wires_3 (id TEXT NOT NULL, wire TEXT NOT NULL) STRICT;
    INSERT INTO wires_3 (id, wire) SELECT id, tx_wire FROM transfers WHERE tx_wire IS NOT NULL AND status != 'confirmed';
    DROP TABLE transfers;
    ALTER TABLE transfers_3 RENAME TO transfers;
  `);
  for (const sql of kept) db.exec(sql);
  db.exec(`
    ${AFTER_COPY_SQL}
    INSERT INTO transfer_wires (id, wire) SELECT id, wire FROM wires_3;
    DROP TABLE wires_3;
  `);
}
