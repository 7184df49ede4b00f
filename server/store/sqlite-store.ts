import type { SqliteDatabase } from './database.js';
import type {
  AgentRecord,
  AgentSpendTotals,
  ApprovalKind,
  ApprovalRecord,
  LinkSessionRecord,
  RefusalRecord,
  AgentStatus,
  AllocationRecord,
  AuditEntry,
  DepositRecord,
  GenerationTask,
  ModelRecord,
  OwnerRecord,
  PaymentRecord,
  Policy,
  RefundRecord,
  SentTransaction,
  ServiceRecord,
  Store,
} from '../core/ports/store.js';

type Row = Record<string, unknown>;

const text = (value: unknown): string => String(value);
const optionalText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const optionalBigint = (value: unknown): bigint | null => (value === null || value === undefined ? null : BigInt(value as string));
const optionalNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function toAgent(row: Row): AgentRecord {
  return {
    owner: text(row.owner),
    agentId: text(row.agent_id),
    walletAddress: text(row.wallet_address),
    displayName: text(row.display_name),
    status: row.status as AgentStatus,
    createdAt: Number(row.created_at),
    archivedAt: optionalNumber(row.archived_at),
  };
}

const toPolicy = (row: Row): Policy => ({
  dailyBudget: BigInt(row.daily_budget as bigint),
  maxPerPayment: BigInt(row.max_per_payment as bigint),
  cooldownSeconds: Number(row.cooldown_seconds),
  allowedServices: JSON.parse(text(row.allowed_services)) as string[],
});

/** How many matches a search ranks, and counts, at most. */
const SEARCH_CANDIDATES = 500;
export const SEARCH_COUNT_CAP = 1_000;
const countedTotal = (counted: number) =>
  counted > SEARCH_COUNT_CAP ? { total: SEARCH_COUNT_CAP, totalIsCapped: true } : { total: counted, totalIsCapped: false };

const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * A rolling window "after `since`" in the maintained buckets' terms: the whole hours after the hour
 * it starts in, the whole minutes after the minute it starts in (within that hour), and the part of
 * that first minute, which is read from the payments themselves. Exact to the millisecond.
 */
function windowBounds(since: number) {
  const hour = Math.floor(since / HOUR);
  const minute = Math.floor(since / MINUTE);
  return { since, hourFrom: hour + 1, minuteFrom: minute + 1, minuteTo: (hour + 1) * (HOUR / MINUTE), rawTo: (minute + 1) * MINUTE };
}

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
    status: row.status as PaymentRecord['status'],
    txSignature: optionalText(row.tx_signature),
    txWire: optionalText(row.tx_wire),
    lastValidBlockHeight: optionalBigint(row.last_valid_block_height),
    errorCode: optionalText(row.error_code),
    idempotencyKey: optionalText(row.idempotency_key),
    requestHash: optionalText(row.request_hash),
    createdAt: Number(row.created_at),
    settledAt: optionalNumber(row.settled_at),
    refundedAt: optionalNumber(row.refunded_at),
    refundTxSignature: optionalText(row.refund_tx_signature),
    protocol: row.protocol === 'x402' ? 'x402' : 'coffer',
    resource: optionalText(row.resource),
    x402Header: row.x402_header === null || row.x402_header === undefined ? null : (JSON.parse(text(row.x402_header)) as { name: string; value: string }),
    payerSignature: optionalText(row.payer_signature),
  };
}

function toRefund(row: Row): RefundRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    paymentId: text(row.payment_id),
    taskId: optionalText(row.task_id),
    amount: BigInt(row.amount as bigint),
    status: row.status as RefundRecord['status'],
    txSignature: optionalText(row.tx_signature),
    txWire: optionalText(row.tx_wire),
    lastValidBlockHeight: optionalBigint(row.last_valid_block_height),
    errorCode: optionalText(row.error_code),
    createdAt: Number(row.created_at),
    settledAt: optionalNumber(row.settled_at),
  };
}

function toAllocation(row: Row): AllocationRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    amount: BigInt(row.amount as bigint),
    status: row.status as AllocationRecord['status'],
    txSignature: optionalText(row.tx_signature),
    txWire: optionalText(row.tx_wire),
    lastValidBlockHeight: optionalBigint(row.last_valid_block_height),
    errorCode: optionalText(row.error_code),
    idempotencyKey: optionalText(row.idempotency_key),
    requestHash: optionalText(row.request_hash),
    createdAt: Number(row.created_at),
    settledAt: optionalNumber(row.settled_at),
    direction: row.direction === 'to_treasury' ? 'to_treasury' : 'to_agent',
  };
}

function toDeposit(row: Row): DepositRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    amount: BigInt(row.amount as bigint),
    from: text(row.from_address),
    source: row.source as DepositRecord['source'],
    status: row.status as DepositRecord['status'],
    txSignature: optionalText(row.tx_signature),
    txWire: optionalText(row.tx_wire),
    lastValidBlockHeight: optionalBigint(row.last_valid_block_height),
    errorCode: optionalText(row.error_code),
    idempotencyKey: optionalText(row.idempotency_key),
    requestHash: optionalText(row.request_hash),
    createdAt: Number(row.created_at),
    settledAt: optionalNumber(row.settled_at),
  };
}

