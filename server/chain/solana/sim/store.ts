import { getBase58Decoder } from '@solana/kit';
import type { SqliteDatabase } from '../../../store/sqlite-driver.js';
import type { SimAccountRow, SimChainStore, SimTransactionRow } from './ledger.js';
import { decodeSimTransaction, encodeSimTransaction, firstSignatureBytes, type SimKeys } from './transaction-codec.js';

interface TransactionRowData {
  seq: number;
  slot: number;
  block_time: number;
  error: string | null;
  body: Buffer;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const base58 = getBase58Decoder();

/**
 * The number a transaction's row is found by: its signature's first 9 base58 characters read as a
 * number (below 2^53). An index of it costs a few bytes a transaction where one of the signature's
 * 88 characters cost a hundred; two signatures may share it, so a lookup checks the signature itself.
 */
export function signatureHead(signature: string): number {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const digit = BASE58.indexOf(signature[i] ?? '');
    if (digit < 0) throw new Error('not a base58 signature');
    value = value * 58 + digit;
  }
  return value;
}

/**
 * The numbers of the chain's addresses (sim_keys), read and given out through SQL on every call: an
 * id given out in a write that rolls back is given again to another address, so no id is remembered
 * beyond one call (where `scoped` remembers them).
 */
export function createSimKeys(db: SqliteDatabase): SimKeys & { idIfKnown(address: string): number | undefined } {
  const find = db.prepare('SELECT id FROM sim_keys WHERE address = ?').pluck();
  const insert = db.prepare('INSERT INTO sim_keys (address) VALUES (?)');
  const addressOf = db.prepare('SELECT address FROM sim_keys WHERE id = ?').pluck();
  return {
    idIfKnown: (address) => find.get(address) as number | undefined,
    idOf: (address) => (find.get(address) as number | undefined) ?? Number(insert.run(address).lastInsertRowid),
    addressOf: (id) => {
      const found = addressOf.get(id) as string | undefined;
      if (found === undefined) throw new Error(`the chain's log names an unknown address number ${id}`);
      return found;
    },
  };
}

/** The same keys, each address and number looked up once for as long as this one is used. */
function scoped(keys: SimKeys): SimKeys {
  const ids = new Map<string, number>();
  const addresses = new Map<number, string>();
  return {
    idOf: (address) => {
      let id = ids.get(address);
      if (id === undefined) ids.set(address, (id = keys.idOf(address)));
      return id;
    },
    addressOf: (id) => {
      let address = addresses.get(id);
      if (address === undefined) addresses.set(id, (address = keys.addressOf(id)));
      return address;
    },
  };
}

