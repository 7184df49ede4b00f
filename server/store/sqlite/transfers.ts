/** SQLite adapter of the transfers port: every move of money, whatever its kind, as one row of `transfers`. */
import type Database from 'better-sqlite3';
import type { CountedPayment, TransferKind, TransferOf, TransferRecord, TransferStore } from '../../core/ports/store.js';
import type { Rail } from '../../wire/rails.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, bigintStatement, oneRow, optionalBigint, optionalNumber, optionalText, text, type Row } from './rows.js';
import { toTask } from './tasks.js';
import { SIGNATURE_PREFIX_CHARS } from '../migrations/0003-transfers-written-once.js';
import { outflowTally } from '../outflow-tally.js';

/** The rail a row was written on (a row from before rails is Solana's). */
const railOf = (rail: unknown): Rail => (rail === 'base' ? 'base' : 'sol');

/** Rows a replay's read holds at once. */
const COUNTED_PAGE = 1_000;

/**
 * The payments that count, read a page at a time as they are iterated. Rows as arrays; amounts are
 * micro-USDC, far below 2^53. On the serving connection pages follow each other without a turn
 * between them (the replay reads synchronously), so no write falls between two pages; the what-if's
 * worker reads on a connection of its own, inside one read transaction (one snapshot) for the same
 * reason (server/boot/policy-replay-worker.ts).
 */
function* countedPayments(page: Database.Statement, owner: string, agentId: string, since: number | null): Generator<CountedPayment> {
  let afterAt = since ?? Number.MIN_SAFE_INTEGER;
  let afterRowid = -1;
  for (;;) {
    const rows = page.all({ owner, agentId, afterAt, afterRowid }) as [number, string, string, string, number, number, string][];
    for (const [, id, serviceId, recipient, amount, createdAt, rail] of rows)
      yield { id, serviceId, recipient, amount: BigInt(amount), createdAt, rail: railOf(rail) };
    if (rows.length < COUNTED_PAGE) return;
    const last = rows[rows.length - 1]!;
    afterRowid = last[0];
    afterAt = last[5];
  }
}

function toTransfer(row: Row): TransferRecord {
  const kind = row.kind as TransferKind;
  const record = {
    id: text(row.id),
    kind,
    owner: text(row.owner),
    agentId: optionalText(row.agent_id),
    amount: BigInt(row.amount as bigint),
    status: row.status as TransferRecord['status'],
    txSignature: optionalText(row.tx_signature),
    txWire: optionalText(row.tx_wire),
    lifetimeEnd: optionalBigint(row.last_valid_block_height),
    errorCode: optionalText(row.error_code),
    idempotencyKey: optionalText(row.idempotency_key),
    requestHash: optionalText(row.request_hash),
    createdAt: Number(row.created_at),
    settledAt: optionalNumber(row.settled_at),
    rail: railOf(row.rail),
  };
  switch (kind) {
    case 'payment':
      return Object.assign(record, {
        kind,
        agentId: text(row.agent_id),
        serviceId: text(row.service_id),
        serviceName: text(row.service_name),
        recipient: text(row.recipient),
        memo: text(row.memo),
        description: text(row.description),
        refundedAt: optionalNumber(row.refunded_at),
        refundTxSignature: optionalText(row.refund_tx_signature),
        protocol: row.protocol === 'x402' ? ('x402' as const) : ('coffer' as const),
        resource: optionalText(row.resource),
        x402Header: row.x402_header === null ? null : (JSON.parse(text(row.x402_header)) as { name: string; value: string }),
        payerSignature: optionalText(row.payer_signature),
      });
    case 'allocation':
    case 'return':
      return Object.assign(record, { kind, agentId: text(row.agent_id) });
    case 'faucet':
    case 'deposit':
      return Object.assign(record, { kind, agentId: null, from: text(row.from_address) });
    case 'refund':
      return Object.assign(record, {
        kind,
        agentId: text(row.agent_id),
        paymentId: text(row.payment_id),
        taskId: optionalText(row.task_id),
        destination: row.destination === 'treasury' ? ('treasury' as const) : ('agent' as const),
      });
  }
}

/**
 * A row's columns as the mapper reads them: the signed transaction of one not confirmed lives beside
 * it (transfer_wires, schema 3), so that the row is written once at its final size.
 */
const ROW = 'transfers.*, (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire';

