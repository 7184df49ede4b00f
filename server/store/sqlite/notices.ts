/** SQLite adapter of the notices port: what the owner was told about an agent, and when. */
import type { NoticeStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { optionalNumber } from './rows.js';

export function createNoticeStore(db: SqliteDatabase): NoticeStore {
  const stmts = {
    toldAt: db.prepare('SELECT told_at FROM notices WHERE owner = ? AND agent_id = ? AND subject = ?').pluck(),
    record: db.prepare(
      `INSERT INTO notices (owner, agent_id, subject, told_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (owner, agent_id, subject) DO UPDATE SET told_at = excluded.told_at`,
    ),
    forget: db.prepare('DELETE FROM notices WHERE owner = ? AND agent_id = ?'),
  };
  return {
    noticeToldAt: (owner, agentId, subject) => optionalNumber(stmts.toldAt.get(owner, agentId, subject)),
    recordNotice: (owner, agentId, subject, at) => void stmts.record.run(owner, agentId, subject, at),
    forgetNotices: (owner, agentId) => void stmts.forget.run(owner, agentId),
  };
}
