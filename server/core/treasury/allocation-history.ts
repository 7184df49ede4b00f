/**
 * The owner's history of USDC moved between the treasury and its agents: every allocation and return,
 * whatever became of it, newest first. With the deposits (treasury.ts) and the payments, what the
 * treasury's balance on each rail is made of.
 */
import { CofferError } from '../../wire/errors.js';
import { requireOwner, type Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import type { AllocationRecord } from '../ports/store.js';
import type { FundsMove, FundsMoves } from '../../wire/answers/treasury.js';
import { formatUsdc } from '../../wire/money.js';
import { iso } from '../../wire/views.js';

export const ALLOCATIONS_DEFAULT_LIMIT = 50;

/** One agent's allocations and returns (an archived one's too: its history stays), or every agent's (`agentId` absent). */
export function listAllocations(ctx: EngineContext, principal: Principal, query: { agentId?: string; limit?: number } = {}): FundsMoves {
  requireOwner(principal);
  const { agentId = null, limit = ALLOCATIONS_DEFAULT_LIMIT } = query;
  if (agentId !== null) getAgentOrThrow(ctx, principal.owner, agentId);
  return { allocations: ctx.store.listAllocations(principal.owner, agentId, limit).map(fundsMoveView) };
}

const fundsMoveView = (move: AllocationRecord): FundsMove => ({
  id: move.id,
  kind: move.kind,
  agentId: move.agentId,
  rail: move.rail,
  amount: formatUsdc(move.amount),
  currency: 'USDC',
  status: notHeld(move),
  errorCode: move.errorCode,
  txSignature: move.txSignature,
  timestamp: iso(move.createdAt),
  settledAt: move.settledAt === null ? null : iso(move.settledAt),
});

/** Only a payment waits for the owner's yes (the ledger's CHECK): an allocation said to be held is a fault, never relabelled. */
function notHeld(move: AllocationRecord): FundsMove['status'] {
  if (move.status === 'held') throw new CofferError('internal', `${move.kind} ${move.id} is recorded as held`);
  return move.status;
}
