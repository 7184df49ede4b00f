import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 8, registry services paid on Base too (issue 49): where a service is paid on Base and on
 * which network, beside its Solana payTo; null for a service paid on Solana only. The shipped
 * catalog fills them at the next start: its fingerprint is forgotten, so the catalog is loaded again
 * even where its file is the one loaded last.
 */
export function addServiceBasePayTo(db: SqliteDatabase): void {
  db.exec(`
    ALTER TABLE services ADD COLUMN base_pay_to TEXT;
    ALTER TABLE services ADD COLUMN base_network TEXT;
    DELETE FROM meta WHERE key = 'catalog.fingerprint';
  `);
}
