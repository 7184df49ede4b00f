/** SQLite adapter of the refunds port: a confirmed refund also marks its payment refunded. */
import type { RefundRecord, RefundStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../database.js';
import { allRows, bigintStatement, oneRow, optionalNumber, optionalText, text, type Row } from './rows.js';
import { toTask } from './tasks.js';
import { pendingTransfers, toSentTransaction, withHeightParam } from './transfers.js';

function toRefund(row: Row): RefundRecord {
  return {
    id: text(row.id),
    destination: row.destination as RefundRecord['destination'],
    owner: text(row.owner),
    agentId: text(row.agent_id),
    paymentId: text(row.payment_id),
    taskId: optionalText(row.task_id),
    amount: BigInt(row.amount as bigint),
    status: row.status as RefundRecord['status'],
    ...toSentTransaction(row),
    errorCode: optionalText(row.error_code),
    createdAt: Number(row.created_at),
    settledAt: optionalNumber(row.settled_at),
  };
}

export function createRefundStore(db: SqliteDatabase): RefundStore {
  const stmts = {
    insertRefund: db.prepare(
      `INSERT INTO refunds (id, destination, owner, agent_id, payment_id, task_id, amount, status, tx_signature, tx_wire,
         last_valid_block_height, error_code, created_at, settled_at)
       VALUES (@id, @destination, @owner, @agentId, @paymentId, @taskId, @amount, @status, @txSignature, @txWire,
         @lastValidBlockHeight, @errorCode, @createdAt, @settledAt)`,
    ),
    getRefund: bigintStatement(db, 'SELECT * FROM refunds WHERE id = ?'),
    findRefundByPayment: bigintStatement(db, 'SELECT * FROM refunds WHERE payment_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1'),
    markPaymentRefunded: db.prepare(
      `UPDATE payments SET refunded_at = @at, refund_tx_signature = r.tx_signature
       FROM (SELECT payment_id, tx_signature FROM refunds WHERE id = @id) AS r WHERE payments.id = r.payment_id`,
    ),
    pendingRefunds: bigintStatement(db, "SELECT * FROM refunds WHERE status = 'pending' ORDER BY created_at"),
    tasksOwedRefunds: bigintStatement(
      db,
      `SELECT t.* FROM generation_tasks t JOIN payments p ON p.id = t.payment_id
       WHERE t.status = 'failed' AND p.status = 'confirmed' AND p.refunded_at IS NULL AND p.recipient = p.owner
         AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND (r.status != 'failed' OR NOT @retryFailed))
       ORDER BY t.created_at`,
    ),
  };
  const pending = pendingTransfers(db, 'refunds');
  return {
    insertRefund: (refund) => void stmts.insertRefund.run(withHeightParam(refund)),
    getRefund: (id) => oneRow(stmts.getRefund, toRefund, id),
    findRefundByPayment: (paymentId) => oneRow(stmts.findRefundByPayment, toRefund, paymentId),
    markRefundSent: pending.markSent,
    settleRefund: (id, status, errorCode, at) => {
      const settled = pending.settle(id, status, errorCode, at);
      if (settled && status === 'confirmed') stmts.markPaymentRefunded.run({ id, at });
      return settled;
    },
    pendingRefunds: () => allRows(stmts.pendingRefunds, toRefund),
    tasksOwedRefunds: (retryFailed) => allRows(stmts.tasksOwedRefunds, toTask, { retryFailed: retryFailed ? 1 : 0 }),
  };
}
