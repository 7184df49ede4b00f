/**
 * How a payment is judged, whatever its door (/pay, x402, generation, a held payment the owner
 * approved): every check, in the one order API.md's pay and x402 sections describe. The first check
 * that refuses is the one said. It is judged twice (a held payment the owner approved, once: in its
 * reservation, as a payment made now, its hold no longer counted):
 *
 *   at the door (judgeAtDoor), before anything is signed or the balance read:
 *     the kill switch         agent_suspended
 *     the policy              policy_expired, service_not_allowed, max_per_payment_exceeded,
 *                             cooldown_active, daily_budget_exceeded (policy/rules.ts), budget_exceeded (policy/budgets.ts)
 *     the registry's price    price_above_registry
 *     the door's recipient    the door's own (/pay: price_below_registry, amount_below_terms, recipient_mismatch,
 *                             service_not_found, recipient_not_ready)
 *     then the owner's yes    an agent's payment its policy asks about is held (policy/holds.ts)
 *   in the reservation (judgeInReservation), inside the one write that records it:
 *     the kill switch and the policy again (other payments may have landed since the first look)
 *     the recipient           recipient_archived
 *     the balance             insufficient_funds (net of pending payments and returns)
 *     the nonce               nonce_already_paid (an x402 offer's: any entry's memo, payable now or not, on either rail)
 *     an x402 transaction     handed out once
 *
 * At the door nothing about the recipient or the chain is read before the policy allowed: an agent is
 * told "stopped", "not allowed" or "over budget" whatever it aimed at, and a refused retry loop costs
 * no RPC call. In the reservation each check reads what it judges only when the ones before allowed.
 *
 * An x402 offer's entries are also looked at before one is chosen (allowedAtDoor: the policy and the
 * price, read only); the one chosen is then judged as above.
 */
import { timeZoneOf } from '../settings.js';
import { refuse, type Refusal } from '../../wire/errors.js';
import type { Principal } from '../auth.js';
import { type BalanceReading, type EngineContext } from '../context.js';
import { dailyWindow } from '../../wire/policy/windows.js';
import { freeBalance } from '../wallet-balance.js';
import { getAgentOrThrow, stoppedRefusal } from '../agent-lookup.js';
import { walletOfRecipient } from '../rails.js';
import { archivedRecipientRefusal, balanceRefusal, noncePaidRefusal, priceCapRefusal, sameX402Refusal } from './refusals.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import { firstRefusal, type PaymentAsk } from '../policy/rules.js';
import { budgetRefusal } from '../policy/budgets.js';
import { usagesFor } from '../policy/budget-usage.js';
import { holdReason, type HoldReason } from '../policy/holds.js';
import type { PolicyReading } from '../policy/spending-watch.js';
import type { PaidMemo, PaymentAsked, PaymentToMove } from './payment.js';

/**
 * The door's judgement: refused (thrown), or allowed, and then whether the owner is asked first. An
 * agent's payment may be held once every hard limit allowed it; the owner's own payments never wait.
 */
export async function judgeAtDoor(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  asked: PaymentAsked,
  /** The door's own checks of who is paid, once the policy and the price allowed. */
  recipientRefusal: () => Promise<Refusal> = async () => null,
): Promise<{ hold: HoldReason | null }> {
  const policy = policyOnce(ctx, agent, asked);
  const paidThere = (recipient: string) => ctx.store.servicesPaidTo(recipient).map((service) => service.id);
  refuse(stoppedRefusal(agent) ?? policy.refusal() ?? priceCapRefusal(asked, paidThere) ?? (await recipientRefusal()));
  const { recipient } = asked;
  const reading = policy.reading();
  if (principal.kind !== 'agent' || recipient === undefined || reading === null) return { hold: null };
  return { hold: holdReason(reading.policy, asked.amount, () => ctx.store.hasPaidRecipient(agent.owner, agent.agentId, recipient)) };
}

/**
 * The reservation's judgement, inside the write that records the payment (reserved, or held for the
 * owner): its first refusal, and what the policy was judged against (for policy/spending-watch.ts).
 */
