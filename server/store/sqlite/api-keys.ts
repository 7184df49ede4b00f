/** SQLite adapter of the API keys port. */
import type { ApiKeyStore, KeyScope } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { text, type Row } from './rows.js';

const OF_OWNER = "kind = 'owner' AND owner = @owner";
const OF_AGENT = "kind = 'agent' AND owner = @owner AND agent_id = @agentId";

export function createApiKeyStore(db: SqliteDatabase): ApiKeyStore {
  // A key revoked is moved, in the caller's write: kept by its hash with why, gone from the keys in use.
  const keep = (where: string) =>
    db.prepare(
      `INSERT OR REPLACE INTO revoked_api_keys (hash, kind, owner, agent_id, reason, revoked_at)
       SELECT hash, kind, owner, agent_id, @reason, @at FROM api_keys WHERE ${where}`,
    );
  const stmts = {
    insertApiKey: db.prepare('INSERT INTO api_keys (hash, kind, owner, agent_id, created_at) VALUES (?, ?, ?, ?, ?)'),
    keepOwnerKeys: keep(OF_OWNER),
    keepAgentKeys: keep(OF_AGENT),
    deleteOwnerKeys: db.prepare(`DELETE FROM api_keys WHERE ${OF_OWNER}`),
    deleteAgentKeys: db.prepare(`DELETE FROM api_keys WHERE ${OF_AGENT}`),
    findApiKey: db.prepare('SELECT kind, owner, agent_id FROM api_keys WHERE hash = ?'),
    findRevokedApiKey: db.prepare('SELECT kind, owner, agent_id, reason, revoked_at FROM revoked_api_keys WHERE hash = ?'),
  };
  const scopeOf = (row: Row): KeyScope =>
    row.kind === 'owner'
      ? { kind: 'owner', owner: text(row.owner) }
      : { kind: 'agent', owner: text(row.owner), agentId: text(row.agent_id) };
  return {
    insertApiKey: (hash, scope, createdAt) =>
      void stmts.insertApiKey.run(hash, scope.kind, scope.owner, scope.kind === 'agent' ? scope.agentId : null, createdAt),
    revokeApiKeys: (scope, { reason, at }) => {
      if (scope.kind === 'owner') {
        stmts.keepOwnerKeys.run({ owner: scope.owner, reason, at });
        stmts.deleteOwnerKeys.run({ owner: scope.owner });
      } else {
        stmts.keepAgentKeys.run({ owner: scope.owner, agentId: scope.agentId, reason, at });
        stmts.deleteAgentKeys.run({ owner: scope.owner, agentId: scope.agentId });
      }
    },
    findApiKey: (hash) => {
      const row = stmts.findApiKey.get(hash) as Row | undefined;
      return row ? scopeOf(row) : null;
    },
    findRevokedApiKey: (hash) => {
      const row = stmts.findRevokedApiKey.get(hash) as Row | undefined;
      if (!row) return null;
      return { ...scopeOf(row), reason: text(row.reason) as 'archived' | 'replaced', at: Number(row.revoked_at) };
    },
  };
}
