import type { SqliteDatabase } from './database.js';
import type { SimAccountRow, SimChainStore, SimTransactionMeta, SimTransactionRow } from '../chain/sim-ledger.js';

interface TransactionRowData {
  signature: string;
  wire: string;
  slot: number;
  block_time: number;
  error: string | null;
  meta: string;
}

const toTransaction = (row: TransactionRowData): SimTransactionRow => ({
  signature: row.signature,
  wire: row.wire,
  slot: BigInt(row.slot),
  blockTime: row.block_time,
  error: row.error,
  meta: JSON.parse(row.meta) as SimTransactionMeta,
});

/** SQLite persistence for the embedded chain's accounts, transaction log and signatures by address. */
export function createSimChainStore(db: SqliteDatabase): SimChainStore {
  const loadAccounts = db.prepare('SELECT address, lamports, owner, data, executable FROM sim_accounts');
  const upsertAccount = db.prepare(
    `INSERT INTO sim_accounts (address, lamports, owner, data, executable) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (address) DO UPDATE SET lamports = excluded.lamports, owner = excluded.owner, data = excluded.data,
       executable = excluded.executable`,
  );
  const insertTransaction = db.prepare(
    `INSERT OR IGNORE INTO sim_transactions (signature, wire, slot, block_time, error, meta, seq)
     VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM sim_transactions))`,
  );
  const seqOf = db.prepare('SELECT seq FROM sim_transactions WHERE signature = ?').pluck();
  const indexAddress = db.prepare('INSERT OR IGNORE INTO sim_address_signatures (address, seq) VALUES (?, ?)');
  const findTransaction = db.prepare('SELECT * FROM sim_transactions WHERE signature = ?');
  const signaturesFor = db.prepare(
    `SELECT t.* FROM sim_address_signatures a JOIN sim_transactions t ON t.seq = a.seq
     WHERE a.address = ? AND a.seq < ? AND a.seq > ? ORDER BY a.seq DESC LIMIT ?`,
  );
  const accountsData = db.prepare('SELECT address, data FROM sim_accounts WHERE address IN (SELECT value FROM json_each(?))');
  const getMeta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');

  const commit = db.transaction((accounts: SimAccountRow[], transaction: SimTransactionRow | null, listedUnder: readonly string[]) => {
    for (const account of accounts) {
      upsertAccount.run(account.address, account.lamports.toString(), account.owner, account.data, account.executable ? 1 : 0);
    }
    if (transaction) {
      const { changes } = insertTransaction.run(
        transaction.signature,
        transaction.wire,
        transaction.slot,
        transaction.blockTime,
        transaction.error,
        JSON.stringify(transaction.meta),
      );
      if (changes > 0) {
        const seq = seqOf.get(transaction.signature) as number;
        for (const key of new Set(listedUnder)) indexAddress.run(key, seq);
      }
    }
  });
  /** A signature's place in the log; none for an unknown one (then the bound is open). */
  const seqBound = (signature: string | undefined, open: number) =>
    signature === undefined ? open : ((seqOf.get(signature) as number | undefined) ?? open);

  return {
    loadAccounts: () =>
      (loadAccounts.all() as { address: string; lamports: string; owner: string; data: Buffer; executable: number }[]).map((row) => ({
        address: row.address,
        lamports: BigInt(row.lamports),
        owner: row.owner,
        data: new Uint8Array(row.data),
        executable: row.executable === 1,
      })),
    commit: (accounts, transaction, extra = {}) => commit.immediate(accounts, transaction, extra.listedUnder ?? []),
    transaction: (write) => db.transaction(write).immediate(),
    hasTransaction: (signature) => seqOf.get(signature) !== undefined,
    findTransaction: (signature) => {
      const row = findTransaction.get(signature) as TransactionRowData | undefined;
      return row ? toTransaction(row) : null;
    },
    signaturesFor: (address, options) =>
      (
        signaturesFor.all(
          address,
          seqBound(options.before, Number.MAX_SAFE_INTEGER),
          seqBound(options.until, 0),
          options.limit,
        ) as TransactionRowData[]
      ).map(toTransaction),
    accountsData: (addresses) =>
      new Map(
        (accountsData.all(JSON.stringify(addresses)) as { address: string; data: Buffer }[]).map((row) => [
          row.address,
          new Uint8Array(row.data),
        ]),
      ),
    getMeta: (key) => (getMeta.get(key) as string | undefined) ?? null,
    setMeta: (key, value) => void setMeta.run(key, value),
  };
}
