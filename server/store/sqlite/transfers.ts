/** What the SQLite adapters of money movements share: the signed transaction's columns, and moving a pending row on. */
import type { ReplayableTransfer, SentTransaction, TransferStatus } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../database.js';
import { optionalBigint, optionalNumber, optionalText, type Row } from './rows.js';

/** A block height as its column is written: decimal text (or null). */
export const heightParam = (height: bigint | null) => (height === null ? null : height.toString());

/** A record's named parameters, its block height written as stored. */
export const withHeightParam = <T extends SentTransaction>(record: T) => ({
  ...record,
  lastValidBlockHeight: heightParam(record.lastValidBlockHeight),
});

export const toSentTransaction = (row: Row): SentTransaction => ({
  txSignature: optionalText(row.tx_signature),
  txWire: optionalText(row.tx_wire),
  lastValidBlockHeight: optionalBigint(row.last_valid_block_height),
});

/** The columns of a movement an Idempotency-Key replays, in the order its records list them. */
export const toReplayableTransfer = (row: Row): ReplayableTransfer => ({
  status: row.status as TransferStatus,
  ...toSentTransaction(row),
  errorCode: optionalText(row.error_code),
  idempotencyKey: optionalText(row.idempotency_key),
  requestHash: optionalText(row.request_hash),
  createdAt: Number(row.created_at),
  settledAt: optionalNumber(row.settled_at),
});

/** Records a pending row's transaction (`markSent`) and settles it (`settle`); both false when it is no longer pending. */
export function pendingTransfers(db: SqliteDatabase, table: 'payments' | 'allocations' | 'deposits' | 'refunds') {
  const markSent = db.prepare(
    `UPDATE ${table} SET tx_signature = ?, tx_wire = ?, last_valid_block_height = ? WHERE id = ? AND status = 'pending'`,
  );
  const settle = db.prepare(`UPDATE ${table} SET status = ?, error_code = ?, settled_at = ? WHERE id = ? AND status = 'pending'`);
  return {
    markSent: (id: string, sent: SentTransaction) =>
      markSent.run(sent.txSignature, sent.txWire, heightParam(sent.lastValidBlockHeight), id).changes === 1,
    settle: (id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number) =>
      settle.run(status, errorCode, at, id).changes === 1,
  };
}