/** SQLite persistence for the embedded chain's accounts, transaction log and signatures by address. */
export function createSimChainStore(db: SqliteDatabase): SimChainStore {
  const keys = createSimKeys(db);
  const loadAccounts = db.prepare('SELECT address, lamports, owner, data, executable FROM sim_accounts');
  const upsertAccount = db.prepare(
    `INSERT INTO sim_accounts (address, lamports, owner, data, executable) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (address) DO UPDATE SET lamports = excluded.lamports, owner = excluded.owner, data = excluded.data,
       executable = excluded.executable`,
  );
  const insertTransaction = db.prepare(
    'INSERT INTO sim_transactions (signature_head, slot, block_time, error, body) VALUES (?, ?, ?, ?, ?)',
  );
  const bySignatureHead = db.prepare('SELECT seq, slot, block_time, error, body FROM sim_transactions WHERE signature_head = ?');
  const indexAddress = db.prepare('INSERT OR IGNORE INTO sim_address_signatures (key, seq) VALUES (?, ?)');
  const signaturesFor = db.prepare(
    `SELECT t.seq, t.slot, t.block_time, t.error, t.body FROM sim_address_signatures a JOIN sim_transactions t ON t.seq = a.seq
     WHERE a.key = ? AND a.seq < ? AND a.seq > ? ORDER BY a.seq DESC LIMIT ?`,
  );
  const inSlot = db.prepare('SELECT seq, slot, block_time, error, body FROM sim_transactions WHERE slot = ? ORDER BY seq');
  const lastSlot = db.prepare('SELECT MAX(slot) FROM sim_transactions').pluck();
  const accountsData = db.prepare('SELECT address, data FROM sim_accounts WHERE address IN (SELECT value FROM json_each(?))');
  const accountsOwnedBy = db.prepare('SELECT address, data FROM sim_accounts WHERE owner = ?');
  const getMeta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');

  /** The rows under a signature's head that are that signature's (one, or none). */
  const rowOf = (signature: string): TransactionRowData | undefined =>
    (bySignatureHead.all(signatureHead(signature)) as TransactionRowData[]).find((row) => signatureOf(row.body) === signature);
  const toTransaction = (row: TransactionRowData, lookup: SimKeys, signature = signatureOf(row.body)): SimTransactionRow => {
    const { wire, meta } = decodeSimTransaction(row.body, lookup);
    return { signature, wire: wire.toString('base64'), slot: BigInt(row.slot), blockTime: row.block_time, error: row.error, meta };
  };

  const commit = db.transaction((accounts: SimAccountRow[], transaction: SimTransactionRow | null, listedUnder: readonly string[]) => {
    for (const account of accounts) {
      upsertAccount.run(account.address, account.lamports.toString(), account.owner, account.data, account.executable ? 1 : 0);
    }
    // A signature lands once: the ledger checks before it executes, and a second write of one is ignored.
    if (transaction && rowOf(transaction.signature) === undefined) {
      const lookup = scoped(keys);
      const wire = Buffer.from(transaction.wire, 'base64');
      const body = encodeSimTransaction(wire, transaction.meta.accountKeys, transaction.meta, lookup);
      const seq = insertTransaction.run(
        signatureHead(transaction.signature),
        transaction.slot,
        transaction.blockTime,
        transaction.error,
        body,
      ).lastInsertRowid;
      for (const key of new Set(listedUnder)) indexAddress.run(lookup.idOf(key), seq);
    }
  });
  /** A signature's place in the log; none for an unknown one (then the bound is open). */
  const seqBound = (signature: string | undefined, open: number) => (signature === undefined ? open : (rowOf(signature)?.seq ?? open));

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
    hasTransaction: (signature) => rowOf(signature) !== undefined,
    findTransaction: (signature) => {
      const row = rowOf(signature);
      return row ? toTransaction(row, scoped(keys), signature) : null;
    },
    signaturesFor: (address, options) => {
      const key = keys.idIfKnown(address);
      if (key === undefined) return [];
      const lookup = scoped(keys);
      return (
        signaturesFor.all(
          key,
          seqBound(options.before, Number.MAX_SAFE_INTEGER),
          seqBound(options.until, 0),
          options.limit,
        ) as TransactionRowData[]
      ).map((row) => toTransaction(row, lookup));
    },
    transactionsInSlot: (slot) => {
      const lookup = scoped(keys);
      return (inSlot.all(slot) as TransactionRowData[]).map((row) => toTransaction(row, lookup));
    },
    lastSlot: () => {
      const slot = lastSlot.get() as number | null;
      return slot === null ? null : BigInt(slot);
    },
    accountsData: (addresses) =>
      new Map(
        (accountsData.all(JSON.stringify(addresses)) as { address: string; data: Buffer }[]).map((row) => [
          row.address,
          new Uint8Array(row.data),
        ]),
      ),
    accountsOwnedBy: (program) =>
      (accountsOwnedBy.all(program) as { address: string; data: Buffer }[]).map((row) => ({
        address: row.address,
        data: new Uint8Array(row.data),
      })),
    getMeta: (key) => (getMeta.get(key) as string | undefined) ?? null,
    setMeta: (key, value) => void setMeta.run(key, value),
  };
}

/** A stored transaction's first signature, in base58. */
function signatureOf(body: Uint8Array): string {
  return base58.decode(firstSignatureBytes(body));
}