function toService(row: Row): ServiceRecord {
  return {
    id: text(row.id),
    name: text(row.name),
    description: text(row.description),
    category: text(row.category),
    pricing: JSON.parse(text(row.pricing)) as Record<string, string>,
    pricePerCall: optionalText(row.price_per_call),
    endpoint: text(row.endpoint),
    source: row.source as ServiceRecord['source'],
    payTo: text(row.pay_to),
    network: text(row.network),
  };
}

function toModel(row: Row): ModelRecord {
  return {
    id: text(row.id),
    displayName: text(row.display_name),
    provider: text(row.provider),
    description: text(row.description),
    pricing: JSON.parse(text(row.pricing)) as Record<string, string>,
    enabled: Number(row.enabled) === 1,
  };
}

function toTask(row: Row): GenerationTask {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    modelId: text(row.model_id),
    resolution: text(row.resolution),
    prompt: text(row.prompt),
    status: row.status as GenerationTask['status'],
    estimatedCost: BigInt(row.estimated_cost as bigint),
    cost: optionalBigint(row.cost),
    paymentId: text(row.payment_id),
    resultUrl: optionalText(row.result_url),
    error: optionalText(row.error),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toApproval(row: Row): ApprovalRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    kind: row.kind as ApprovalRecord['kind'],
    targetAgentId: text(row.target_agent_id),
    request: JSON.parse(text(row.request)) as Record<string, unknown>,
    status: row.status as ApprovalRecord['status'],
    result: row.result === null ? null : (JSON.parse(text(row.result)) as Record<string, unknown>),
    error: optionalText(row.error),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    decidedAt: optionalNumber(row.decided_at),
    deliveredAt: optionalNumber(row.delivered_at),
  };
}

function toLinkSession(row: Row): LinkSessionRecord {
  return {
    tokenHash: text(row.token_hash),
    code: text(row.code),
    client: JSON.parse(text(row.client)) as Record<string, unknown>,
    status: row.status as LinkSessionRecord['status'],
    owner: optionalText(row.owner),
    agentId: optionalText(row.agent_id),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastPolledAt: optionalNumber(row.last_polled_at),
    completedAt: optionalNumber(row.completed_at),
    openedAt: optionalNumber(row.opened_at),
  };
}

/** Turns free text into a safe FTS5 query: every word quoted, prefix-matched, any word may match. */
export function toFtsQuery(query: string): string | null {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return null;
  return words.slice(0, 16).map((word) => `"${word}"*`).join(' OR ');
}

