import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import { refuse, type X402Refusal } from './x402-refusal.js';

/** A settlement the facilitator sent but has not seen confirmed (`@x402/core`'s own name for it). */
const SETTLEMENT_PENDING = 'settlement_pending';

/** A payment the facilitator verified and settled: its settlement, and who paid. */
export type Settlement = { ok: true; settled: SettleResponse; payer: string };

/**
 * The payment verified, then settled, by the facilitator against `requirements`; either one's
 * refusal is the payment's (payment_rejected). Throws when the outcome is unknown: the facilitator
 * cannot be reached, or its settlement is still pending.
 */
export async function verifiedAndSettled(
  facilitator: FacilitatorClient,
  payload: PaymentPayload,
  requirements: PaymentRequirements | PaymentRequirementsV1,
): Promise<Settlement | X402Refusal> {
  const verified = await facilitator.verify(payload, requirements as PaymentRequirements);
  if (!verified.isValid)
    return refuse(
      'payment_rejected',
      `the facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}${verified.invalidMessage ? ` (${verified.invalidMessage})` : ''}`,
    );
  // As the official resource server does: a settlement still pending (sent, not yet confirmed) is
  // asked once more; still pending, the outcome is unknown, so the answer is 503 and the nonce
  // stays unused: the same payment presented again is settled then (the facilitator keeps it).
  const settle = () => facilitator.settle(payload, requirements as PaymentRequirements);
  const pending = (result: SettleResponse) => !result.success && result.errorReason === SETTLEMENT_PENDING && Boolean(result.transaction);
  let settled = await settle();
  if (pending(settled)) settled = await settle();
  if (pending(settled)) throw new Error(`the facilitator has not finished settling ${settled.transaction}`);
  if (!settled.success)
    return refuse(
      'payment_rejected',
      `the payment could not be settled: ${settled.errorReason ?? 'failed'}${settled.errorMessage ? ` (${settled.errorMessage})` : ''}`,
    );
  return { ok: true, settled, payer: settled.payer ?? verified.payer ?? '' };
}
