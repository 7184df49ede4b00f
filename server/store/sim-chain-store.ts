import type { SqliteDatabase } from './database.js';
import type { SimAccountRow, SimChainStore, SimTransactionRow } from '../chain/sim-chain.js';

/** SQLite persistence for the embedded chain's accounts and transaction log. */
export function createSimChainStore(db: SqliteDatabase): SimChainStore {
  const loadAccounts = db.prepare('SELECT address, lamports, owner, data, executable FROM sim_accounts');
  const upsertAccount = db.prepare(
    `INSERT INTO sim_accounts (address, lamports, owner, data, executable) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (address) DO UPDATE SET lamports = excluded.lamports, owner = excluded.owner, data = excluded.data,
       executable = excluded.executable`,
  );
  const insertTransaction = db.prepare(
    'INSERT OR IGNORE INTO sim_transactions (signature, wire, slot, block_time, error) VALUES (?, ?, ?, ?, ?)',
  );
  const findTransaction = db.prepare('SELECT * FROM sim_transactions WHERE signature = ?');
  const getMeta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');

  const commit = db.transaction((accounts: SimAccountRow[], transaction: SimTransactionRow | null) => {
    for (const account of accounts) {
      upsertAccount.run(account.address, account.lamports.toString(), account.owner, account.data, account.executable ? 1 : 0);
    }
    if (transaction) {
      insertTransaction.run(transaction.signature, transaction.wire, transaction.slot, transaction.blockTime, transaction.error);
    }
  });

  return {
    loadAccounts: () =>
      (loadAccounts.all() as { address: string; lamports: string; owner: string; data: Buffer; executable: number }[]).map(
        (row) => ({
          address: row.address,
          lamports: BigInt(row.lamports),
          owner: row.owner,
          data: new Uint8Array(row.data),
          executable: row.executable === 1,
        }),
      ),
    commit: (accounts, transaction) => commit.immediate(accounts, transaction),
    findTransaction: (signature) => {
      const row = findTransaction.get(signature) as
        | { signature: string; wire: string; slot: number; block_time: number; error: string | null }
        | undefined;
      return row
        ? { signature: row.signature, wire: row.wire, slot: BigInt(row.slot), blockTime: row.block_time, error: row.error }
        : null;
    },
    getMeta: (key) => (getMeta.get(key) as string | undefined) ?? null,
    setMeta: (key, value) => void setMeta.run(key, value),
  };
}
