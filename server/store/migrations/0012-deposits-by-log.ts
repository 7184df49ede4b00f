import type { SqliteDatabase } from '../sqlite-driver.js';
import { SIGNATURE_PREFIX_CHARS } from './0003-transfers-written-once.js';

/**
 * Schema 12, a Base deposit is a Transfer log, not a transaction. One transaction may pay the treasury
 * more than once (a disperse contract, a batched payout, a facilitator running several buyers'
 * authorizations), and a facilitator may run an outsider's payment to the treasury in the same
 * transaction as an agent's x402 payment. Schema 11 recorded a transaction under one row, so the
 * watch kept the first such transfer and passed over the rest (the ledger short of the chain), and
 * passed over a deposit in a transaction an x402 payment already named, or, read first, left that
 * payment pending for good with its budget held.
 *
 * A Base deposit found by the watch now names its log (`log_index`, its position in the block), and
 * rows on Base that each stand on a log of their own may share a transaction: x402 payments under
 * their own authorizations (schema 11) and deposits under their own logs. Every other pair under
 * one transaction is refused as before; a deposit recorded before this schema names no log and keeps
 * its transaction to itself (a deposit is never counted twice, whichever schema read it).
 */
export function recordDepositsByLog(db: SqliteDatabase): void {
  const prefix = SIGNATURE_PREFIX_CHARS;
  // A row that stands on a log of its own in its transaction. Compared with IS throughout: a NULL
  // column (a row's protocol) makes it false, never NULL, which would let the trigger pass.
  const ownLog = (row: string) =>
    `(${row}rail IS 'base' AND ((${row}kind IS 'payment' AND ${row}protocol IS 'x402' AND ${row}payer_signature IS NOT NULL)
       OR (${row}kind IS 'deposit' AND ${row}log_index IS NOT NULL)))`;
  // Another row with the transaction, unless both stand on logs of their own, and not the same one.
  const taken = (rowid: string) => `EXISTS (SELECT 1 FROM transfers
      WHERE substr(tx_signature, 1, ${prefix}) = substr(NEW.tx_signature, 1, ${prefix}) AND tx_signature = NEW.tx_signature ${rowid}
        AND NOT (${ownLog('')} AND ${ownLog('NEW.')}
          AND NOT (kind IS NEW.kind AND payer_signature IS NEW.payer_signature AND log_index IS NEW.log_index)))`;
  db.exec(`
    ALTER TABLE transfers ADD COLUMN log_index INTEGER CHECK (log_index IS NULL OR (kind = 'deposit' AND rail = 'base' AND log_index >= 0));
    DROP TRIGGER transfers_signature_once;
    DROP TRIGGER transfers_signature_once_update;
    CREATE TRIGGER transfers_signature_once BEFORE INSERT ON transfers
      WHEN NEW.tx_signature IS NOT NULL AND ${taken('')}
    BEGIN
      SELECT RAISE(ABORT, 'UNIQUE constraint failed: transfers.tx_signature');
    END;
    CREATE TRIGGER transfers_signature_once_update BEFORE UPDATE OF tx_signature ON transfers
      WHEN NEW.tx_signature IS NOT NULL AND ${taken('AND rowid != OLD.rowid')}
    BEGIN
      SELECT RAISE(ABORT, 'UNIQUE constraint failed: transfers.tx_signature');
    END;
  `);
}
