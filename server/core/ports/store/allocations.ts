/** Port: allocations (treasury to agent) and returns (agent to treasury). */
import type { ReplayableTransfer, SentTransaction } from './transfers.js';

export interface AllocationRecord extends ReplayableTransfer {
  id: string;
  owner: string;
  agentId: string;
  amount: bigint;
  /** An allocation funds the agent (`to_agent`); a return gives its USDC back (`to_treasury`). */
  direction: 'to_agent' | 'to_treasury';
}

export interface AllocationStore {
  insertAllocation(allocation: AllocationRecord): void;
  getAllocation(id: string): AllocationRecord | null;
  /** The newest allocation to that agent under that Idempotency-Key created after `since`. */
  findAllocationByIdempotencyKey(owner: string, agentId: string, key: string, since: number): AllocationRecord | null;
  markAllocationSent(id: string, sent: SentTransaction): boolean;
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settleAllocation(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  /** Allocations to agents not settled yet (what the treasury has promised away). */
  pendingAllocationsTotal(owner: string): bigint;
  /** Returns from this agent to the treasury not settled yet (what its wallet has promised away). */
  pendingReturnsTotal(owner: string, agentId: string): bigint;
  pendingAllocations(): AllocationRecord[];
}