/** A row's transaction signature is `param`: found through transfers_by_signature (its first characters), then compared whole. */
export const signatureIs = (param: string) =>
  `substr(tx_signature, 1, ${SIGNATURE_PREFIX_CHARS}) = substr(${param}, 1, ${SIGNATURE_PREFIX_CHARS}) AND tx_signature = ${param}`;

/** The mapping for a statement that selects only rows of these kinds (the one place that narrows a row's type). */
const ofKind =
  <K extends TransferKind>(..._kinds: K[]) =>
  (row: Row): TransferOf<K> =>
    toTransfer(row) as TransferOf<K>;
const toPayment = ofKind('payment');

/** A record's columns, in the insert's order: the ones its kind does not have are null. */
function columnsOf(record: TransferRecord): unknown[] {
  const payment = record.kind === 'payment' ? record : null;
  const refund = record.kind === 'refund' ? record : null;
  return [
    record.id,
    record.kind,
    record.owner,
    record.agentId,
    record.amount,
    record.status,
    record.txSignature,
    record.lifetimeEnd === null ? null : record.lifetimeEnd.toString(),
    record.errorCode,
    record.idempotencyKey,
    record.requestHash,
    record.createdAt,
    record.settledAt,
    payment?.serviceId ?? null,
    payment?.serviceName ?? null,
    payment?.recipient ?? null,
    payment?.memo ?? null,
    payment?.description ?? null,
    payment?.protocol ?? null,
    payment?.resource ?? null,
    payment?.x402Header ? JSON.stringify(payment.x402Header) : null,
    payment?.payerSignature ?? null,
    payment?.refundedAt ?? null,
    payment?.refundTxSignature ?? null,
    record.kind === 'faucet' || record.kind === 'deposit' ? record.from : null,
    refund?.paymentId ?? null,
    refund?.taskId ?? null,
    refund?.destination ?? null,
    record.rail,
  ];
}

/**
 * A deposit found on chain, not where its transaction is recorded already, unless (schema 12) it is a
 * Base deposit beside x402 payments, or at another place in the transaction than the deposits there:
 * the trigger's rule for a new deposit, so that what the trigger would refuse is passed over here
 * rather than thrown.
 */
const INSERT_CHAIN_DEPOSIT = `INSERT INTO transfers (id, kind, owner, tx_signature, amount, from_address, status, created_at, settled_at, rail, transfer_index)
       SELECT @id, 'deposit', @owner, @txSignature, @amount, @from, 'confirmed', @createdAt, @createdAt, @rail, @transferIndex
       WHERE NOT EXISTS (SELECT 1 FROM transfers WHERE ${signatureIs('@txSignature')}
         AND NOT (@rail IS 'base' AND rail IS 'base'
           AND ((kind IS 'payment' AND protocol IS 'x402' AND payer_signature IS NOT NULL)
             OR (kind IS 'deposit' AND transfer_index IS NOT NULL AND @transferIndex IS NOT NULL
               AND transfer_index IS NOT @transferIndex))))`;

/** The owner's allocations and returns, newest first: one agent's through allocations_by_agent; every agent's is a few rows an owner made by hand. */
function allocationsReader(db: SqliteDatabase): TransferStore['listAllocations'] {
  const ofAgent = bigintStatement(
    db,
    `SELECT ${ROW} FROM transfers WHERE owner = ? AND agent_id = ? AND kind IN ('allocation', 'return')
     ORDER BY created_at DESC, rowid DESC LIMIT ?`,
  );
  const ofOwner = bigintStatement(
    db,
    `SELECT ${ROW} FROM transfers WHERE owner = ? AND kind IN ('allocation', 'return') ORDER BY created_at DESC, rowid DESC LIMIT ?`,
  );
  const toMove = ofKind('allocation', 'return');
  return (owner, agentId, limit) =>
    agentId === null ? allRows(ofOwner, toMove, owner, limit) : allRows(ofAgent, toMove, owner, agentId, limit);
}

