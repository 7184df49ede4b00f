import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 6, each wallet's address on the Base rail (issue 49): the treasury's and each agent's EVM
 * account, beside the Solana address that names the wallet everywhere else. Filled as wallets are
 * made, and for a data dir made before, when it opens.
 */
export function addRailWallets(db: SqliteDatabase): void {
  db.exec(`
    CREATE TABLE rail_wallets (
      wallet TEXT NOT NULL,
      rail TEXT NOT NULL CHECK (rail IN ('base')),
      address TEXT NOT NULL,
      PRIMARY KEY (wallet, rail),
      UNIQUE (rail, address)
    ) STRICT;
  `);
}