/** The SQLite implementation of the core's Store port. */
export function createSqliteStore(db: SqliteDatabase): Store {
  // Money columns are read as BigInt so no amount ever passes through a float.
  const q = (sql: string) => db.prepare(sql).safeIntegers(true);
  const stmts = {
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    insertOwner: db.prepare('INSERT INTO owners (address, created_at) VALUES (?, ?)'),
    getOwner: db.prepare('SELECT address, created_at FROM owners WHERE address = ?'),
    listOwners: db.prepare('SELECT address, created_at FROM owners ORDER BY created_at'),
    insertApiKey: db.prepare('INSERT INTO api_keys (hash, kind, owner, agent_id, created_at) VALUES (?, ?, ?, ?, ?)'),
    deleteOwnerKeys: db.prepare("DELETE FROM api_keys WHERE kind = 'owner' AND owner = ?"),
    deleteAgentKeys: db.prepare("DELETE FROM api_keys WHERE kind = 'agent' AND owner = ? AND agent_id = ?"),
    findApiKey: db.prepare('SELECT kind, owner, agent_id FROM api_keys WHERE hash = ?'),
    insertAgent: db.prepare(
      'INSERT INTO agents (owner, agent_id, wallet_address, display_name, status, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    getAgent: db.prepare('SELECT * FROM agents WHERE owner = ? AND agent_id = ?'),
    listAgents: db.prepare('SELECT * FROM agents WHERE owner = ? AND archived_at IS NULL ORDER BY created_at, agent_id'),
    listArchivedAgents: db.prepare('SELECT * FROM agents WHERE owner = ? AND archived_at IS NOT NULL ORDER BY archived_at DESC, agent_id'),
    archiveAgent: db.prepare("UPDATE agents SET archived_at = ?, status = 'suspended' WHERE owner = ? AND agent_id = ? AND archived_at IS NULL"),
    setAgentStatus: db.prepare('UPDATE agents SET status = ? WHERE owner = ? AND agent_id = ?'),
    setAgentDisplayName: db.prepare('UPDATE agents SET display_name = ? WHERE owner = ? AND agent_id = ?'),
    getPolicy: q('SELECT * FROM policies WHERE owner = ? AND agent_id = ?'),
    listPolicies: q('SELECT * FROM policies WHERE owner = ?'),
    upsertPolicy: db.prepare(
      `INSERT INTO policies (owner, agent_id, daily_budget, max_per_payment, cooldown_seconds, allowed_services, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, agent_id) DO UPDATE SET daily_budget = excluded.daily_budget,
         max_per_payment = excluded.max_per_payment, cooldown_seconds = excluded.cooldown_seconds,
         allowed_services = excluded.allowed_services, updated_at = excluded.updated_at`,
    ),
    insertPayment: db.prepare(
      `INSERT INTO payments (id, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status,
         tx_signature, tx_wire, last_valid_block_height, error_code, idempotency_key, request_hash, created_at, settled_at,
         protocol, resource)
       VALUES (@id, @owner, @agentId, @serviceId, @serviceName, @recipient, @amount, @memo, @description, @status,
         @txSignature, @txWire, @lastValidBlockHeight, @errorCode, @idempotencyKey, @requestHash, @createdAt, @settledAt,
         @protocol, @resource)`,
    ),
    insertIdempotency: db.prepare(
      'INSERT INTO idempotency_keys (owner, agent_id, key, payment_id, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    deleteIdempotency: db.prepare('DELETE FROM idempotency_keys WHERE owner = ? AND agent_id = ? AND key = ?'),
    findIdempotency: q(
      `SELECT p.* FROM idempotency_keys k JOIN payments p ON p.id = k.payment_id
       WHERE k.owner = ? AND k.agent_id = ? AND k.key = ? AND k.created_at >= ?`,
    ),
    getPayment: q('SELECT * FROM payments WHERE id = ?'),
    findLivePaymentByMemo: q(
      "SELECT * FROM payments WHERE owner = ? AND agent_id = ? AND recipient = ? AND memo = ? AND status IN ('pending', 'confirmed') LIMIT 1",
    ),
    markPaymentSent: db.prepare(
      'UPDATE payments SET tx_signature = ?, tx_wire = ?, last_valid_block_height = ? WHERE id = ? AND status = \'pending\'',
    ),
    settlePayment: db.prepare(
      "UPDATE payments SET status = ?, error_code = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
    ),
    markX402Signed: db.prepare(
      `UPDATE payments SET tx_wire = ?, payer_signature = ?, last_valid_block_height = ?, x402_header = ?
       WHERE id = ? AND status = 'pending' AND protocol = 'x402' AND tx_wire IS NULL`,
    ),
    markPaymentLanded: db.prepare("UPDATE payments SET tx_signature = ? WHERE id = ? AND status = 'pending'"),
    findLivePaymentByPayerSignature: q("SELECT * FROM payments WHERE payer_signature = ? AND status IN ('pending', 'confirmed') LIMIT 1"),
    // The rolling window from maintained buckets (see migration 13): whole hours, then whole minutes of
    // the hour the window starts in, then the payments of the minute it starts in, read one by one.
    spentSince: q(
      `SELECT
         (SELECT COALESCE(SUM(amount), 0) FROM agent_spend_buckets
           WHERE owner = @owner AND agent_id = @agentId AND span = 3600000 AND start >= @hourFrom)
       + (SELECT COALESCE(SUM(amount), 0) FROM agent_spend_buckets
           WHERE owner = @owner AND agent_id = @agentId AND span = 60000 AND start >= @minuteFrom AND start < @minuteTo)
       + (SELECT COALESCE(SUM(amount), 0) FROM payments
           WHERE owner = @owner AND agent_id = @agentId AND status IN ('pending', 'confirmed') AND refunded_at IS NULL
             AND created_at > @since AND created_at < @rawTo)`,
    ).pluck(),
    agentTotals: q('SELECT * FROM agent_spend_totals WHERE owner = ? AND agent_id = ?'),
    ownerTotals: q('SELECT * FROM agent_spend_totals WHERE owner = ?'),
    // Per agent, two range reads of its own buckets (at most 24 hours and 60 minutes): the cost follows
    // the number of agents, not how much they paid.
    ownerWindowBuckets: q(
      `SELECT t.agent_id,
         (SELECT COALESCE(SUM(amount), 0) FROM agent_spend_buckets b
           WHERE b.owner = t.owner AND b.agent_id = t.agent_id AND b.span = 3600000 AND b.start >= @hourFrom)
       + (SELECT COALESCE(SUM(amount), 0) FROM agent_spend_buckets b
           WHERE b.owner = t.owner AND b.agent_id = t.agent_id AND b.span = 60000 AND b.start >= @minuteFrom AND b.start < @minuteTo) AS amount
       FROM agent_spend_totals t WHERE t.owner = @owner`,
    ),
    ownerWindowEdge: q(
      `SELECT agent_id, SUM(amount) AS amount FROM payments
       WHERE owner = @owner AND created_at > @since AND created_at < @rawTo AND status IN ('pending', 'confirmed') AND refunded_at IS NULL
       GROUP BY agent_id`,
    ),
    listPayments: q('SELECT * FROM payments WHERE owner = ? AND agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?'),
    recentPayments: q('SELECT * FROM payments WHERE owner = ? ORDER BY created_at DESC, rowid DESC LIMIT ?'),
    pendingPayments: q("SELECT * FROM payments WHERE status = 'pending' ORDER BY created_at"),
    insertAllocation: db.prepare(
      `INSERT INTO allocations (id, owner, agent_id, amount, status, tx_signature, tx_wire, last_valid_block_height, error_code,
         idempotency_key, request_hash, created_at, settled_at, direction)
       VALUES (@id, @owner, @agentId, @amount, @status, @txSignature, @txWire, @lastValidBlockHeight, @errorCode,
         @idempotencyKey, @requestHash, @createdAt, @settledAt, @direction)`,
    ),
    getAllocation: q('SELECT * FROM allocations WHERE id = ?'),
    findAllocationByIdempotencyKey: q(
      `SELECT * FROM allocations WHERE owner = ? AND agent_id = ? AND idempotency_key = ? AND created_at >= ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    ),
    markAllocationSent: db.prepare(
      "UPDATE allocations SET tx_signature = ?, tx_wire = ?, last_valid_block_height = ? WHERE id = ? AND status = 'pending'",
    ),
    settleAllocation: db.prepare(
      "UPDATE allocations SET status = ?, error_code = ?, settled_at = ? WHERE id = ? AND status = 'pending'",
    ),
    pendingAllocationsTotal: q("SELECT COALESCE(SUM(amount), 0) FROM allocations WHERE owner = ? AND status = 'pending' AND direction = 'to_agent'").pluck(),
    pendingReturnsTotal: q(
      "SELECT COALESCE(SUM(amount), 0) FROM allocations WHERE owner = ? AND agent_id = ? AND status = 'pending' AND direction = 'to_treasury'",
    ).pluck(),
    pendingAllocations: q("SELECT * FROM allocations WHERE status = 'pending' ORDER BY created_at"),
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
    getDeposit: q('SELECT * FROM deposits WHERE id = ?'),
    findDepositByIdempotencyKey: q(
      `SELECT * FROM deposits WHERE owner = ? AND idempotency_key = ? AND created_at >= ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    ),
    markDepositSent: db.prepare(
      "UPDATE deposits SET tx_signature = ?, tx_wire = ?, last_valid_block_height = ? WHERE id = ? AND status = 'pending'",
    ),
    settleDeposit: db.prepare("UPDATE deposits SET status = ?, error_code = ?, settled_at = ? WHERE id = ? AND status = 'pending'"),
    pendingDeposits: q("SELECT * FROM deposits WHERE status = 'pending' ORDER BY created_at"),
    listDeposits: q("SELECT * FROM deposits WHERE owner = ? AND status = 'confirmed' ORDER BY created_at DESC, rowid DESC LIMIT ?"),
    appendAudit: db.prepare('INSERT INTO audit_log (at, actor, owner, agent_id, action, detail) VALUES (?, ?, ?, ?, ?, ?)'),
    listAudit: db.prepare('SELECT * FROM audit_log WHERE owner = ? ORDER BY id DESC LIMIT ?'),
    insertRefund: db.prepare(
      `INSERT INTO refunds (id, owner, agent_id, payment_id, task_id, amount, status, tx_signature, tx_wire, last_valid_block_height,
         error_code, created_at, settled_at)
       VALUES (@id, @owner, @agentId, @paymentId, @taskId, @amount, @status, @txSignature, @txWire, @lastValidBlockHeight,
         @errorCode, @createdAt, @settledAt)`,
    ),
    getRefund: q('SELECT * FROM refunds WHERE id = ?'),
    findRefundByPayment: q('SELECT * FROM refunds WHERE payment_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1'),
    markRefundSent: db.prepare(
      "UPDATE refunds SET tx_signature = ?, tx_wire = ?, last_valid_block_height = ? WHERE id = ? AND status = 'pending'",
    ),
    settleRefund: db.prepare("UPDATE refunds SET status = ?, error_code = ?, settled_at = ? WHERE id = ? AND status = 'pending'"),
    markPaymentRefunded: db.prepare(
      `UPDATE payments SET refunded_at = @at, refund_tx_signature = r.tx_signature
       FROM (SELECT payment_id, tx_signature FROM refunds WHERE id = @id) AS r WHERE payments.id = r.payment_id`,
    ),
    pendingRefunds: q("SELECT * FROM refunds WHERE status = 'pending' ORDER BY created_at"),
    tasksOwedRefunds: q(
      `SELECT t.* FROM generation_tasks t JOIN payments p ON p.id = t.payment_id
       WHERE t.status = 'failed' AND p.status = 'confirmed' AND p.refunded_at IS NULL AND p.recipient = p.owner
         AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND (r.status != 'failed' OR NOT @retryFailed))
       ORDER BY t.created_at`,
    ),
    isPaymentTransaction: db.prepare('SELECT 1 FROM payments WHERE tx_signature = ?').pluck(),
    insertTask: db.prepare(
      `INSERT INTO generation_tasks (id, owner, agent_id, model_id, resolution, prompt, status, estimated_cost, cost, payment_id,
         result_url, error, created_at, updated_at)
       VALUES (@id, @owner, @agentId, @modelId, @resolution, @prompt, @status, @estimatedCost, @cost, @paymentId,
         @resultUrl, @error, @createdAt, @updatedAt)`,
    ),
    getTask: q('SELECT * FROM generation_tasks WHERE owner = ? AND agent_id = ? AND id = ?'),
    findTaskByPayment: q('SELECT * FROM generation_tasks WHERE payment_id = ?'),
    updateTask: db.prepare(
      'UPDATE generation_tasks SET status = @status, cost = @cost, result_url = @resultUrl, error = @error, updated_at = @updatedAt WHERE id = @id',
    ),
    openTasks: q("SELECT * FROM generation_tasks WHERE status IN ('queued', 'generating') ORDER BY created_at"),
    listTasks: q('SELECT * FROM generation_tasks WHERE owner = ? AND agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?'),
    insertApproval: db.prepare(
      `INSERT INTO approvals (id, owner, agent_id, kind, target_agent_id, request, status, result, error, created_at, expires_at, decided_at, delivered_at)
       VALUES (@id, @owner, @agentId, @kind, @targetAgentId, @request, @status, @result, @error, @createdAt, @expiresAt, @decidedAt, @deliveredAt)`,
    ),
    getApproval: db.prepare('SELECT * FROM approvals WHERE id = ?'),
    listApprovals: db.prepare('SELECT * FROM approvals WHERE owner = ? AND (? IS NULL OR status = ?) ORDER BY created_at DESC LIMIT ?'),
    transitionApproval: db.prepare('UPDATE approvals SET status = ?, decided_at = ? WHERE id = ? AND status = ?'),
    interruptedApprovals: db.prepare("SELECT * FROM approvals WHERE status = 'approved' AND result IS NULL AND error IS NULL"),
    recordApprovalOutcome: db.prepare('UPDATE approvals SET status = ?, result = ?, error = ? WHERE id = ?'),
    markApprovalDelivered: db.prepare('UPDATE approvals SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL'),
    expireApprovals: db.prepare("UPDATE approvals SET status = 'expired', decided_at = ? WHERE status = 'pending' AND expires_at <= ?"),
    withdrawApprovals: db.prepare(
      "UPDATE approvals SET status = 'withdrawn', decided_at = ? WHERE owner = ? AND agent_id = ? AND status = 'pending' AND kind != 'resume' RETURNING id, kind",
    ),
    insertLinkSession: db.prepare(
      `INSERT INTO link_sessions (token_hash, code, client, status, owner, agent_id, created_at, expires_at, last_polled_at, completed_at, opened_at)
       VALUES (@tokenHash, @code, @client, @status, @owner, @agentId, @createdAt, @expiresAt, @lastPolledAt, @completedAt, @openedAt)`,
    ),
    trimWaitingLinkSessions: db.prepare(
      `DELETE FROM link_sessions WHERE token_hash IN (
         SELECT token_hash FROM link_sessions WHERE status = 'pending' AND expires_at > @now
         ORDER BY opened_at IS NOT NULL DESC, created_at DESC, rowid DESC LIMIT -1 OFFSET @keep)`,
    ),
    listWaitingLinkSessions: db.prepare(
      "SELECT * FROM link_sessions WHERE status = 'pending' AND expires_at > ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
    ),
    clearAllWaitingLinkSessions: db.prepare("DELETE FROM link_sessions WHERE status = 'pending'"),
    clearWaitingLinkSession: db.prepare("DELETE FROM link_sessions WHERE status = 'pending' AND substr(token_hash, 1, 16) = ?"),
    markLinkSessionOpened: db.prepare('UPDATE link_sessions SET opened_at = ? WHERE token_hash = ? AND opened_at IS NULL'),
    getLinkSession: db.prepare('SELECT * FROM link_sessions WHERE token_hash = ?'),
    insertRefusal: db.prepare(
      'INSERT INTO refusals (owner, agent_id, service, amount, code, message, at) VALUES (@owner, @agentId, @service, @amount, @code, @message, @at)',
    ),
    trimRefusals: db.prepare(
      'DELETE FROM refusals WHERE owner = ? AND id <= (SELECT id FROM refusals WHERE owner = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
    ),
    recentRefusals: db.prepare(
      'SELECT owner, agent_id AS agentId, service, amount, code, message, at FROM refusals WHERE owner = ? ORDER BY id DESC LIMIT ?',
    ),
    pruneLinkSessions: db.prepare('DELETE FROM link_sessions WHERE expires_at < ?'),
    touchLinkSession: db.prepare('UPDATE link_sessions SET last_polled_at = ? WHERE token_hash = ?'),
    completeLinkSession: db.prepare(
      "UPDATE link_sessions SET status = 'completed', owner = ?, agent_id = ?, completed_at = ? WHERE token_hash = ? AND status = 'pending'",
    ),
    markLinkSessionDelivered: db.prepare("UPDATE link_sessions SET status = 'delivered' WHERE token_hash = ? AND status = 'completed'"),
    reopenLinkSession: db.prepare(
      "UPDATE link_sessions SET status = 'pending', owner = NULL, agent_id = NULL, completed_at = NULL WHERE token_hash = ? AND status = 'completed'",
    ),
    // Ranked among the first SEARCH_CANDIDATES matches (in registry order: the shipped catalog first),
    // so a query matching most of a large registry costs no more than one matching a few hundred.
    searchServices: db.prepare(
      `SELECT s.* FROM (SELECT rowid, bm25(services_fts, 10.0, 3.0, 2.0, 5.0) AS score FROM services_fts
         WHERE services_fts MATCH ? LIMIT ${SEARCH_CANDIDATES}) AS c
       JOIN services s ON s.rowid = c.rowid ORDER BY c.score, s.id LIMIT ?`,
    ),
    countServices: db.prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM services_fts WHERE services_fts MATCH ? LIMIT ${SEARCH_COUNT_CAP + 1})`).pluck(),
    allServices: db.prepare('SELECT * FROM services ORDER BY source, name LIMIT ?'),
    countAllServices: db.prepare('SELECT COUNT(*) FROM services').pluck(),
    getService: db.prepare('SELECT * FROM services WHERE id = ?'),
    servicesPaidTo: db.prepare('SELECT * FROM services WHERE pay_to = ? ORDER BY id'),
    listModels: db.prepare('SELECT * FROM models WHERE enabled = 1 ORDER BY provider, id'),
    getModel: db.prepare('SELECT * FROM models WHERE id = ?'),
  };

  const sentParams = (sent: SentTransaction) => [
    sent.txSignature,
    sent.txWire,
    sent.lastValidBlockHeight === null ? null : sent.lastValidBlockHeight.toString(),
  ];

  return {
    transaction: (fn) => db.transaction(fn).immediate(),

    getMeta: (key) => optionalText(stmts.getMeta.get(key)),
    setMeta: (key, value) => void stmts.setMeta.run(key, value),

    insertOwner: (owner) => void stmts.insertOwner.run(owner.address, owner.createdAt),
    getOwner: (address) => {
      const row = stmts.getOwner.get(address) as Row | undefined;
      return row ? { address: text(row.address), createdAt: Number(row.created_at) } : null;
    },
    listOwners: () =>
      (stmts.listOwners.all() as Row[]).map((row): OwnerRecord => ({ address: text(row.address), createdAt: Number(row.created_at) })),

    insertApiKey: (hash, scope, createdAt) =>
      void stmts.insertApiKey.run(hash, scope.kind, scope.owner, scope.kind === 'agent' ? scope.agentId : null, createdAt),
    deleteApiKeys: (scope) =>
      void (scope.kind === 'owner' ? stmts.deleteOwnerKeys.run(scope.owner) : stmts.deleteAgentKeys.run(scope.owner, scope.agentId)),
    findApiKey: (hash) => {
      const row = stmts.findApiKey.get(hash) as Row | undefined;
      if (!row) return null;
      return row.kind === 'owner'
        ? { kind: 'owner', owner: text(row.owner) }
        : { kind: 'agent', owner: text(row.owner), agentId: text(row.agent_id) };
    },

    insertAgent: (agent, policy) => {
      stmts.insertAgent.run(agent.owner, agent.agentId, agent.walletAddress, agent.displayName, agent.status, agent.createdAt);
      stmts.upsertPolicy.run(
        agent.owner,
        agent.agentId,
        policy.dailyBudget,
        policy.maxPerPayment,
        policy.cooldownSeconds,
        JSON.stringify(policy.allowedServices),
        agent.createdAt,
      );
    },
    getAgent: (owner, agentId) => {
      const row = stmts.getAgent.get(owner, agentId) as Row | undefined;
      return row ? toAgent(row) : null;
    },
    listAgents: (owner) => (stmts.listAgents.all(owner) as Row[]).map(toAgent),
    listArchivedAgents: (owner) => (stmts.listArchivedAgents.all(owner) as Row[]).map(toAgent),
    archiveAgent: (owner, agentId, at) => stmts.archiveAgent.run(at, owner, agentId).changes === 1,
    setAgentStatus: (owner, agentId, status) => void stmts.setAgentStatus.run(status, owner, agentId),
    setAgentDisplayName: (owner, agentId, displayName) => void stmts.setAgentDisplayName.run(displayName, owner, agentId),
    getPolicy: (owner, agentId) => {
      const row = stmts.getPolicy.get(owner, agentId) as Row | undefined;
      if (!row) throw new Error(`no policy for ${owner}/${agentId}`);
      return toPolicy(row);
    },
    listPolicies: (owner) => new Map((stmts.listPolicies.all(owner) as Row[]).map((row) => [text(row.agent_id), toPolicy(row)])),
    setPolicy: (owner, agentId, policy: Policy, at) =>
      void stmts.upsertPolicy.run(
        owner,
        agentId,
        policy.dailyBudget,
        policy.maxPerPayment,
        policy.cooldownSeconds,
        JSON.stringify(policy.allowedServices),
        at,
      ),

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
        lastValidBlockHeight: payment.lastValidBlockHeight === null ? null : payment.lastValidBlockHeight.toString(),
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
    getPayment: (id) => {
      const row = stmts.getPayment.get(id) as Row | undefined;
      return row ? toPayment(row) : null;
    },
    findLivePaymentByMemo: (owner, agentId, recipient, memo) => {
      const row = stmts.findLivePaymentByMemo.get(owner, agentId, recipient, memo) as Row | undefined;
      return row ? toPayment(row) : null;
    },
    findPaymentByIdempotencyKey: (owner, agentId, key, since) => {
      const row = stmts.findIdempotency.get(owner, agentId, key, since) as Row | undefined;
      return row ? toPayment(row) : null;
    },
    markPaymentSent: (id, sent) => stmts.markPaymentSent.run(...sentParams(sent), id).changes === 1,
    markX402Signed: (id, signed) =>
      stmts.markX402Signed.run(signed.txWire, signed.payerSignature, signed.lastValidBlockHeight.toString(), JSON.stringify(signed.header), id).changes === 1,
    markPaymentLanded: (id, txSignature) => void stmts.markPaymentLanded.run(txSignature, id),
    findLivePaymentByPayerSignature: (payerSignature) => {
      const row = stmts.findLivePaymentByPayerSignature.get(payerSignature) as Row | undefined;
      return row ? toPayment(row) : null;
    },
    settlePayment: (id, status, errorCode, at) => stmts.settlePayment.run(status, errorCode, at, id).changes === 1,
    spentSince: (owner, agentId, since) => BigInt(stmts.spentSince.get({ owner, agentId, ...windowBounds(since) }) as bigint),
    pendingPaymentsTotal: (owner, agentId) => {
      const row = stmts.agentTotals.get(owner, agentId) as Row | undefined;
      return row ? BigInt(row.pending as bigint) : 0n;
    },
    lastPaymentAt: (owner, agentId) => {
      const row = stmts.agentTotals.get(owner, agentId) as Row | undefined;
      return row ? optionalNumber(row.last_payment_at) : null;
    },
    listPayments: (owner, agentId, limit) => (stmts.listPayments.all(owner, agentId, limit) as Row[]).map(toPayment),
    recentPayments: (owner, limit) => (stmts.recentPayments.all(owner, limit) as Row[]).map(toPayment),
    pendingPayments: () => (stmts.pendingPayments.all() as Row[]).map(toPayment),
    spendTotals: (owner, since) => {
      const bounds = { owner, ...windowBounds(since) };
      const inWindow = new Map<string, bigint>();
      for (const row of [...stmts.ownerWindowBuckets.all(bounds), ...stmts.ownerWindowEdge.all(bounds)] as Row[]) {
        inWindow.set(text(row.agent_id), (inWindow.get(text(row.agent_id)) ?? 0n) + BigInt(row.amount as bigint));
      }
      const totals = new Map<string, AgentSpendTotals>();
      for (const row of stmts.ownerTotals.all(owner) as Row[]) {
        totals.set(text(row.agent_id), {
          lifetimeSpent: BigInt(row.lifetime_spent as bigint),
          lifetimePayments: Number(row.lifetime_payments),
          spentSince: inWindow.get(text(row.agent_id)) ?? 0n,
          lastPaymentAt: optionalNumber(row.last_payment_at),
        });
      }
      return totals;
    },

    insertAllocation: (allocation) =>
      void stmts.insertAllocation.run({
        ...allocation,
        lastValidBlockHeight: allocation.lastValidBlockHeight === null ? null : allocation.lastValidBlockHeight.toString(),
      }),
    getAllocation: (id) => {
      const row = stmts.getAllocation.get(id) as Row | undefined;
      return row ? toAllocation(row) : null;
    },
    findAllocationByIdempotencyKey: (owner, agentId, key, since) => {
      const row = stmts.findAllocationByIdempotencyKey.get(owner, agentId, key, since) as Row | undefined;
      return row ? toAllocation(row) : null;
    },
    markAllocationSent: (id, sent) => stmts.markAllocationSent.run(...sentParams(sent), id).changes === 1,
    settleAllocation: (id, status, errorCode, at) => stmts.settleAllocation.run(status, errorCode, at, id).changes === 1,
    pendingAllocationsTotal: (owner) => BigInt(stmts.pendingAllocationsTotal.get(owner) as bigint),
    pendingReturnsTotal: (owner, agentId) => BigInt(stmts.pendingReturnsTotal.get(owner, agentId) as bigint),
    pendingAllocations: () => (stmts.pendingAllocations.all() as Row[]).map(toAllocation),

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
    insertFaucetDeposit: (deposit) =>
      void stmts.insertFaucetDeposit.run({
        ...deposit,
        lastValidBlockHeight: deposit.lastValidBlockHeight === null ? null : deposit.lastValidBlockHeight.toString(),
      }),
    getDeposit: (id) => {
      const row = stmts.getDeposit.get(id) as Row | undefined;
      return row ? toDeposit(row) : null;
    },
    findDepositByIdempotencyKey: (owner, key, since) => {
      const row = stmts.findDepositByIdempotencyKey.get(owner, key, since) as Row | undefined;
      return row ? toDeposit(row) : null;
    },
    markDepositSent: (id, sent) => stmts.markDepositSent.run(...sentParams(sent), id).changes === 1,
    settleDeposit: (id, status, errorCode, at) => stmts.settleDeposit.run(status, errorCode, at, id).changes === 1,
    pendingDeposits: () => (stmts.pendingDeposits.all() as Row[]).map(toDeposit),
    listDeposits: (owner, limit) => (stmts.listDeposits.all(owner, limit) as Row[]).map(toDeposit),

    appendAudit: (entry: AuditEntry) =>
      void stmts.appendAudit.run(entry.at, entry.actor, entry.owner, entry.agentId, entry.action, JSON.stringify(entry.detail)),
    listAudit: (owner, limit) =>
      (stmts.listAudit.all(owner, limit) as Row[]).map(
        (row): AuditEntry => ({
          at: Number(row.at),
          actor: text(row.actor),
          owner: text(row.owner),
          agentId: optionalText(row.agent_id),
          action: text(row.action),
          detail: JSON.parse(text(row.detail)) as Record<string, unknown>,
        }),
      ),

    insertRefund: (refund) =>
      void stmts.insertRefund.run({
        ...refund,
        lastValidBlockHeight: refund.lastValidBlockHeight === null ? null : refund.lastValidBlockHeight.toString(),
      }),
    getRefund: (id) => {
      const row = stmts.getRefund.get(id) as Row | undefined;
      return row ? toRefund(row) : null;
    },
    findRefundByPayment: (paymentId) => {
      const row = stmts.findRefundByPayment.get(paymentId) as Row | undefined;
      return row ? toRefund(row) : null;
    },
    markRefundSent: (id, sent) => stmts.markRefundSent.run(...sentParams(sent), id).changes === 1,
    settleRefund: (id, status, errorCode, at) => {
      const settled = stmts.settleRefund.run(status, errorCode, at, id).changes === 1;
      if (settled && status === 'confirmed') stmts.markPaymentRefunded.run({ id, at });
      return settled;
    },
    pendingRefunds: () => (stmts.pendingRefunds.all() as Row[]).map(toRefund),
    tasksOwedRefunds: (retryFailed) => (stmts.tasksOwedRefunds.all({ retryFailed: retryFailed ? 1 : 0 }) as Row[]).map(toTask),
    isPaymentTransaction: (txSignature) => stmts.isPaymentTransaction.get(txSignature) !== undefined,
    insertTask: (task) => void stmts.insertTask.run(task),
    getTask: (owner, agentId, id) => {
      const row = stmts.getTask.get(owner, agentId, id) as Row | undefined;
      return row ? toTask(row) : null;
    },
    findTaskByPayment: (paymentId) => {
      const row = stmts.findTaskByPayment.get(paymentId) as Row | undefined;
      return row ? toTask(row) : null;
    },
    updateTask: (id, change) => void stmts.updateTask.run({ id, ...change }),
    openTasks: () => (stmts.openTasks.all() as Row[]).map(toTask),
    listTasks: (owner, agentId, limit) => (stmts.listTasks.all(owner, agentId, limit) as Row[]).map(toTask),

    insertApproval: (approval) =>
      void stmts.insertApproval.run({
        ...approval,
        request: JSON.stringify(approval.request),
        result: approval.result === null ? null : JSON.stringify(approval.result),
      }),
    getApproval: (id) => {
      const row = stmts.getApproval.get(id) as Row | undefined;
      return row ? toApproval(row) : null;
    },
    listApprovals: (owner, status, limit) => (stmts.listApprovals.all(owner, status, status, limit) as Row[]).map(toApproval),
    transitionApproval: (id, from, to, at) => stmts.transitionApproval.run(to, at, id, from).changes === 1,
    interruptedApprovals: () => (stmts.interruptedApprovals.all() as Row[]).map(toApproval),
    recordApprovalOutcome: (id, status, result, error) =>
      void stmts.recordApprovalOutcome.run(status, result === null ? null : JSON.stringify(result), error, id),
    markApprovalDelivered: (id, at) => stmts.markApprovalDelivered.run(at, id).changes === 1,
    expireApprovals: (now) => stmts.expireApprovals.run(now, now).changes,
    withdrawApprovals: (owner, agentId, at) => stmts.withdrawApprovals.all(at, owner, agentId) as { id: string; kind: ApprovalKind }[],
    insertLinkSession: (session) => void stmts.insertLinkSession.run({ ...session, client: JSON.stringify(session.client) }),
    getLinkSession: (tokenHash) => {
      const row = stmts.getLinkSession.get(tokenHash) as Row | undefined;
      return row ? toLinkSession(row) : null;
    },
    recordRefusal: (refusal, keep) =>
      db.transaction(() => {
        stmts.insertRefusal.run(refusal);
        stmts.trimRefusals.run(refusal.owner, refusal.owner, keep);
      })(),
    recentRefusals: (owner, limit) => stmts.recentRefusals.all(owner, limit) as RefusalRecord[],
    trimWaitingLinkSessions: (now, keep) => void stmts.trimWaitingLinkSessions.run({ now, keep }),
    listWaitingLinkSessions: (now, limit) => (stmts.listWaitingLinkSessions.all(now, limit) as Row[]).map(toLinkSession),
    clearWaitingLinkSessions: (ids) =>
      ids === null
        ? stmts.clearAllWaitingLinkSessions.run().changes
        : db.transaction(() => ids.reduce((cleared, id) => cleared + stmts.clearWaitingLinkSession.run(id).changes, 0))(),
    markLinkSessionOpened: (tokenHash, at) => void stmts.markLinkSessionOpened.run(at, tokenHash),
    pruneLinkSessions: (before) => void stmts.pruneLinkSessions.run(before),
    touchLinkSession: (tokenHash, at) => void stmts.touchLinkSession.run(at, tokenHash),
    completeLinkSession: (tokenHash, owner, agentId, at) => stmts.completeLinkSession.run(owner, agentId, at, tokenHash).changes === 1,
    markLinkSessionDelivered: (tokenHash) => stmts.markLinkSessionDelivered.run(tokenHash).changes === 1,
    reopenLinkSession: (tokenHash) => void stmts.reopenLinkSession.run(tokenHash),

    searchServices: (query, limit) => {
      const fts = toFtsQuery(query);
      if (fts === null) {
        return {
          results: (stmts.allServices.all(limit) as Row[]).map(toService),
          total: Number(stmts.countAllServices.get()),
          totalIsCapped: false,
        };
      }
      return {
        results: (stmts.searchServices.all(fts, limit) as Row[]).map(toService),
        ...countedTotal(Number(stmts.countServices.get(fts))),
      };
    },
    getService: (id) => {
      const row = stmts.getService.get(id) as Row | undefined;
      return row ? toService(row) : null;
    },
    servicesPaidTo: (payTo) => (stmts.servicesPaidTo.all(payTo) as Row[]).map(toService),
    listModels: () => (stmts.listModels.all() as Row[]).map(toModel),
    getModel: (id) => {
      const row = stmts.getModel.get(id) as Row | undefined;
      return row ? toModel(row) : null;
    },
  };
}
