import { CofferError, isCofferError } from './errors.js';
import type { EngineContext } from './context.js';
import type { TransferRequest } from './ports/chain.js';
import type { SentTransaction } from './ports/store.js';

/** The ledger side of one reserved transfer (a payment or an allocation row). */
export interface LedgerRow {
  markSent(sent: SentTransaction): void;
  settle(status: 'confirmed' | 'failed', errorCode: string | null): void;
}

/**
 * Moves money for a row already reserved as pending: sign, record the signature and signed bytes
 * (so a restart can find or rebroadcast exactly this transaction), send, then settle the row.
 * When the chain cannot be reached after sending, the row stays pending for reconciliation: it may
 * still land, and marking it failed could let the same money be spent twice.
 */
export async function sendReserved(ctx: EngineContext, row: LedgerRow, request: TransferRequest): Promise<string> {
  let prepared;
  try {
    prepared = await ctx.chain.prepareTransfer(request);
  } catch (error) {
    row.settle('failed', isCofferError(error) ? error.code : 'chain_unavailable');
    throw asChainError(error);
  }
  row.markSent(prepared);
  try {
    await ctx.chain.submitTransfer(prepared);
  } catch (error) {
    if (isCofferError(error) && error.code !== 'chain_unavailable') row.settle('failed', error.code);
    throw asChainError(error);
  }
  row.settle('confirmed', null);
  return prepared.txSignature;
}

function asChainError(error: unknown): CofferError {
  if (isCofferError(error)) return error;
  return new CofferError('chain_unavailable', `the chain could not be reached: ${(error as Error).message}`, { cause: error });
}
