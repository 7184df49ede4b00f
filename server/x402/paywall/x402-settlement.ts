import type { FacilitatorClient } from '@x402/core/server';
import { SettleError, VerifyError } from '@x402/core/types';
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import { refuse, type X402Refusal } from './x402-refusal.js';
import type { PaidBefore } from './settled-on-chain.js';

/** A settlement the facilitator sent but has not seen confirmed (`@x402/core`'s own name for it). */
const SETTLEMENT_PENDING = 'settlement_pending';
/**
 * The official EVM facilitator's refusal of an authorization already used, before it sends anything
 * (`@x402/evm`'s ErrEip3009NonceAlreadyUsed): its verify's, and its send's where the node's estimate
 * reverts so.
 */
const AUTHORIZATION_USED = 'invalid_exact_evm_nonce_already_used';

/** A payment the facilitator verified and settled: its settlement, and who paid. */
export type Settlement = { ok: true; settled: SettleResponse; payer: string };

/**
 * The payments whose settlement this paywall left pending (answered 503), until their terms end: the
 * same payment presented again goes straight to settle. Its authorization may be used on chain by
 * then, and the official EVM facilitator's verify simulates the transfer, so a fresh verify would
 * refuse a payment whose money arrived; its settle resumes the transaction it sent (its pending
 * store, by the payment's signature) and checks that transaction's transfer. Kept in memory, as the
 * nonce claims are: a paywall restarted meanwhile verifies the payment afresh.
 */
export class ResumableSettles {
  private readonly until = new Map<string, number>();

  has(payment: PresentedPayment, now: number): boolean {
    return (this.until.get(keyOf(payment)) ?? -Infinity) >= now;
  }

  add(payment: PresentedPayment, until: number, now: number): void {
    for (const [key, end] of this.until) if (end < now) this.until.delete(key);
    this.until.set(keyOf(payment), until);
  }

  delete(payment: PresentedPayment): void {
    this.until.delete(keyOf(payment));
  }
}

/** A payment as presented, and the terms of the route it was presented on. */
type PresentedPayment = { payload: PaymentPayload; requirements: PaymentRequirements | PaymentRequirementsV1 };

/**
 * The whole payment as presented, with the route's terms it was verified against: only the same
 * payment, for the same terms, skips the verify. (A v1 payment names no nonce of the paywall's: the
 * terms keep one left pending on a cheap route from being served on a dear one, where the facilitator's
 * resumed settle checks the transfer against the payment's own authorization only.)
 */
const keyOf = ({ payload, requirements }: PresentedPayment) => JSON.stringify([payload, requirements]);

/**
 * The payment verified, then settled, by the facilitator against `requirements`; either one's
 * refusal is the payment's (payment_rejected), unless the chain shows it paid. Throws when the
 * outcome is unknown: the facilitator cannot be reached, its settlement is still pending
 * (remembered in `pending` until `until`), or it failed without naming what it sent.
 */
