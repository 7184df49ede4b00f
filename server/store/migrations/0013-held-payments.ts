import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 13, the payments held for the owner's yes found without reading the rest. A page of the
 * dashboard's rows (and `coffer status --owner`) says apart what of each agent's 24 h spending waits
 * for the owner; read through payments_by_owner, that sum would walk every payment of the day. Held
 * payments are few (those waiting, and those approved and not yet picked up), so their index is small.
 */
export function indexHeldPayments(db: SqliteDatabase): void {
  db.exec("CREATE INDEX payments_held ON transfers (owner, agent_id, created_at) WHERE status = 'held'");
}
