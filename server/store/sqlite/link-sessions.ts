/** SQLite adapter of the link sessions port. */
import type { LinkSessionRecord, LinkSessionStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, oneRow, optionalNumber, optionalText, text, type Row } from './rows.js';

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

export function createLinkSessionStore(db: SqliteDatabase): LinkSessionStore {
  const stmts = {
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
    pruneLinkSessions: db.prepare('DELETE FROM link_sessions WHERE expires_at < ?'),
    touchLinkSession: db.prepare('UPDATE link_sessions SET last_polled_at = ? WHERE token_hash = ?'),
    completeLinkSession: db.prepare(
      "UPDATE link_sessions SET status = 'completed', owner = ?, agent_id = ?, completed_at = ? WHERE token_hash = ? AND status = 'pending'",
    ),
    markLinkSessionDelivered: db.prepare("UPDATE link_sessions SET status = 'delivered' WHERE token_hash = ? AND status = 'completed'"),
    reopenLinkSession: db.prepare(
      "UPDATE link_sessions SET status = 'pending', owner = NULL, agent_id = NULL, completed_at = NULL WHERE token_hash = ? AND status = 'completed'",
    ),
  };
  return {
    insertLinkSession: (session) => void stmts.insertLinkSession.run({ ...session, client: JSON.stringify(session.client) }),
    getLinkSession: (tokenHash) => oneRow(stmts.getLinkSession, toLinkSession, tokenHash),
    trimWaitingLinkSessions: (now, keep) => void stmts.trimWaitingLinkSessions.run({ now, keep }),
    listWaitingLinkSessions: (now, limit) => allRows(stmts.listWaitingLinkSessions, toLinkSession, now, limit),
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
  };
}
