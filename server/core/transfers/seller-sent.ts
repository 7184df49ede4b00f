import { CofferError } from '../../wire/errors.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { settleByFate } from './lifecycle.js';
import type { PaymentRecord } from '../ports/store.js';
import { addressOn, chainOf } from '../rails.js';

/**
 * Settles a pending x402 payment by what its rail's chain says: confirmed (or failed on chain) once its
 * transaction is found, failed as `dropped` once it can no longer land, pending otherwise. Every x402
 * row is written with its signed payment (signed before the write), so one without is `internal`.
 * Returns its state.
 */
export async function settleX402(
  ctx: EngineContext,
  payment: PaymentRecord,
  hint: string | null,
  actor = 'system',
): Promise<'confirmed' | 'failed' | 'pending'> {
  if (payment.txWire === null || payment.payerSignature === null || payment.lifetimeEnd === null) {
    throw new CofferError('internal', `x402 payment ${payment.id} has no signed transaction`);
  }
  const fate = await chainOf(ctx, payment.rail).fateOfPayerSigned({
    payer: addressOn(ctx, getAgentOrThrow(ctx, payment.owner, payment.agentId).walletAddress, payment.rail),
    payerSignature: payment.payerSignature,
    txWire: payment.txWire,
    lifetimeEnd: payment.lifetimeEnd,
    since: madeSince(ctx, payment),
    hint,
  });
  return settleByFate(ctx, payment, actor, fate);
}

/**
 * The first moment the payment's signed transfer could have run: when it was written, or, for a
 * purchase held for the owner's yes, when it was held. A held purchase keeps its id when approved,
 * and its authorization's nonce commits to that id (server/chain/evm/authorization.ts): bought on a
 * Coffer after a backup, then again on the Coffer restored from that file, its first run came before
 * this row was written, perhaps days before, and was not found from the row's time.
 */
function madeSince(ctx: EngineContext, payment: PaymentRecord): number {
  const heldAt = ctx.store.findApprovalByPayment(payment.id)?.createdAt;
  return heldAt === undefined ? payment.createdAt : Math.min(heldAt, payment.createdAt);
}
