import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 10, the API keys revoked (an agent archived, a key replaced), kept by their hash beside the
 * keys in use: a request with one is still refused, and told why ("the owner archived the agent")
 * where it heard only "invalid API key". Keys revoked before were deleted and stay unknown.
 */
export function addRevokedApiKeys(db: SqliteDatabase): void {
  db.exec(`
    CREATE TABLE revoked_api_keys (
      hash TEXT PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('owner', 'agent')),
      owner TEXT NOT NULL,
      agent_id TEXT,
      reason TEXT NOT NULL CHECK (reason IN ('archived', 'replaced')),
      revoked_at INTEGER NOT NULL
    ) STRICT;
  `);
}
