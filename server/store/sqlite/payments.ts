/** SQLite adapter of the payments port, with the Idempotency-Key index a payment is replayed by. */
import type { PaymentRecord, PaymentStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../database.js';
import { allRows, bigintStatement, oneRow, optionalNumber, optionalText, text, type Row } from './rows.js';
import { heightParam, pendingTransfers, toReplayableTransfer } from './transfers.js';

function toPayment(row: Row): PaymentRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    serviceId: text(row.service_id),
    serviceName: text(row.service_name),
    recipient: text(row.recipient),
    amount: BigInt(row.amount as bigint),
    memo: text(row.memo),
    description: text(row.description),
    ...toReplayableTransfer(row),
    refundedAt: optionalNumber(row.refunded_at),
    refundTxSignature: optionalText(row.refund_tx_signature),
    protocol: row.protocol === 'x402' ? 'x402' : 'coffer',
    resource: optionalText(row.resource),
    x402Header:
      row.x402_header === null || row.x402_header === undefined
        ? null
        : (JSON.parse(text(row.x402_header)) as { name: string; value: string }),
    payerSignature: optionalText(row.payer_signature),
  };
}

export function createPaymentStore(db: SqliteDatabase): PaymentStore {
  const stmts = {
    insertPayment: db.prepare(
      `INSERT INTO payments (id, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status,
         tx_signature, tx_wire, last_valid_block_height, error_code, idempotency_key, request_hash, created_at, settled_at,
         protocol, resource)
       VALUES (@id, @owner, @agentId, @serviceId, @serviceName, @recipient, @amount, @memo, @description, @status,
         @txSignature, @txWire, @lastValidBlockHeight, @errorCode, @idempotencyKey, @requestHash, @createdAt, @settledAt,
         @protocol, @resource)`,
    ),
    insertIdempotency: db.prepare('INSERT INTO idempotency_keys (owner, agent_id, key, payment_id, created_at) VALUES (?, ?, ?, ?, ?)'),
    deleteIdempotency: db.prepare('DELETE FROM idempotency_keys WHERE owner = ? AND agent_id = ? AND key = ?'),
    findIdempotency: bigintStatement(
      db,
      `SELECT p.* FROM idempotency_keys k JOIN payments p ON p.id = k.payment_id
       WHERE k.owner = ? AND k.agent_id = ? AND k.key = ? AND k.created_at >= ?`,
    ),
    getPayment: bigintStatement(db, 'SELECT * FROM payments WHERE id = ?'),
    findLivePaymentByMemo: bigintStatement(
      db,
      "SELECT * FROM payments WHERE owner = ? AND agent_id = ? AND recipient = ? AND memo = ? AND status IN ('pending', 'confirmed') LIMIT 1",
    ),
    markX402Signed: db.prepare(
      `UPDATE payments SET tx_wire = ?, payer_signature = ?, last_valid_block_height = ?, x402_header = ?
       WHERE id = ? AND status = 'pending' AND protocol = 'x402' AND tx_wire IS NULL`,
    ),
    markPaymentLanded: db.prepare("UPDATE payments SET tx_signature = ? WHERE id = ? AND status = 'pending'"),
    findLivePaymentByPayerSignature: bigintStatement(
      db,
      "SELECT * FROM payments WHERE payer_signature = ? AND status IN ('pending', 'confirmed') LIMIT 1",
    ),
    listPayments: bigintStatement(
      db,
      'SELECT * FROM payments WHERE owner = ? AND agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
    ),
    recentPayments: bigintStatement(db, 'SELECT * FROM payments WHERE owner = ? ORDER BY created_at DESC, rowid DESC LIMIT ?'),
    pendingPayments: bigintStatement(db, "SELECT * FROM payments WHERE status = 'pending' ORDER BY created_at"),
    isPaymentTransaction: db.prepare('SELECT 1 FROM payments WHERE tx_signature = ?').pluck(),
  };
  const pending = pendingTransfers(db, 'payments');
  return {
    insertPayment: (payment) => {
      stmts.insertPayment.run({
        id: payment.id,
        owner: payment.owner,
        agentId: payment.agentId,
        serviceId: payment.serviceId,
        serviceName: payment.serviceName,
        recipient: payment.recipient,
        amount: payment.amount,
        memo: payment.memo,
        description: payment.description,
        status: payment.status,
        txSignature: payment.txSignature,
        txWire: payment.txWire,
        lastValidBlockHeight: heightParam(payment.lastValidBlockHeight),
        errorCode: payment.errorCode,
        idempotencyKey: payment.idempotencyKey,
        requestHash: payment.requestHash,
        createdAt: payment.createdAt,
        settledAt: payment.settledAt,
        protocol: payment.protocol,
        resource: payment.resource,
      });
      if (payment.idempotencyKey !== null) {
        stmts.deleteIdempotency.run(payment.owner, payment.agentId, payment.idempotencyKey);
        stmts.insertIdempotency.run(payment.owner, payment.agentId, payment.idempotencyKey, payment.id, payment.createdAt);
      }
    },
    getPayment: (id) => oneRow(stmts.getPayment, toPayment, id),
    findLivePaymentByMemo: (owner, agentId, recipient, memo) =>
      oneRow(stmts.findLivePaymentByMemo, toPayment, owner, agentId, recipient, memo),
    findPaymentByIdempotencyKey: (owner, agentId, key, since) => oneRow(stmts.findIdempotency, toPayment, owner, agentId, key, since),
    markPaymentSent: pending.markSent,
    markX402Signed: (id, signed) =>
      stmts.markX402Signed.run(
        signed.txWire,
        signed.payerSignature,
        signed.lastValidBlockHeight.toString(),
        JSON.stringify(signed.header),
        id,
      ).changes === 1,
    markPaymentLanded: (id, txSignature) => void stmts.markPaymentLanded.run(txSignature, id),
    findLivePaymentByPayerSignature: (payerSignature) => oneRow(stmts.findLivePaymentByPayerSignature, toPayment, payerSignature),
    settlePayment: pending.settle,
    listPayments: (owner, agentId, limit) => allRows(stmts.listPayments, toPayment, owner, agentId, limit),
    recentPayments: (owner, limit) => allRows(stmts.recentPayments, toPayment, owner, limit),
    pendingPayments: () => allRows(stmts.pendingPayments, toPayment),
    isPaymentTransaction: (txSignature) => stmts.isPaymentTransaction.get(txSignature) !== undefined,
  };
}
