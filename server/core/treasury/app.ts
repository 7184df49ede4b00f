/**
 * The treasury: the owner's own wallet and the money between it and the agents. Read this first.
 * treasury.ts (the owner of a data dir, test money from the faucet, deposits found on chain) and
 * allocations.ts (USDC allocated to an agent, and given back), allocation-history.ts (what moved so).
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { ApprovalCarriers } from '../approvals/carriers.js';
import { ownerResult } from '../outcome.js';
import { ensureOwner, faucet, listDeposits, pollDeposits } from './treasury.js';
import { allocate, returnFunds } from './allocations.js';
import { listAllocations } from './allocation-history.js';
import type { Rail } from '../../wire/rails.js';

export const treasuryApp = (ctx: EngineContext) => ({
  ensureOwner: () => ensureOwner(ctx),
  pollDeposits: (owner: string, rails?: readonly Rail[]) => pollDeposits(ctx, owner, rails),
  deposits: (p: Principal) => listDeposits(ctx, p),
  allocations: (p: Principal, query?: { agentId?: string; limit?: number }) => listAllocations(ctx, p, query),
  faucet: (p: Principal, amount: string, idempotencyKey: string | null = null, rail: Rail = 'sol') =>
    faucet(ctx, p, amount, idempotencyKey, rail),
  allocate: (p: Principal, agentId: string, amount: string, idempotencyKey: string | null = null, rail: Rail = 'sol') =>
    allocate(ctx, p, agentId, amount, idempotencyKey, rail),
  returnFunds: (p: Principal, agentId: string, amount: string | null, idempotencyKey: string | null = null, rail: Rail = 'sol') =>
    returnFunds(ctx, p, agentId, amount, idempotencyKey, rail),
});

/** What an agent's approved request for funds carries out. */
export const treasuryApprovals: Pick<ApprovalCarriers['carryOut'], 'allocate'> = {
  allocate: async (ctx, approval, owner) => ({
    ...ownerResult(
      await allocate(
        ctx,
        owner,
        approval.targetAgentId,
        String(approval.request.amount),
        null,
        approval.request.rail === 'base' ? 'base' : 'sol',
      ),
    ),
  }),
};
