/**
 * Payments held for the owner's yes (policy/holds.ts says which). A held payment is a payment row with
 * status `held` (no transaction yet) and an approval of kind `payment`, written in one write after
 * every check a payment passes; the budgets count it from that moment, so two held payments cannot
 * together pass a budget once approved. Its life:
 *
 *   held ──approve──▶ signed ──reserve: the hold taken out and judged again as a payment made now──▶ pending ──▶ confirmed / failed
 *     │                                 └─ refused (stopped, over a budget, short of funds, …): failed with that code, nothing moved
 *     ├── deny ──────▶ failed `payment_denied`
 *     ├── 24 h ──────▶ failed `approval_expired`
 *     └── kill ──────▶ failed `approval_withdrawn`
 *
 * The approval's pending → approved step is one conditional update, and the reservation takes the
 * hold out in the write that records the payment: a payment is paid at most once, and never after a
 * deny, an expiry or a kill (its row is no longer held). A process that stops between the two is
 * settled at the next start (interruptedPayment): paid (the approval answers the payment) or not paid
 * (the approval failed, saying so), never unknown.
 */
import { CofferError, isCofferError, refuse } from '../../wire/errors.js';
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { withWalletReading } from '../wallet-balance.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { formatUsdc } from '../../wire/money.js';
import type { AgentRecord, ApprovalRecord, PaymentRecord } from '../ports/store.js';
import type { AwaitingApproval } from '../outcome.js';
import { HOLD_ENDINGS, requestApproval } from '../approvals/requests.js';
import { approvalView } from '../views.js';
import type { HoldReason } from '../policy/holds.js';
import { budgetedOf, judgeInReservation } from './judge.js';
import { keyOfPayment, movePayment, paymentFields, signCofferPayment, agentStoppedField } from './move.js';
import type { PaymentToMove } from './payment.js';
import { checkSameRequest, takenUnderKey, type MoveKey } from '../transfers/lifecycle.js';
import { paymentResult } from './payment-result.js';
import { recordPaidBeforeRestore } from './paid-before-restore.js';
import type { HeldPaymentLook } from '../approvals/carriers.js';
import { watchPayment, type PolicyReading } from '../policy/spending-watch.js';
import { stoppedByBreakerWords } from '../../wire/policy/breaker.js';
import { coffersNonceTerms } from '../../wire/paywall-nonce.js';
import { iso } from '../../wire/views.js';

/**
 * Holds an agent's payment for the owner: checked as a reservation checks (nothing is held that could
 * not be paid now), then the held row and its approval in one write. Answers what the agent waits for.
 */
export async function holdPayment(
  ctx: EngineContext,
  principal: Principal & { kind: 'agent' },
  agent: AgentRecord,
  payment: PaymentToMove,
  reason: HoldReason,
  /** What the payment buys beyond the call it pays for (an image: carried out on approval). */
  purchase?: Record<string, unknown>,
): Promise<AwaitingApproval> {
  // Terms that ended already: a request no yes could make worth paying is never put to the owner.
  refuse(endedNonceRefusal(payment, ctx.clock.now(), 'held'));
  let reading: PolicyReading | null = null;
  const awaiting = await withWalletReading(ctx, agent, payment.rail, payment.amount, async (walletRead, refusedInReservation) => {
    const wallet = await walletRead();
    return ctx.store.transaction((): AwaitingApproval => {
      // Its key taken since the door looked (the same request at the same moment): that one's.
      const underKey = payment.key === null ? null : heldUnderKey(ctx, agent, payment.key);
      if (underKey !== null) return underKey;
      const checked = judgeInReservation(ctx, agent, payment, wallet, null);
      if (checked.refusal !== null) refusedInReservation();
      refuse(checked.refusal);
      reading = checked.reading;
      ctx.store.insertTransfer({
        kind: 'payment',
        ...paymentFields(agent, payment),
        rail: payment.rail,
        status: 'held',
        txSignature: null,
        txWire: null,
        lifetimeEnd: null,
        errorCode: null,
        idempotencyKey: payment.key?.key ?? null,
        requestHash: payment.key?.requestHash ?? null,
        createdAt: ctx.clock.now(),
        settledAt: null,
        payerSignature: null,
        x402Header: null,
      });
      const request = {
        service: payment.serviceId,
        amount: formatUsdc(payment.amount),
        recipient: payment.recipient,
        rail: payment.rail,
        description: payment.description,
        reason: { code: reason.code, message: reason.message },
        // What the payment answers, so a caller picking it up by its id can tell it is its own:
        // an x402 purchase's URL, or the nonce of the seller's 402 a /pay carries.
        ...(payment.resource === null ? {} : { resource: payment.resource }),
        ...(payment.nonce === null || payment.resource !== null ? {} : { nonce: payment.nonce }),
        ...(purchase === undefined ? {} : { purchase }),
      };
      return requestApproval(ctx, principal, 'payment', agent.agentId, request, {
        paymentId: payment.id,
        usefulUntil: usefulUntil(payment),
      });
    });
  });
  // Held, it counts: it may take a budget past a warning share, or trip the breaker.
  const stopped = reading === null ? null : watchPayment(ctx, agent, budgetedOf(payment), reading);
  // The breaker it tripped withdrew every request of the agent's, this one too: nothing waits, and
  // the agent hears so rather than an approval no one can give. Its code is the one a retry under
  // its key answers (the held row failed so), and no refusal: it is in the history as withdrawn.
  if (stopped !== null) {
    throw new CofferError(
      'approval_withdrawn',
      `this payment was held for the owner (${reason.message}), then ${stoppedByBreakerWords(agent.agentId, stopped)}; the request was withdrawn and nothing was paid`,
    );
  }
  return awaiting;
}

