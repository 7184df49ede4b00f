/** SQLite adapter of the refusals port: the owner's latest refused payments, trimmed as they come. */
import type { RefusalRecord, RefusalStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';

export function createRefusalStore(db: SqliteDatabase): RefusalStore {
  const stmts = {
    insertRefusal: db.prepare(
      'INSERT INTO refusals (owner, agent_id, service, amount, rail, code, message, at) VALUES (@owner, @agentId, @service, @amount, @rail, @code, @message, @at)',
    ),
    trimRefusals: db.prepare(
      'DELETE FROM refusals WHERE owner = ? AND id <= (SELECT id FROM refusals WHERE owner = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
    ),
    trimAgentsRefusals: db.prepare(
      'DELETE FROM refusals WHERE owner = ? AND agent_id = ? AND id <= (SELECT id FROM refusals WHERE owner = ? AND agent_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
    ),
    recentRefusals: db.prepare(
      'SELECT owner, agent_id AS agentId, service, amount, rail, code, message, at FROM refusals WHERE owner = ? ORDER BY id DESC LIMIT ?',
    ),
  };
  return {
    recordRefusal: (refusal, keep) =>
      db.transaction(() => {
        stmts.insertRefusal.run(refusal);
        stmts.trimAgentsRefusals.run(refusal.owner, refusal.agentId, refusal.owner, refusal.agentId, keep.perAgent);
        stmts.trimRefusals.run(refusal.owner, refusal.owner, keep.perOwner);
      })(),
    recentRefusals: (owner, limit) => stmts.recentRefusals.all(owner, limit) as RefusalRecord[],
  };
}
