import type { SqliteDatabase } from '../sqlite-driver.js';
import { SIGNATURE_PREFIX_CHARS } from './0003-transfers-written-once.js';

/**
 * Schema 12, a Base deposit is a transfer, not a transaction. One transaction may pay the treasury
 * more than once (a disperse contract, a batched payout, a facilitator running several buyers'
 * authorizations), and a facilitator may run an outsider's payment to the treasury in the same
 * transaction as an agent's x402 payment. Schema 11 recorded a transaction under one row, so the
 * watch kept the first such transfer and passed over the rest (the ledger short of the chain), and
 * passed over a deposit in a transaction an x402 payment already named, or, read first, left that
 * payment pending for good with its budget held.
 *
 * A Base deposit found by the watch now names its place among its transaction's transfers to the
 * treasury (`transfer_index`: 0, 1, …; not the log's index in its block, which a reorg renumbers).
 * Rows on Base may share a transaction where each is a move of its own in it:
 * - x402 payments under authorizations of their own (schema 11);
 * - an x402 payment and a deposit: the watch never takes a transfer sent by an agent's wallet for a
 *   deposit, so the two are never the same move (a deposit recorded before this schema included,
 *   which frees a payment it held pending);
 * - deposits at different places in the transaction (one recorded before this schema names none, and
 *   keeps its transaction from other deposits: never counted twice).
 * Every other pair under one transaction is refused as before.
 */
export function recordDepositsByTransfer(db: SqliteDatabase): void {
  const prefix = SIGNATURE_PREFIX_CHARS;
  // Compared with IS throughout: a NULL column (a row's protocol) makes a test false, never NULL,
  // which would let the trigger pass.
  const x402Payment = (row: string) => `(${row}kind IS 'payment' AND ${row}protocol IS 'x402' AND ${row}payer_signature IS NOT NULL)`;
  const deposit = (row: string) => `${row}kind IS 'deposit'`;
  const movesOfTheirOwn = `rail IS 'base' AND NEW.rail IS 'base' AND (
      (${x402Payment('')} AND ${x402Payment('NEW.')} AND payer_signature IS NOT NEW.payer_signature)
      OR (${x402Payment('')} AND ${deposit('NEW.')})
      OR (${deposit('')} AND ${x402Payment('NEW.')})
      OR (${deposit('')} AND ${deposit('NEW.')} AND transfer_index IS NOT NULL AND NEW.transfer_index IS NOT NULL
        AND transfer_index IS NOT NEW.transfer_index))`;
  // Another row with the transaction, unless each is a move of its own in it.
  const taken = (rowid: string) => `EXISTS (SELECT 1 FROM transfers
      WHERE substr(tx_signature, 1, ${prefix}) = substr(NEW.tx_signature, 1, ${prefix}) AND tx_signature = NEW.tx_signature ${rowid}
        AND NOT (${movesOfTheirOwn}))`;
  db.exec(`
    ALTER TABLE transfers ADD COLUMN transfer_index INTEGER
      CHECK (transfer_index IS NULL OR (kind = 'deposit' AND rail = 'base' AND transfer_index >= 0));
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
