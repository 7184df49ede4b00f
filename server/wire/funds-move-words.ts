/**
 * Where a move of USDC between the treasury and an agent stands, in the words every door uses (the
 * CLI's `coffer allocations`, the agent page's list). Pure and browser-safe.
 */
import type { FundsMove } from './answers/treasury.js';

/** "confirmed", "pending on chain", or "failed (dropped): nothing moved" (its code as the ledger keeps it). */
export const fundsMoveStanding = ({ status, errorCode }: Pick<FundsMove, 'status' | 'errorCode'>): string =>
  status === 'failed' ? `failed (${errorCode ?? 'unknown'}): nothing moved` : status === 'pending' ? 'pending on chain' : 'confirmed';