/**
 * The owner said yes: the held payment is signed and reserved as a payment made now (the policy, the
 * kill switch and the balance judged at this moment, the hold itself no longer counted), then sent.
 * Answers the payment as /pay does (an x402 purchase: the yes, paid when the agent buys with fresh
 * terms before the request's expiry, see x402-pay.ts). Not paid (refused, or the chain could not be asked before
 * anything was sent): the hold fails with the reason's code and the refusal is thrown. Once reserved,
 * the payment is the lifecycle's: pending or landed, the approval answers it as it stands.
 */
export async function payHeld(
  ctx: EngineContext,
  owner: Principal,
  approval: ApprovalRecord,
  /** What was read of it before the yes: paid already by the Coffer before a restore, or not (paid-before-restore.ts). */
  look: HeldPaymentLook | null,
  /** Written in the payment's commit (an image's task). */
  alsoWrite?: (payment: PaymentRecord) => void,
): Promise<Record<string, unknown>> {
  const held = approval.paymentId === null ? null : ctx.store.getPayment(approval.paymentId);
  // Security: no door check here. A kill withdraws the agent's held payments (no longer `held`,
  // refused just below); one stopped after this check is refused by the reservation, which judges the
  // kill switch after signing and before anything is sent (movePayment).
  if (held === null || held.status !== 'held') {
    throw new CofferError('internal', `approval ${approval.id} has no payment held for it`);
  }
  const agent = getAgentOrThrow(ctx, held.owner, held.agentId);
  // An x402 purchase is paid with the seller's terms as they stand when the agent comes back with this
  // approval (x402-pay.ts underApproval): the yes is recorded, the hold stays until then.
  if (held.protocol === 'x402') {
    return {
      paymentId: held.id,
      protocol: 'x402',
      status: 'approved',
      amount: formatUsdc(held.amount),
      recipient: held.recipient,
      resource: held.resource,
      next: 'the agent buys it now with fresh terms, sending this approvalId; paid once',
    };
  }
  const payment: PaymentToMove = {
    serviceId: held.serviceId,
    service: ctx.store.getService(held.serviceId),
    recipient: held.recipient,
    amount: held.amount,
    listed: null,
    key: keyOfPayment(held),
    sentBy: 'coffer',
    rail: held.rail,
    id: held.id,
    memo: held.memo,
    nonce: held.memo === held.id ? null : held.memo,
    description: held.description,
    resource: null,
    approved: true,
    alsoWrite,
  };
  try {
    // Paid already by the Coffer this ledger's backup file came from (its yes given there): recorded, not paid again.
    if (look?.paidBy) return await paymentResult(ctx, recordPaidBeforeRestore(ctx, held, look.paidBy, alsoWrite), agent);
    refuse(endedNonceRefusal(payment, ctx.clock.now(), 'approved'));
    const moved = await movePayment(ctx, owner, agent, payment, () => signCofferPayment(ctx, agent, payment));
    const row = 'row' in moved ? moved.row : moved.earlier;
    return { ...(await paymentResult(ctx, row, agent)), ...agentStoppedField(moved) };
  } catch (error) {
    const now = ctx.store.getPayment(held.id);
    if (now?.status === 'held') {
      ctx.store.transaction(() => ctx.store.failHeldPayment(held.id, isCofferError(error) ? error.code : 'internal', ctx.clock.now()));
    } else if (now !== null && now.status !== 'failed') {
      // Reserved and on its way (its fate is reconciliation's): the approval was carried out.
      return { ...(await paymentResult(ctx, now, agent)) };
    }
    throw error;
  }
}