export function judgeInReservation(
  ctx: EngineContext,
  agent: AgentRecord,
  payment: PaymentToMove,
  wallet: BalanceReading,
  payerSignature: string | null,
): { refusal: Refusal; reading: PolicyReading | null } {
  const { owner, agentId } = agent;
  const { amount, recipient } = payment;
  const policy = policyOnce(ctx, agent, payment);
  const refusal =
    stoppedRefusal(getAgentOrThrow(ctx, owner, agentId)) ??
    policy.refusal() ??
    // Here, in the reservation, so an archive racing this payment is seen either way.
    archivedRecipientRefusal(recipient, ctx.store.findArchivedAgentByWallet(walletOfRecipient(ctx, recipient, payment.rail))) ??
    // The wallet's last reading less what left it since and what it has promised away on the
    // payment's rail (payments, and returns to the treasury, not settled yet).
    balanceRefusal(freeBalance(ctx, agent, payment.rail, wallet), amount, payment.rail, payment.alsoShort) ??
    noncePaidRefusal(
      paidUnderMemo(ctx, agent, payment.challengeMemos ?? (payment.nonce === null ? [] : [{ recipient, memo: payment.nonce }])),
    ) ??
    sameX402Refusal(payerSignature === null ? null : ctx.store.findLivePaymentByPayerSignature(payerSignature));
  return { refusal, reading: policy.reading() };
}

/** This agent's live payment under one of these memos, to its recipient; null where none. */
export function paidUnderMemo(ctx: EngineContext, agent: AgentRecord, memos: readonly PaidMemo[]): PaymentRecord | null {
  for (const { recipient, memo } of memos) {
    const paid = ctx.store.findLivePaymentByMemo(agent.owner, agent.agentId, recipient, memo);
    if (paid !== null) return paid;
  }
  return null;
}

/**
 * Whether the policy and the registry's price allow a payment as asked, the kill switch aside: how an
 * x402 offer's entries are told apart before one is chosen (the one chosen is then judged as every
 * payment is). Reads what the door's judgement reads; writes nothing.
 */
export const allowedAtDoor = (ctx: EngineContext, agent: AgentRecord, asked: PaymentAsked): boolean =>
  (policyOnce(ctx, agent, asked).refusal() ?? priceCapRefusal(asked)) === null;

/** A payment as the policy and its budgets see it. */
export const budgetedOf = (asked: PaymentAsked): PaymentAsk => ({
  serviceId: asked.serviceId,
  inRegistry: asked.service !== null,
  recipient: asked.recipient,
  amount: asked.amount,
});

/** The policy's judgement, made when first asked for (a stopped agent's payment reads none of it). */
function policyOnce(ctx: EngineContext, agent: AgentRecord, asked: PaymentAsked & Pick<PaymentToMove, 'approved'>) {
  let judged: { refusal: Refusal; reading: PolicyReading } | null = null;
  return {
    refusal: (): Refusal => (judged ??= judgePolicy(ctx, agent, asked)).refusal,
    /** What it was judged against; null when it was never asked (an earlier check refused). */
    reading: (): PolicyReading | null => judged?.reading ?? null,
  };
}

/**
 * The agent's policy on a payment (policy/rules.ts, then the budgets): its first refusal, or null; and what
 * it was judged against (the policy, what its budgets had spent), for what follows the payment
 * (policy/spending-watch.ts).
 */
function judgePolicy(
  ctx: EngineContext,
  agent: AgentRecord,
  asked: PaymentAsked & Pick<PaymentToMove, 'approved'>,
): { refusal: Refusal; reading: PolicyReading } {
  const { owner, agentId } = agent;
  const now = ctx.clock.now();
  // What the agent spent is never summed from its history here: the ledger keeps the figures in the
  // same write as each payment's insert, settlement and refund (the payments_spend_* triggers and
  // agent_spend_* tables in server/store/current-schema.sql).
  const policy = ctx.store.getPolicy(owner, agentId);
  const ask = budgetedOf(asked);
  const spentInWindow = ctx.store.spentSince(owner, agentId, dailyWindow(now).after);
  // The owner's yes to a held payment is not the agent's pace: the cooldown does not apply to it.
  const lastPaymentAt = asked.approved === true ? null : ctx.store.lastPaymentAt(owner, agentId);
  const timeZone = () => timeZoneOf(ctx);
  let refused = firstRefusal(policy, { now, lastPaymentAt, spentInWindow, timeZone }, ask);
  // Over the daily budget where some of it waits for the owner's yes: said apart (counted, not paid),
  // read only on this refusal, off every other payment's path.
  if (refused?.code === 'daily_budget_exceeded') {
    const heldInWindow = ctx.store.heldSince(owner, agentId, dailyWindow(now).after);
    if (heldInWindow > 0n) refused = firstRefusal(policy, { now, lastPaymentAt, spentInWindow, heldInWindow, timeZone }, ask);
  }
  const usages = refused === null ? usagesFor(ctx, owner, agentId, policy, ask) : [];
  // No usages, no budget to pass (and no owner's zone to read for its words).
  const overBudget = usages.length === 0 ? null : budgetRefusal(usages, ask, now, timeZone());
  return { refusal: refused ?? overBudget, reading: { now, policy, spentInWindow, usages } };
}
