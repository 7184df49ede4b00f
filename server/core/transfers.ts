import { CofferError, isCofferError } from './errors.js';
import { audit, type EngineContext } from './context.js';
import type { TransferRequest } from './ports/chain.js';
import type { SentTransaction } from './ports/store.js';

/** A ledger row reserved as pending (a payment or an allocation), and what its audit rows say. */
export interface ReservedTransfer {
  kind: 'payment' | 'allocation';
  id: string;
  owner: string;
  agentId: string;
  actor: string;
  detail: Record<string, unknown>;
}

function markSent(ctx: EngineContext, row: ReservedTransfer, sent: SentTransaction): void {
  if (row.kind === 'payment') ctx.store.markPaymentSent(row.id, sent);
  else ctx.store.markAllocationSent(row.id, sent);
}

/** Confirms or fails a pending row; the settlement and its audit row are one commit. */
export function settleTransfer(
  ctx: EngineContext,
  row: ReservedTransfer,
  status: 'confirmed' | 'failed',
  errorCode: string | null,
): void {
  ctx.store.transaction(() => {
    const now = ctx.clock.now();
    if (row.kind === 'payment') ctx.store.settlePayment(row.id, status, errorCode, now);
    else ctx.store.settleAllocation(row.id, status, errorCode, now);
    audit(ctx, {
      actor: row.actor,
      owner: row.owner,
      agentId: row.agentId,
      action: `${row.kind}.${status}`,
      detail: { ...row.detail, id: row.id, errorCode },
    });
  });
}

/**
 * Moves money for a row already reserved as pending: sign, record the signature and signed bytes
 * (so a restart can find or rebroadcast exactly this transaction), send, then settle the row.
 * When the chain cannot be reached after sending, the row stays pending for reconciliation: it may
 * still land, and marking it failed could let the same money be spent twice.
 */
export async function sendReserved(ctx: EngineContext, row: ReservedTransfer, request: TransferRequest): Promise<string> {
  let prepared;
  try {
    prepared = await ctx.chain.prepareTransfer(request);
  } catch (error) {
    settleTransfer(ctx, row, 'failed', isCofferError(error) ? error.code : 'chain_unavailable');
    throw asChainError(error);
  }
  markSent(ctx, row, prepared);
  try {
    await ctx.chain.submitTransfer(prepared);
  } catch (error) {
    if (isCofferError(error) && error.code !== 'chain_unavailable') settleTransfer(ctx, row, 'failed', error.code);
    throw asChainError(error);
  }
  settleTransfer(ctx, row, 'confirmed', null);
  return prepared.txSignature;
}

function asChainError(error: unknown): CofferError {
  if (isCofferError(error)) return error;
  return new CofferError('chain_unavailable', `the chain could not be reached: ${(error as Error).message}`, { cause: error });
}
