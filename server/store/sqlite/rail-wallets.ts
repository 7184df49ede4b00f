/** SQLite adapter of the rail wallets port. */
import type { RailWalletStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';

export function createRailWalletStore(db: SqliteDatabase): RailWalletStore {
  const insert = db.prepare('INSERT INTO rail_wallets (wallet, rail, address) VALUES (?, ?, ?)');
  const one = db.prepare('SELECT address FROM rail_wallets WHERE wallet = ? AND rail = ?').pluck();
  const walletOf = db.prepare('SELECT wallet FROM rail_wallets WHERE rail = ? AND address = ?').pluck();
  return {
    insertRailWallet: (wallet, rail, address) => void insert.run(wallet, rail, address),
    railWallets: (rail, wallets) => {
      const found = new Map<string, string>();
      for (const wallet of new Set(wallets)) {
        const address = one.get(wallet, rail) as string | undefined;
        if (address !== undefined) found.set(wallet, address);
      }
      return found;
    },
    walletOfRailAddress: (rail, address) => (walletOf.get(rail, address) as string | undefined) ?? null,
  };
}
