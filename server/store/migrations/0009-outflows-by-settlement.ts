import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 9, what left an agent's wallet since a moment (issue 50): its payments and returns to the
 * treasury confirmed on or after a time, per rail. A payment's balance check starts from the wallet's
 * last balance read and takes off what Coffer confirmed leaving it since (core/payments/
 * wallet-balance.ts), so it needs these few rows, not the agent's history: the index holds the
 * amount too, and the sum reads the index alone.
 */
export function indexOutflowsBySettlement(db: SqliteDatabase): void {
  db.exec(`
    CREATE INDEX outflows_by_settlement ON transfers (owner, agent_id, rail, settled_at, amount)
      WHERE status = 'confirmed' AND kind IN ('payment', 'return');
  `);
}
