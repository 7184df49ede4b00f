/** SQLite adapter of the allocations port: allocations to agents and returns to the treasury. */
import type { AllocationRecord, AllocationStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../database.js';
import { allRows, bigintStatement, oneRow, text, type Row } from './rows.js';
import { pendingTransfers, toReplayableTransfer, withHeightParam } from './transfers.js';

function toAllocation(row: Row): AllocationRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    amount: BigInt(row.amount as bigint),
    ...toReplayableTransfer(row),
    direction: row.direction === 'to_treasury' ? 'to_treasury' : 'to_agent',
  };
}

export function createAllocationStore(db: SqliteDatabase): AllocationStore {
  const stmts = {
    insertAllocation: db.prepare(
      `INSERT INTO allocations (id, owner, agent_id, amount, status, tx_signature, tx_wire, last_valid_block_height, error_code,
         idempotency_key, request_hash, created_at, settled_at, direction)
       VALUES (@id, @owner, @agentId, @amount, @status, @txSignature, @txWire, @lastValidBlockHeight, @errorCode,
         @idempotencyKey, @requestHash, @createdAt, @settledAt, @direction)`,
    ),
    getAllocation: bigintStatement(db, 'SELECT * FROM allocations WHERE id = ?'),
    findAllocationByIdempotencyKey: bigintStatement(
      db,
      `SELECT * FROM allocations WHERE owner = ? AND agent_id = ? AND idempotency_key = ? AND created_at >= ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    ),
    pendingAllocationsTotal: bigintStatement(
      db,
      "SELECT COALESCE(SUM(amount), 0) FROM allocations WHERE owner = ? AND status = 'pending' AND direction = 'to_agent'",
    ).pluck(),
    pendingReturnsTotal: bigintStatement(
      db,
      "SELECT COALESCE(SUM(amount), 0) FROM allocations WHERE owner = ? AND agent_id = ? AND status = 'pending' AND direction = 'to_treasury'",
    ).pluck(),
    pendingAllocations: bigintStatement(db, "SELECT * FROM allocations WHERE status = 'pending' ORDER BY created_at"),
  };
  const pending = pendingTransfers(db, 'allocations');
  return {
    insertAllocation: (allocation) => void stmts.insertAllocation.run(withHeightParam(allocation)),
    getAllocation: (id) => oneRow(stmts.getAllocation, toAllocation, id),
    findAllocationByIdempotencyKey: (owner, agentId, key, since) =>
      oneRow(stmts.findAllocationByIdempotencyKey, toAllocation, owner, agentId, key, since),
    markAllocationSent: pending.markSent,
    settleAllocation: pending.settle,
    pendingAllocationsTotal: (owner) => BigInt(stmts.pendingAllocationsTotal.get(owner) as bigint),
    pendingReturnsTotal: (owner, agentId) => BigInt(stmts.pendingReturnsTotal.get(owner, agentId) as bigint),
    pendingAllocations: () => allRows(stmts.pendingAllocations, toAllocation),
  };
}
