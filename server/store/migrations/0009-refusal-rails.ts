import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 9, the rail of each refusal kept for the owner: the same refusal on Solana and on Base are two
 * (they were written once, as one repeated). Refusals kept before have no rail (NULL): which one they
 * were asked on was not written, and is not guessed.
 */
export function addRefusalRails(db: SqliteDatabase): void {
  db.exec(`ALTER TABLE refusals ADD COLUMN rail TEXT CHECK (rail IN ('sol', 'base'));`);
}
