import type { SqliteDatabase } from '../../../store/sqlite-driver.js';

/**
 * The embedded EVM chain's state, as the requests that made it (table evm_journal, in the ledger's
 * database): every request that changed the chain, in the order it ran, with the time its block was
 * given. EDR keeps its state in memory only, and replaying the journal from the genesis block's time
 * (the first entry's) gives the same blocks, hashes and state again (server/chain/evm/sim/chain.ts).
 */
export interface EvmJournalEntry {
  seq: number;
  /** The block's time, in seconds. */
  at: number;
  method: string;
  params: readonly unknown[];
}

export interface EvmJournal {
  /** The genesis block's time: the first entry's, or null for a chain not made yet. */
  firstTime(): number | null;
  /** Written (and committed) before the request runs; answers its number. */
  append(entry: Omit<EvmJournalEntry, 'seq'>): number;
  /** A request the chain refused changed nothing: it leaves the journal. */
  remove(seq: number): void;
  entries(): Iterable<EvmJournalEntry>;
}

export function createEvmJournal(db: SqliteDatabase): EvmJournal {
  const first = db.prepare('SELECT at FROM evm_journal ORDER BY seq LIMIT 1').pluck();
  const insert = db.prepare('INSERT INTO evm_journal (at, method, params) VALUES (?, ?, ?)');
  const remove = db.prepare('DELETE FROM evm_journal WHERE seq = ?');
  // A page at a time: the replay awaits the node between entries, and an open iterator would hold
  // the connection that every other statement needs meanwhile.
  const page = db.prepare('SELECT seq, at, method, params FROM evm_journal WHERE seq > ? ORDER BY seq LIMIT 500');
  return {
    firstTime: () => (first.get() as number | undefined) ?? null,
    append: ({ at, method, params }) => Number(insert.run(at, method, JSON.stringify(params)).lastInsertRowid),
    remove: (seq) => void remove.run(seq),
    *entries() {
      for (let after = 0; ;) {
        const rows = page.all(after) as { seq: number; at: number; method: string; params: string }[];
        for (const row of rows) yield { seq: row.seq, at: row.at, method: row.method, params: JSON.parse(row.params) as unknown[] };
        if (rows.length < 500) return;
        after = rows[rows.length - 1]!.seq;
      }
    },
  };
}
