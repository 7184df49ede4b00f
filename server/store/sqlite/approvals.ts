/** SQLite adapter of the approvals port. */
import type { ApprovalRecord, ApprovalStore, EndedApproval } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, oneRow, optionalNumber, optionalText, text, type Row } from './rows.js';

/**
 * A request its agent may still take back, or a stop withdraws: waiting, or an x402 purchase approved
 * and not made yet (its payment still held: the agent would buy it with fresh terms). A /pay payment
 * approved is being paid by the owner's yes.
 */
const WITHDRAWABLE = `(status = 'pending' OR (status = 'approved' AND kind = 'payment'
  AND EXISTS (SELECT 1 FROM transfers WHERE transfers.id = approvals.payment_id AND transfers.status = 'held'
    AND transfers.protocol = 'x402')))`;

function toApproval(row: Row): ApprovalRecord {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    kind: row.kind as ApprovalRecord['kind'],
    targetAgentId: text(row.target_agent_id),
    request: JSON.parse(text(row.request)) as Record<string, unknown>,
    before: row.before === null ? null : (JSON.parse(text(row.before)) as Record<string, unknown>),
    paymentId: optionalText(row.payment_id),
    status: row.status as ApprovalRecord['status'],
    result: row.result === null ? null : (JSON.parse(text(row.result)) as Record<string, unknown>),
    error: optionalText(row.error),
    errorCode: optionalText(row.error_code),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    decidedAt: optionalNumber(row.decided_at),
    deliveredAt: optionalNumber(row.delivered_at),
  };
}

export function createApprovalStore(db: SqliteDatabase): ApprovalStore {
  const stmts = {
    insertApproval: db.prepare(
      `INSERT INTO approvals (id, owner, agent_id, kind, target_agent_id, request, before, payment_id, status, result, error, error_code,
         created_at, expires_at, decided_at, delivered_at)
       VALUES (@id, @owner, @agentId, @kind, @targetAgentId, @request, @before, @paymentId, @status, @result, @error, @errorCode,
         @createdAt, @expiresAt, @decidedAt, @deliveredAt)`,
    ),
    getApproval: db.prepare('SELECT * FROM approvals WHERE id = ?'),
    findApprovalByPayment: db.prepare('SELECT * FROM approvals WHERE payment_id = ?'),
    listApprovals: db.prepare('SELECT * FROM approvals WHERE owner = ? AND (? IS NULL OR status = ?) ORDER BY created_at DESC LIMIT ?'),
    transitionApproval: db.prepare('UPDATE approvals SET status = ?, decided_at = ? WHERE id = ? AND status = ?'),
    interruptedApprovals: db.prepare("SELECT * FROM approvals WHERE status = 'approved' AND result IS NULL AND error IS NULL"),
    recordApprovalOutcome: db.prepare('UPDATE approvals SET status = ?, result = ?, error = ?, error_code = ? WHERE id = ?'),
    markApprovalDelivered: db.prepare('UPDATE approvals SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL'),
    setWaitingPolicyBefore: db.prepare(
      "UPDATE approvals SET before = ? WHERE owner = ? AND target_agent_id = ? AND kind = 'policy' AND status = 'pending'",
    ),
    expireApprovals: db.prepare(
      `UPDATE approvals SET status = 'expired', decided_at = ? WHERE status = 'pending' AND expires_at <= ?
       RETURNING id, owner, agent_id AS agentId, kind, payment_id AS paymentId`,
    ),
    expireUnusedHolds: db.prepare(
      `UPDATE transfers SET status = 'failed', error_code = 'approval_expired', settled_at = @now
       WHERE status = 'held' AND id IN (SELECT payment_id FROM approvals WHERE status = 'approved' AND expires_at <= @now AND payment_id IS NOT NULL)`,
    ),
    withdrawApprovals: db.prepare(
      `UPDATE approvals SET status = 'withdrawn', decided_at = @at WHERE owner = @owner AND agent_id = @agentId
         AND (kind = 'resume') = @resume AND ${WITHDRAWABLE}
       RETURNING id, owner, agent_id AS agentId, kind, payment_id AS paymentId`,
    ),
    withdrawApproval: db.prepare(
      `UPDATE approvals SET status = 'withdrawn', decided_at = @at WHERE id = @id AND ${WITHDRAWABLE}
       RETURNING id, owner, agent_id AS agentId, kind, payment_id AS paymentId`,
    ),
  };
  return {
    insertApproval: (approval) =>
      void stmts.insertApproval.run({
        ...approval,
        request: JSON.stringify(approval.request),
        before: approval.before === null ? null : JSON.stringify(approval.before),
        result: approval.result === null ? null : JSON.stringify(approval.result),
      }),
    getApproval: (id) => oneRow(stmts.getApproval, toApproval, id),
    findApprovalByPayment: (paymentId) => oneRow(stmts.findApprovalByPayment, toApproval, paymentId),
    listApprovals: (owner, status, limit) => allRows(stmts.listApprovals, toApproval, owner, status, status, limit),
    transitionApproval: (id, from, to, at) => stmts.transitionApproval.run(to, at, id, from).changes === 1,
    interruptedApprovals: () => allRows(stmts.interruptedApprovals, toApproval),
    recordApprovalOutcome: (id, status, result, error) =>
      void stmts.recordApprovalOutcome.run(
        status,
        result === null ? null : JSON.stringify(result),
        error?.message ?? null,
        error?.code ?? null,
        id,
      ),
    markApprovalDelivered: (id, at) => stmts.markApprovalDelivered.run(at, id).changes === 1,
    setWaitingPolicyBefore: (owner, agentId, before) => void stmts.setWaitingPolicyBefore.run(JSON.stringify(before), owner, agentId),
    expireApprovals: (now) => stmts.expireApprovals.all(now, now) as EndedApproval[],
    expireUnusedHolds: (now) => stmts.expireUnusedHolds.run({ now }).changes,
    withdrawApprovals: (owner, agentId, at, which) =>
      stmts.withdrawApprovals.all({ at, owner, agentId, resume: which === 'resume' ? 1 : 0 }) as EndedApproval[],
    withdrawApproval: (id, at) => (stmts.withdrawApproval.get({ id, at }) as EndedApproval | undefined) ?? null,
  };
}
