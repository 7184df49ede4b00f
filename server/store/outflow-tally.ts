import type { TransferRecord } from '../core/ports/store.js';
import type { Rail } from '../wire/rails.js';

/**
 * What a store has confirmed leaving each agent's wallet, and each treasury, per rail, since it was
 * opened: the running total behind `confirmedOutflowsTotal` (core/ports/store/transfers.ts). Payments
 * and returns to the treasury are what leave an agent's wallet; allocations and refunds sent to an
 * agent, what leaves the treasury; deposits and mints come in.
 */
export function outflowTally() {
  const totals = new Map<string, bigint>();
  // The treasury under an id no agent can have (agent ids are never empty).
  const keyOf = (owner: string, agentId: string | null, rail: Rail) => `${owner}|${agentId ?? ''}|${rail}`;
  const add = (key: string, amount: bigint) => totals.set(key, (totals.get(key) ?? 0n) + amount);
  return {
    /** A row the store has just confirmed. */
    confirmed(row: TransferRecord): void {
      if (row.kind === 'payment' || row.kind === 'return') add(keyOf(row.owner, row.agentId, row.rail), row.amount);
      // A refund kept in the treasury (its agent archived) moves nothing.
      else if (row.kind === 'allocation' || (row.kind === 'refund' && row.destination === 'agent'))
        add(keyOf(row.owner, null, row.rail), row.amount);
    },
    total: (owner: string, agentId: string | null, rail: Rail): bigint => totals.get(keyOf(owner, agentId, rail)) ?? 0n,
  };
}