export function createTransferStore(db: SqliteDatabase): TransferStore {
  const outflows = outflowTally();
  const stmts = {
    insert: db.prepare(
      `INSERT INTO transfers (id, kind, owner, agent_id, amount, status, tx_signature, last_valid_block_height, error_code,
         idempotency_key, request_hash, created_at, settled_at, service_id, service_name, recipient, memo, description, protocol,
         resource, x402_header, payer_signature, refunded_at, refund_tx_signature, from_address, payment_id, task_id, destination, rail)
       VALUES (${Array(29).fill('?').join(', ')})`,
    ),
    insertWire: db.prepare('INSERT INTO transfer_wires (id, wire) VALUES (?, ?)'),
    insertChainDeposit: db.prepare(INSERT_CHAIN_DEPOSIT),
    get: bigintStatement(db, `SELECT ${ROW} FROM transfers WHERE id = ?`),
    getPayment: bigintStatement(db, `SELECT ${ROW} FROM transfers WHERE id = ? AND kind = 'payment'`),
    byIdempotencyKey: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE owner = @owner AND agent_id IS @agentId AND idempotency_key = @key AND created_at >= @since
         AND kind IN (@kind, @otherKind)
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    ),
    // Two statements: an UPDATE naming tx_signature rewrites its index entry even when it is unchanged.
    // A confirmed transfer lets go of its signed transaction (the chain keeps it; the schema's trigger
    // transfers_confirmed_wire): only a pending one is sent again or settled from it, and a failed one
    // keeps it (see PaymentRecord.txWire).
    settle: db.prepare(
      `UPDATE transfers SET status = @status, error_code = @errorCode, settled_at = @at
       WHERE id = @id AND status = 'pending'`,
    ),
    settleLanded: db.prepare(
      `UPDATE transfers SET status = @status, error_code = @errorCode, settled_at = @at, tx_signature = @txSignature
       WHERE id = @id AND status = 'pending'`,
    ),
    markPaymentRefunded: db.prepare('UPDATE transfers SET refunded_at = ?, refund_tx_signature = ? WHERE id = ?'),
    pending: bigintStatement(db, `SELECT ${ROW} FROM transfers WHERE status = 'pending' ORDER BY created_at`),
    // A refund kept in the treasury (its agent archived) moves nothing.
    pendingTreasuryOutflowsTotal: bigintStatement(
      db,
      `SELECT COALESCE(SUM(amount), 0) FROM transfers WHERE owner = ? AND status = 'pending' AND rail = ?
         AND (kind = 'allocation' OR (kind = 'refund' AND destination IS NOT 'treasury'))`,
    ).pluck(),
    pendingReturnsTotal: bigintStatement(
      db,
      "SELECT COALESCE(SUM(amount), 0) FROM transfers WHERE owner = ? AND agent_id = ? AND status = 'pending' AND kind = 'return' AND rail = ?",
    ).pluck(),
    findLivePaymentByMemo: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE kind = 'payment' AND owner = ? AND agent_id = ? AND memo = ? AND recipient = ?
         AND status IN ('held', 'pending', 'confirmed') LIMIT 1`,
    ),
    hasPaidRecipient: db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM transfers WHERE kind = 'payment' AND owner = ? AND agent_id = ? AND recipient = ?
           AND status IN ('pending', 'confirmed'))`,
      )
      .pluck(),
    // Uncounted first (the spend triggers follow the status), then gone: its id is written again as it is reserved.
    uncountHeld: db.prepare("UPDATE transfers SET status = 'failed' WHERE id = ? AND status = 'held'"),
    deleteTransfer: db.prepare('DELETE FROM transfers WHERE id = ?'),
    takeOutSolanaDeposit: db.prepare("DELETE FROM transfers WHERE kind = 'deposit' AND rail = 'sol' AND tx_signature = ?"),
    failHeld: db.prepare("UPDATE transfers SET status = 'failed', error_code = ?, settled_at = ? WHERE id = ? AND status = 'held'"),
    findLivePaymentByPayerSignature: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE payer_signature = ? AND status IN ('pending', 'confirmed') LIMIT 1`,
    ),
    listPayments: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE kind = 'payment' AND owner = ? AND agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    ),
    // Oldest first, the columns a policy judges, a page at a time after the last row read (its
    // created_at, then its rowid): the index's own order, so no page sorts.
    countedPaymentsPage: db
      .prepare(
        `SELECT rowid, id, service_id, recipient, amount, created_at, rail FROM transfers
         WHERE kind = 'payment' AND owner = @owner AND agent_id = @agentId
           AND created_at >= @afterAt AND (created_at > @afterAt OR rowid > @afterRowid)
           AND status IN ('pending', 'confirmed') AND refunded_at IS NULL
         ORDER BY created_at, rowid LIMIT ${COUNTED_PAGE}`,
      )
      .raw(true),
    recentPayments: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE owner = ? AND kind = 'payment' ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    ),
    isPaymentTransaction: db.prepare(`SELECT 1 FROM transfers WHERE ${signatureIs('@txSignature')} AND kind = 'payment'`).pluck(),
    listDeposits: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE owner = ? AND kind IN ('faucet', 'deposit') AND status = 'confirmed'
       ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    ),
    findRefundByPayment: bigintStatement(
      db,
      `SELECT ${ROW} FROM transfers WHERE payment_id = ? AND kind = 'refund' ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    ),
    tasksOwedRefunds: bigintStatement(
      db,
      `SELECT t.* FROM generation_tasks t JOIN transfers p ON p.id = t.payment_id
       WHERE t.status = 'failed' AND p.status = 'confirmed' AND p.refunded_at IS NULL AND p.recipient = p.owner
         AND NOT EXISTS (SELECT 1 FROM transfers r WHERE r.kind = 'refund' AND r.payment_id = p.id AND (r.status != 'failed' OR NOT @retryFailed))
       ORDER BY t.created_at`,
    ),
  };
  // The row and its signed transaction, together (a savepoint within the caller's write).
  const insertTransfer = db.transaction((record: TransferRecord) => {
    stmts.insert.run(columnsOf(record));
    if (record.txWire !== null) stmts.insertWire.run(record.id, record.txWire);
  });
  return {
    insertTransfer: (record) => insertTransfer(record),
    insertChainDeposit: (deposit) => stmts.insertChainDeposit.run(deposit).changes === 1,
    takeOutSolanaDeposit: (txSignature) => stmts.takeOutSolanaDeposit.run(txSignature).changes > 0,
    getTransfer: (id) => oneRow(stmts.get, toTransfer, id),
    getPayment: (id) => oneRow(stmts.getPayment, toPayment, id),
    findByIdempotencyKey: (kinds, owner, agentId, key, since) =>
      oneRow(stmts.byIdempotencyKey, ofKind(...kinds), { owner, agentId, key, since, kind: kinds[0], otherKind: kinds[1] ?? kinds[0] }),
    settleTransfer: (row, status, errorCode, at, txSignature) => {
      const settled =
        txSignature === undefined
          ? stmts.settle.run({ status, errorCode, at, id: row.id })
          : stmts.settleLanded.run({ status, errorCode, at, txSignature, id: row.id });
      if (settled.changes !== 1) return false;
      if (row.kind === 'refund' && status === 'confirmed') stmts.markPaymentRefunded.run(at, row.txSignature, row.paymentId);
      if (status === 'confirmed') outflows.confirmed(row);
      return true;
    },
    pendingTransfers: () => allRows(stmts.pending, toTransfer),
    pendingTreasuryOutflowsTotal: (owner, rail) => BigInt(stmts.pendingTreasuryOutflowsTotal.get(owner, rail) as bigint),
    pendingReturnsTotal: (owner, agentId, rail) => BigInt(stmts.pendingReturnsTotal.get(owner, agentId, rail) as bigint),
    confirmedOutflowsTotal: (owner, agentId, rail) => outflows.total(owner, agentId, rail),
    findLivePaymentByMemo: (owner, agentId, recipient, memo) =>
      oneRow(stmts.findLivePaymentByMemo, toPayment, owner, agentId, memo, recipient),
    releaseHeldPayment: (id) => {
      if (stmts.uncountHeld.run(id).changes !== 1) return false;
      stmts.deleteTransfer.run(id);
      return true;
    },
    failHeldPayment: (id, errorCode, at) => stmts.failHeld.run(errorCode, at, id).changes === 1,
    hasPaidRecipient: (owner, agentId, recipient) => stmts.hasPaidRecipient.get(owner, agentId, recipient) === 1,
    findLivePaymentByPayerSignature: (payerSignature) => oneRow(stmts.findLivePaymentByPayerSignature, toPayment, payerSignature),
    listPayments: (owner, agentId, limit) => allRows(stmts.listPayments, toPayment, owner, agentId, limit),
    recentPayments: (owner, limit) => allRows(stmts.recentPayments, toPayment, owner, limit),
    countedPayments: (owner, agentId, since) => countedPayments(stmts.countedPaymentsPage, owner, agentId, since),
    isPaymentTransaction: (txSignature) => stmts.isPaymentTransaction.get({ txSignature }) !== undefined,
    listDeposits: (owner, limit) => allRows(stmts.listDeposits, ofKind('faucet', 'deposit'), owner, limit),
    listAllocations: allocationsReader(db),
    findRefundByPayment: (paymentId) => oneRow(stmts.findRefundByPayment, ofKind('refund'), paymentId),
    tasksOwedRefunds: (retryFailed) => allRows(stmts.tasksOwedRefunds, toTask, { retryFailed: retryFailed ? 1 : 0 }),
  };
}
