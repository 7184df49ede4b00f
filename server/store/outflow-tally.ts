import type { TransferRecord } from '../core/ports/store.js';
import type { Rail } from '../wire/rails.js';

/**
 * What a store has confirmed leaving each agent's wallet, per rail, since it was opened: the running
 * total behind `confirmedOutflowsTotal` (core/ports/store/transfers.ts). Payments and returns to the
 * treasury are what leave an agent's wallet; allocations, refunds, deposits and mints come in.
 */
export function outflowTally() {
  const totals = new Map<string, bigint>();
  const keyOf = (owner: string, agentId: string, rail: Rail) => `${owner}|${agentId}|${rail}`;
  return {
    /** A row the store has just confirmed. */
    confirmed(row: TransferRecord): void {
      if ((row.kind !== 'payment' && row.kind !== 'return') || row.agentId === null) return;
      const key = keyOf(row.owner, row.agentId, row.rail);
      totals.set(key, (totals.get(key) ?? 0n) + row.amount);
    },
    total: (owner: string, agentId: string, rail: Rail): bigint => totals.get(keyOf(owner, agentId, rail)) ?? 0n,
  };
}
