/** SQLite adapter of the deposits port: USDC found coming into the treasury, and sim faucet mints. */
import type { DepositRecord, DepositStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../database.js';
import { allRows, bigintStatement, oneRow, text, type Row } from './rows.js';
import { pendingTransfers, toReplayableTransfer, withHeightParam } from './transfers.js';

function toDeposit(row: Row): DepositRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    amount: BigInt(row.amount as bigint),
    from: text(row.from_address),
    source: row.source as DepositRecord['source'],
    ...toReplayableTransfer(row),
  };
}

export function createDepositStore(db: SqliteDatabase): DepositStore {
  const stmts = {
    insertChainDeposit: db.prepare(
      `INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, status, created_at, settled_at)
       VALUES (?, ?, ?, ?, ?, 'chain', 'confirmed', ?, ?)
       ON CONFLICT (tx_signature) DO NOTHING`,
    ),
    insertFaucetDeposit: db.prepare(
      `INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, status, tx_wire, last_valid_block_height,
         error_code, idempotency_key, request_hash, created_at, settled_at)
       VALUES (@id, @owner, @txSignature, @amount, @from, 'faucet', @status, @txWire, @lastValidBlockHeight,
         @errorCode, @idempotencyKey, @requestHash, @createdAt, @settledAt)`,
    ),
    getDeposit: bigintStatement(db, 'SELECT * FROM deposits WHERE id = ?'),
    findDepositByIdempotencyKey: bigintStatement(
      db,
      `SELECT * FROM deposits WHERE owner = ? AND idempotency_key = ? AND created_at >= ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    ),
    pendingDeposits: bigintStatement(db, "SELECT * FROM deposits WHERE status = 'pending' ORDER BY created_at"),
    listDeposits: bigintStatement(
      db,
      "SELECT * FROM deposits WHERE owner = ? AND status = 'confirmed' ORDER BY created_at DESC, rowid DESC LIMIT ?",
    ),
  };
  const pending = pendingTransfers(db, 'deposits');
  return {
    insertChainDeposit: (deposit) =>
      stmts.insertChainDeposit.run(
        deposit.id,
        deposit.owner,
        deposit.txSignature,
        deposit.amount,
        deposit.from,
        deposit.createdAt,
        deposit.createdAt,
      ).changes === 1,
    insertFaucetDeposit: (deposit) => void stmts.insertFaucetDeposit.run(withHeightParam(deposit)),
    getDeposit: (id) => oneRow(stmts.getDeposit, toDeposit, id),
    findDepositByIdempotencyKey: (owner, key, since) => oneRow(stmts.findDepositByIdempotencyKey, toDeposit, owner, key, since),
    markDepositSent: pending.markSent,
    settleDeposit: pending.settle,
    pendingDeposits: () => allRows(stmts.pendingDeposits, toDeposit),
    listDeposits: (owner, limit) => allRows(stmts.listDeposits, toDeposit, owner, limit),
  };
}