/**
 * When the owner's yes to a held payment stops buying anything: the Coffer paywall's nonce it pays
 * for ends (its paywall refuses a receipt for it after); null where nothing says (the request's day):
 * a memo not written as a Coffer nonce, or one naming another amount, is no nonce of this payment.
 * An x402 purchase is bought with the seller's terms as they stand at the yes, so its day is its own.
 */
const usefulUntil = (payment: Pick<PaymentToMove, 'sentBy' | 'nonce' | 'amount'>): number | null => {
  const terms = payment.sentBy === 'coffer' && payment.nonce !== null ? coffersNonceTerms(payment.nonce) : null;
  return terms !== null && terms.amount === payment.amount ? terms.expiresAt : null;
};

/**
 * A Coffer paywall's nonce past the end it says, as the payment would be held or at the owner's yes:
 * the paywall refuses a receipt for it (receipt_expired), so a payment now would move the money and
 * buy nothing. Its request expires at that end (usefulUntil); at the yes this guards a request held
 * before that rule, and the moment between the end and the sweep that expires it. (The end is read
 * unchecked: a nonce made up to say a later one is paid as before, and its paywall refuses it.)
 */
export function endedNonceRefusal(
  payment: Pick<PaymentToMove, 'sentBy' | 'nonce' | 'amount'>,
  now: number,
  when: 'held' | 'approved',
): CofferError | null {
  const ends = usefulUntil(payment);
  if (ends === null || now <= ends) return null;
  return new CofferError(
    'nonce_expired',
    when === 'held'
      ? `the seller's terms (its nonce) ended at ${iso(ends)}: a payment now would buy nothing, so nothing was held or paid; ask the seller again for fresh terms`
      : `the seller's terms (its nonce) ended at ${iso(ends)}, before the owner's yes: nothing was paid, as a payment now would buy nothing; the agent's next request to the seller is asked afresh`,
  );
}

/**
 * Inside the write that would hold a payment: what answers it where its Idempotency-Key was taken
 * since the door looked (the same request at the same moment): the approval the payment held under
 * it waits for. Another request under the key is refused; one under it that is no longer held (paid
 * or ended meanwhile) is asked again, when the door answers it as any retry; one that never landed
 * leaves the key free.
 */
function heldUnderKey(ctx: EngineContext, agent: AgentRecord, key: MoveKey<'payment'>): AwaitingApproval | null {
  // One that never landed (dropped) leaves the key a first try, as moveMoney takes it.
  const first = takenUnderKey(ctx, agent.owner, key);
  if (first === null) return null;
  checkSameRequest(first, key);
  if (first.status === 'held') return awaitingOf(ctx, first);
  throw new CofferError('chain_unavailable', 'the request made with this Idempotency-Key meanwhile was decided; ask again', {
    retryAfterSeconds: 1,
  });
}

/** A retry under a held payment's Idempotency-Key, while it waits: the approval it waits for. */
export function awaitingOf(ctx: EngineContext, held: PaymentRecord): AwaitingApproval {
  const approval = ctx.store.findApprovalByPayment(held.id);
  if (approval === null) throw new CofferError('internal', `payment ${held.id} is held with no approval`);
  return { kind: 'awaiting_approval', approval: approvalView(approval) };
}

/**
 * An approved payment whose outcome was never recorded (the process stopped while paying it), after
 * reconciliation settled what reached the chain: paid (pending or confirmed: the approval answers it),
 * or not (still held: it fails, nothing moved; failed: it says why).
 */
export async function interruptedPayment(
  ctx: EngineContext,
  approval: ApprovalRecord,
): Promise<{ status: 'approved' | 'failed'; result: Record<string, unknown> | null; error: { code: string; message: string } | null }> {
  const row = approval.paymentId === null ? null : ctx.store.getPayment(approval.paymentId);
  if (row?.status === 'pending' || row?.status === 'confirmed') {
    const agent = getAgentOrThrow(ctx, row.owner, row.agentId);
    return { status: 'approved', result: { ...(await paymentResult(ctx, row, agent)) }, error: null };
  }
  if (row?.status === 'held') ctx.store.failHeldPayment(row.id, HOLD_ENDINGS.interrupted, ctx.clock.now());
  const why = row?.status === 'failed' ? ` (${row.errorCode ?? 'failed'})` : '';
  return {
    status: 'failed',
    result: null,
    error: { code: HOLD_ENDINGS.interrupted, message: `Coffer stopped while paying this; it was not paid${why}: the agent may ask again.` },
  };
}
