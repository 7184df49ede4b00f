/** SQLite adapter of the audit port: the append-only audit log. */
import type { AuditEntry, AuditStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, optionalText, text, type Row } from './rows.js';

const toAuditEntry = (row: Row): AuditEntry => ({
  at: Number(row.at),
  actor: text(row.actor),
  owner: text(row.owner),
  agentId: optionalText(row.agent_id),
  action: text(row.action),
  detail: JSON.parse(text(row.detail)) as Record<string, unknown>,
});

export function createAuditStore(db: SqliteDatabase): AuditStore {
  const stmts = {
    appendAudit: db.prepare('INSERT INTO audit_log (at, actor, owner, agent_id, action, detail) VALUES (?, ?, ?, ?, ?, ?)'),
    listAudit: db.prepare('SELECT * FROM audit_log WHERE owner = ? ORDER BY id DESC LIMIT ?'),
  };
  return {
    appendAudit: (entry) =>
      void stmts.appendAudit.run(entry.at, entry.actor, entry.owner, entry.agentId, entry.action, JSON.stringify(entry.detail)),
    listAudit: (owner, limit) => allRows(stmts.listAudit, toAuditEntry, owner, limit),
  };
}
