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
    since: payment.createdAt,
    hint,
  });
  return settleByFate(ctx, payment, actor, fate);
}
