import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 4, the embedded chain's blocks (issue 29): slots follow the clock (server/chain/solana/sim/blocks.ts)
 * and the transactions that landed in one slot are its block, which `getBlock` reads by their slot.
 * No row changes: a chain written before keeps its transactions' slots, and its clock-driven slots
 * begin past them.
 */
export function indexTransactionsBySlot(db: SqliteDatabase): void {
  db.exec('CREATE INDEX sim_transactions_by_slot ON sim_transactions (slot)');
}
