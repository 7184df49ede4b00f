/** SQLite adapter of the API keys port. */
import type { ApiKeyStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { text, type Row } from './rows.js';

export function createApiKeyStore(db: SqliteDatabase): ApiKeyStore {
  const stmts = {
    insertApiKey: db.prepare('INSERT INTO api_keys (hash, kind, owner, agent_id, created_at) VALUES (?, ?, ?, ?, ?)'),
    deleteOwnerKeys: db.prepare("DELETE FROM api_keys WHERE kind = 'owner' AND owner = ?"),
    deleteAgentKeys: db.prepare("DELETE FROM api_keys WHERE kind = 'agent' AND owner = ? AND agent_id = ?"),
    findApiKey: db.prepare('SELECT kind, owner, agent_id FROM api_keys WHERE hash = ?'),
  };
  return {
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
  };
}