export async function verifiedAndSettled(
  facilitator: FacilitatorClient,
  payload: PaymentPayload,
  requirements: PaymentRequirements | PaymentRequirementsV1,
  pending: { settlements: ResumableSettles; until: number; now: number },
  /** The payment's settlements as remembered, and where the chain shows them (settled-on-chain.ts). */
  onChain: PaidBefore | null = null,
): Promise<Settlement | X402Refusal> {
  const landed = async (): Promise<Settlement | null> => {
    const found = onChain === null ? null : await onChain.ranIn();
    if (found === null) return null;
    const settled = { success: true, transaction: found.transaction, network: requirements.network as Network, payer: found.payer };
    return { ok: true, settled, payer: found.payer };
  };
  // Its terms ended (v2Match lets such a payment this far only where a settlement of it began in
  // time): served only where the chain shows that settlement ran. Nothing is verified or settled
  // anew, so no money moves for terms that ended.
  if (pending.now > pending.until) {
    return (await landed()) ?? refuse('receipt_expired', 'the nonce this payment names has expired; pay the fresh terms');
  }
  // A payment left pending was verified when first presented; verified again now, its used
  // authorization would fail (see ResumableSettles).
  const presented = { payload, requirements };
  const resumed = pending.settlements.has(presented, pending.now);
  let payer: string | undefined;
  if (!resumed) {
    const verified = await facilitator.verify(payload, requirements as PaymentRequirements).catch(verifyRefusal);
    payer = verified.payer;
    // Refused for whatever reason the facilitator gives (the official one says the nonce is used, or
    // that the transfer's simulation failed where it cannot ask the token why): the chain is asked,
    // where this payment's settlement was left pending before.
    if (!verified.isValid) {
      return (
        (await landed()) ??
        refuse(
          'payment_rejected',
          `the facilitator refused the payment: ${verified.invalidReason ?? 'invalid'}${wordsOf(verified.invalidMessage)}`,
        )
      );
    }
  }
  const payerOf = (result?: SettleResponse) => result?.payer ?? payer ?? '';
  // Each settlement is remembered as it begins, and by what the facilitator answers of it
  // (settled-on-chain.ts): a stop between a settlement and its record, or an answer lost, must not
  // leave the buyer's money taken and the answer refused.
  const settle = async (): Promise<SettleResponse | null> => {
    // Another payment remembered under its nonce (signed again, or by another buyer, perhaps in
    // another process sharing the store): its money may move or have moved; this one's must not.
    if (onChain !== null && !onChain.settling(payerOf())) return null;
    const result = await facilitator.settle(payload, requirements as PaymentRequirements).catch(settleFailure(requirements.network));
    // What it sent (pending, or a failure after its broadcast, which may still land), or that the
    // authorization ran before it sent anything; any other failure may have come after a send.
    if (!result.success && result.transaction) onChain?.named(result.transaction, payerOf(result));
    else if (!result.success && result.errorReason === AUTHORIZATION_USED) onChain?.ranElsewhere();
    return result;
  };
  // As the official resource server does: a settlement still pending (sent, not yet confirmed) is
  // asked once more; still pending, the outcome is unknown, so the answer is 503 and the nonce
  // stays unused: the same payment presented again resumes it.
  const isPending = (result: SettleResponse) => !result.success && result.errorReason === SETTLEMENT_PENDING && Boolean(result.transaction);
  let settled = await settle();
  if (settled !== null && isPending(settled)) settled = await settle();
  if (settled === null) {
    return refuse('receipt_already_used', 'another payment naming this nonce was settled, or is being settled: pay the fresh terms');
  }
  if (isPending(settled)) {
    pending.settlements.add(presented, pending.until, pending.now);
    throw new Error(`the facilitator has not finished settling ${settled.transaction}`);
  }
  pending.settlements.delete(presented);
  if (!settled.success) {
    const found = await landed();
    if (found !== null) return found;
    // Failed naming nothing it sent, for a reason that may come after a send (a send that threw
    // once the node took it): the chain may not show it yet, so the outcome is unknown (503) and
    // the payment presented again is asked about again.
    if (!settled.transaction && settled.errorReason !== AUTHORIZATION_USED) {
      throw new Error(`the facilitator did not say whether it sent the payment (${settled.errorReason ?? 'failed'})`);
    }
    return refuse(
      'payment_rejected',
      `the payment could not be settled: ${settled.errorReason ?? 'failed'}${wordsOf(settled.errorMessage)}`,
    );
  }
  // Remembered with the payment before anything else is asked or written: a stop between here and
  // its record must leave it served where the chain shows this transaction ran, though the
  // facilitator names no account it sends from (so the chain cannot be searched for it).
  onChain?.settledIn(settled.transaction, payerOf(settled));
  return { ok: true, settled, payer: settled.payer ?? payer ?? '' };
}

/**
 * A facilitator over HTTP that refuses a payment with a 4xx, its reason in the body, is read by the
 * official client as a thrown VerifyError or SettleError: its answer, as one in a 200 would be.
 * Anything else thrown (no answer, one that cannot be read, a 5xx) leaves the outcome unknown (503).
 */
const verifyRefusal = (error: unknown): VerifyResponse => {
  // A 5xx is the facilitator's own trouble, whatever its body says: the outcome is unknown.
  if (!(error instanceof VerifyError) || error.statusCode >= 500) throw error;
  return { isValid: false, invalidReason: error.invalidReason ?? 'invalid', invalidMessage: error.invalidMessage, payer: error.payer };
};
const settleFailure =
  (network: string) =>
  (error: unknown): SettleResponse => {
    if (!(error instanceof SettleError)) throw error;
    const { errorReason, errorMessage, payer, transaction, statusCode } = error;
    // A 5xx is the facilitator's own trouble: what it sent, if it says, is pending; else unknown.
    if (statusCode >= 500 && !transaction) throw error;
    if (statusCode >= 500) return { success: false, errorReason: SETTLEMENT_PENDING, payer, transaction, network: network as Network };
    return {
      success: false,
      errorReason: errorReason ?? 'failed',
      errorMessage,
      payer,
      transaction: transaction ?? '',
      network: network as Network,
    };
  };

/**
 * A facilitator's message, as the buyer's 402 says it: its first paragraph in one line, in brackets.
 * Security invariant: an official facilitator in this process passes viem's message on, whose later
 * paragraphs name the node it asked (`URL: …`: a hosted RPC's carries its key) and the request.
 */
function wordsOf(message: string | undefined): string {
  const first = message
    ?.split(/\n\s*\n/)[0]!
    .replace(/\s*\n\s*/g, ' ')
    .trim()
    .replace(/\.$/, '');
  return first ? ` (${first})` : '';
}
