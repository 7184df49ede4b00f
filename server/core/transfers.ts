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

/**
 * A settled row whose transaction never reached the chain and never can: it was never signed (the
 * process stopped first, or the chain could not be asked for a blockhash), or it was signed but
 * expired unseen (`dropped`). No money moved, so a retry under the same Idempotency-Key is a first try.
 */
export const neverSent = (row: { status: string; txSignature: string | null; errorCode: string | null }): boolean =>
  row.status === 'failed' && (row.txSignature === null || row.errorCode === 'dropped');

/**
 * Rows this process is sending right now, by id. Reconciliation leaves them alone (they have an
 * owner), a replayed Idempotency-Key waits for them, and shutdown waits for all of them.
 */
const active = new WeakMap<EngineContext, Map<string, Promise<string>>>();

export function activeTransfers(ctx: EngineContext): Map<string, Promise<string>> {
  let map = active.get(ctx);
  if (!map) {
    map = new Map();
    active.set(ctx, map);
  }
  return map;
}

/** Resolves when every transfer in flight has finished, whatever its outcome. */
export async function settleActiveTransfers(ctx: EngineContext): Promise<void> {
  while (activeTransfers(ctx).size > 0) await Promise.allSettled([...activeTransfers(ctx).values()]);
}

function markSent(ctx: EngineContext, row: ReservedTransfer, sent: SentTransaction): boolean {
  return row.kind === 'payment' ? ctx.store.markPaymentSent(row.id, sent) : ctx.store.markAllocationSent(row.id, sent);
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
  const amount = String(row.detail.amount ?? '');
  ctx.events.emit(
    row.kind === 'payment'
      ? { type: 'payment', owner: row.owner, agentId: row.agentId, paymentId: row.id, status, amount, service: String(row.detail.service ?? '') }
      : { type: 'allocation', owner: row.owner, agentId: row.agentId, allocationId: row.id, status, amount },
  );
}

/**
 * Moves money for a row already reserved as pending: sign, record the signature and signed bytes
 * (so a restart can find or rebroadcast exactly this transaction), send, then settle the row.
 * Nothing is sent unless the signature was recorded on a row still pending. When the chain cannot
 * be reached after sending, the row stays pending for reconciliation: it may still land, and
 * marking it failed could let the same money be spent twice.
 */
export function sendReserved(ctx: EngineContext, row: ReservedTransfer, request: TransferRequest): Promise<string> {
  const sending = (async () => {
    let prepared;
    try {
      prepared = await ctx.chain.prepareTransfer(request);
    } catch (error) {
      settleTransfer(ctx, row, 'failed', isCofferError(error) ? error.code : 'chain_unavailable');
      throw asChainError(error);
    }
    let recorded: boolean;
    try {
      recorded = markSent(ctx, row, prepared);
    } catch (error) {
      settleTransfer(ctx, row, 'failed', 'not_sent');
      throw new CofferError('internal', 'the payment could not be recorded; nothing was sent', { cause: error });
    }
    if (!recorded) throw new CofferError('internal', 'the payment was settled while it was being sent; nothing was sent');
    try {
      await ctx.chain.submitTransfer(prepared);
    } catch (error) {
      if (isCofferError(error) && error.code !== 'chain_unavailable') settleTransfer(ctx, row, 'failed', error.code);
      throw asChainError(error);
    }
    settleTransfer(ctx, row, 'confirmed', null);
    return prepared.txSignature;
  })();
  const transfers = activeTransfers(ctx);
  transfers.set(row.id, sending);
  void sending.then(
    () => transfers.delete(row.id),
    () => transfers.delete(row.id),
  );
  return sending;
}

function asChainError(error: unknown): CofferError {
  if (isCofferError(error)) return error;
  return new CofferError('chain_unavailable', `the chain could not be reached: ${(error as Error).message}`, { cause: error });
}
