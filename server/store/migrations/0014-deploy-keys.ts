import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 14, the Idempotency-Key an agent was deployed under, and a digest of what that deploy asked:
 * a deploy whose answer was lost (its process killed after the agent was written, before its funds
 * moved) is asked again under the same key and finished, where a second deploy of the id is refused.
 * Agents deployed before, or without a key, have none.
 */
export function addDeployKeys(db: SqliteDatabase): void {
  db.exec(`
    ALTER TABLE agents ADD COLUMN deploy_key TEXT;
    ALTER TABLE agents ADD COLUMN deploy_request_hash TEXT;
  `);
}
