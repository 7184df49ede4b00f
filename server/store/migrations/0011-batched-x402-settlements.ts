import type { SqliteDatabase } from '../sqlite-driver.js';
import { SIGNATURE_PREFIX_CHARS } from './0003-transfers-written-once.js';

/**
 * Schema 11, one Base transaction under several x402 payments: anyone may send an EIP-3009
 * authorization, so a seller's facilitator may run several (of one agent, or of several) in one
 * transaction, and each of those payments landed in it. Schema 3's triggers recorded a transaction
 * under one row only, so the second payment's settlement was refused: it stayed pending for good,
 * its budget held, though the chain had moved its money. Such rows may now share their transaction:
 * x402 payments on Base, each under an authorization of its own (its nonce, `payer_signature`).
 * Anything else under a transaction already recorded is refused as before: a deposit counted twice,
 * a payment Coffer sent, an x402 payment on Solana (whose transaction the agent's own signature names).
 */
export function allowBatchedX402Settlements(db: SqliteDatabase): void {
  const prefix = SIGNATURE_PREFIX_CHARS;
  // Another row with the transaction, unless both are x402 payments on Base under their own authorizations.
  const taken = (rowid: string) => `EXISTS (SELECT 1 FROM transfers
      WHERE substr(tx_signature, 1, ${prefix}) = substr(NEW.tx_signature, 1, ${prefix}) AND tx_signature = NEW.tx_signature ${rowid}
        AND NOT (kind = 'payment' AND protocol = 'x402' AND rail = 'base'
          AND NEW.kind = 'payment' AND NEW.protocol = 'x402' AND NEW.rail = 'base'
          AND payer_signature IS NOT NULL AND NEW.payer_signature IS NOT NULL AND payer_signature != NEW.payer_signature))`;
  db.exec(`
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
