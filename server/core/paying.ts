/**
 * What every payment shares, whatever its door (/pay, x402, generation, a held payment the owner
 * approved): its opening checks, the reservation, the move through the transfer lifecycle, and the
 * receipt it answers with. The doors (payments.ts, x402-payments.ts, held-payments.ts) say what is paid.
 */
import { CofferError, refuse, type Refusal } from '../wire/errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, type Principal } from './auth.js';
import { DAY_MS, type EngineContext } from './context.js';
import { getAgentOrThrow, stoppedRefusal } from './agent-lookup.js';
import { archivedRecipientRefusal, balanceRefusal, noncePaidRefusal, priceCapRefusal, sameX402Refusal } from './payment-refusals.js';
import { hashRequest } from './ids.js';
import { formatUsdc } from '../wire/money.js';
import bs58 from 'bs58';
import { encodeReceipt, receiptProofMessage } from './receipts.js';
import { earlierAttempt, moveMoney, reservedWith, type MoveKey, type Moved, type SignedTransfer } from './transfer-lifecycle.js';
import type { AgentRecord, PaymentRecord, ServiceRecord } from './ports/store.js';
import type { Policy } from '../wire/policy/policy.js';
import { iso } from '../wire/views.js';
import { firstRefusal } from './policy.js';
import { budgetRefusal, type BudgetedPayment } from './budgets.js';
import { watchPayment, type PolicyReading } from './spending-watch.js';
import { usagesFor } from './budget-usage.js';

export async function paymentResult(ctx: EngineContext, payment: PaymentRecord, agent: AgentRecord) {
  const claims = {
    v: 1 as const,
    network: ctx.chain.network,
    txSignature: payment.txSignature ?? '',
    amount: formatUsdc(payment.amount),
    currency: 'USDC' as const,
    timestamp: iso(payment.createdAt),
    recipient: payment.recipient,
    payer: agent.walletAddress,
    paymentId: payment.id,
    memo: payment.memo,
  };
  // Ed25519 is deterministic: a replayed payment gets the very same receipt.
  const proof = bs58.encode(await ctx.vault.signMessage(agent.walletAddress, receiptProofMessage(claims)));
  const receipt = { ...claims, proof };
  return {
    paymentId: payment.id,
    txSignature: receipt.txSignature,
    amount: receipt.amount,
    currency: receipt.currency,
    status: payment.status,
    timestamp: receipt.timestamp,
    xPaymentHeader: encodeReceipt(receipt),
    service: payment.serviceId,
    recipient: payment.recipient,
    payer: agent.walletAddress,
    memo: payment.memo,
    network: ctx.chain.network,
  };
}
export type PaymentResult = Awaited<ReturnType<typeof paymentResult>>;

/**
 * Who pays: the agent the principal may pay for. An agent pays within its policy; a dashboard
 * session paying from an agent's wallet is the owner, and fresh.
 */
export function payingAgent(ctx: EngineContext, principal: Principal, agentId: string): AgentRecord {
  requireAgentScope(principal, agentId);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  return getAgentOrThrow(ctx, principal.owner, agentId);
}

/** A request's Idempotency-Key, with the hash of what it asks (a different request under it is 409). */
export const keyOf = (agent: AgentRecord, idempotencyKey: string | null, request: unknown[]): MoveKey<'payment'> | null =>
  idempotencyKey === null ? null : { kinds: ['payment'], agentId: agent.agentId, key: idempotencyKey, requestHash: hashRequest(request) };

/** What an agent asks to pay, through any door (/pay, x402): what its opening checks. */
export interface PaymentAsked {
  serviceId: string;
  service: ServiceRecord | null;
  /** Unknown until the door finds it (a service outside the registry names its own). */
  recipient: string | undefined;
  amount: bigint;
  /** The price that caps it, when the registry lists one. */
  listed: bigint | null;
  key: MoveKey<'payment'> | null;
  sentBy: 'coffer' | 'seller';
}

/**
 * The opening every payment shares, whatever its door: the earlier payment under its
 * Idempotency-Key answers a retry (whatever happened since, even a kill); then, in API.md's check
 * order, before anything about the recipient or the chain (the balance read included), the kill
 * switch, the policy and the registry's price cap: an agent is told "stopped", "not allowed" or "over
 * budget" whatever it aimed at, and a refused retry loop costs no RPC call. The reservation checks
 * again, atomically, since other payments may land in between. Returns the earlier payment, or the
 * policy the payment was judged by.
 */
export async function openPayment(
  ctx: EngineContext,
  agent: AgentRecord,
  asked: PaymentAsked,
): Promise<{ earlier: PaymentRecord } | { policy: Policy }> {
  const earlier = asked.key === null ? null : await earlierAttempt(ctx, agent.owner, asked.key, asked.sentBy);
  if (earlier !== null) return { earlier };
  refuse(stoppedRefusal(agent));
  const { refusal, reading } = judgePolicy(ctx, agent, asked);
  refuse(refusal ?? priceCapRefusal(asked.service?.id ?? asked.serviceId, asked.listed, asked.amount));
  // The policy it was judged by also says whether the owner is asked first (holds.ts).
  return { policy: reading.policy };
}

/** A payment checked and ready to move: everything its row holds besides its signed transaction. */
export interface PaymentToMove extends PaymentAsked {
  id: string;
  recipient: string;
  memo: string;
  /** The paid API's nonce: paid once per recipient. Null: none (the memo is then the payment's id). */
  nonce: string | null;
  description: string;
  resource: string | null;
  alsoWrite?: (payment: PaymentRecord) => void;
  /**
   * The owner said yes to this held payment (held-payments.ts): the reservation takes the hold out
   * before judging it, so it is judged as made now, once; and the cooldown does not apply (the owner's
   * yes is not the agent's pace).
   */
  approved?: boolean;
}

/** A payment Coffer signs (and sends): from the agent's wallet, the treasury paying the fee (and a registry service's account). */
export const signCofferPayment = async (ctx: EngineContext, agent: AgentRecord, payment: PaymentToMove): Promise<SignedPayment> => ({
  ...(await ctx.chain.prepareTransfer({
    from: agent.walletAddress,
    to: payment.recipient,
    amount: payment.amount,
    memo: payment.memo,
    reference: payment.id,
    feePayer: agent.owner,
    // The treasury pays the rent of a new token account only for registry services: otherwise an agent
    // could spend the treasury's SOL by paying dust to fresh addresses.
    createRecipientAccount: payment.service !== null,
  })),
  payerSignature: null,
  x402Header: null,
});

/** A payment's signed transaction, with what x402 hands out (null for a payment Coffer sends). */
export type SignedPayment = SignedTransfer & Pick<PaymentRecord, 'payerSignature' | 'x402Header'>;

/** The payment moved through the transfer lifecycle: the wallet's balance read, then signed, reserved and sent. */
export async function movePayment(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  payment: PaymentToMove,
  sign: () => Promise<SignedPayment>,
): Promise<Moved<'payment'>> {
  // The balance is read before the reservation (the chain port is async; pending payments are
  // subtracted inside it), while the transaction is signed: neither waits for the other.
  let balance = 0n;
  let reading: PolicyReading | null = null;
  return moveMoney(ctx, agent.owner, {
    kind: 'payment',
    actor: actorOf(principal),
    // A held payment's key already names it (its row is taken out and written again): not looked up again.
    key: payment.approved === true ? null : payment.key,
    sentBy: payment.sentBy,
    sign: async () => {
      // Signing first: an x402 purchase's blockhash is the read it waits for, asked before the balance.
      const [signed, read] = await Promise.all([sign(), ctx.chain.usdcBalance(agent.walletAddress)]);
      balance = read;
      return signed;
    },
    reserve: (signed) => {
      const reserved = reservePayment(ctx, agent, payment, balance, signed);
      reading = reserved.reading;
      return reserved.row;
    },
    alsoWrite: payment.alsoWrite,
    // A payment that counts may take a budget past a warning share, or trip the breaker.
    counted: () => {
      if (reading !== null) watchPayment(ctx, agent, budgetedOf(payment), reading);
    },
  });
}

/**
 * The reservation, inside the lifecycle's one write: the checks (reservationRefusal), then the
 * pending row. Concurrent payments therefore cannot pass a budget.
 */
function reservePayment(
  ctx: EngineContext,
  agent: AgentRecord,
  payment: PaymentToMove,
  balance: bigint,
  signed: SignedPayment,
): { row: PaymentRecord; reading: PolicyReading | null } {
  if (payment.approved === true && !ctx.store.releaseHeldPayment(payment.id)) {
    throw new CofferError('internal', `payment ${payment.id} is no longer held for the owner`);
  }
  const { refusal, reading } = reservationRefusal(ctx, agent, payment, balance, signed.payerSignature);
  refuse(refusal);
  return {
    row: {
      kind: 'payment',
      ...paymentFields(agent, payment),
      ...reservedWith(ctx, signed, payment.key),
      payerSignature: signed.payerSignature,
      x402Header: signed.x402Header,
    },
    reading,
  };
}

/** What a payment's row says of what was paid, whatever its state. */
export const paymentFields = (agent: AgentRecord, payment: PaymentToMove) => ({
  id: payment.id,
  owner: agent.owner,
  agentId: agent.agentId,
  serviceId: payment.serviceId,
  serviceName: payment.service?.name ?? payment.serviceId,
  recipient: payment.recipient,
  amount: payment.amount,
  memo: payment.memo,
  description: payment.description,
  refundedAt: null,
  refundTxSignature: null,
  protocol: payment.sentBy === 'seller' ? ('x402' as const) : ('coffer' as const),
  resource: payment.resource,
});

/**
 * A payment's checks inside the write that records it (reserved, or held for the owner): the kill
 * switch and the policy checked again (other payments may have landed since the first look), the
 * recipient not archived, the balance net of pending payments and returns, the nonce (and an x402
 * transaction) not paid before. In the order they are said; each reads what it judges only when the
 * ones before allowed. The first refusal, and what the policy was judged against.
 */
export function reservationRefusal(
  ctx: EngineContext,
  agent: AgentRecord,
  payment: PaymentToMove,
  balance: bigint,
  payerSignature: string | null,
): { refusal: Refusal; reading: PolicyReading | null } {
  const { owner, agentId } = agent;
  const { amount, recipient } = payment;
  let reading: PolicyReading | null = null;
  const judged = () => {
    const judgement = judgePolicy(ctx, agent, payment);
    reading = judgement.reading;
    return judgement.refusal;
  };
  const refusal =
    stoppedRefusal(getAgentOrThrow(ctx, owner, agentId)) ??
    judged() ??
    // Here, in the reservation, so an archive racing this payment is seen either way.
    archivedRecipientRefusal(recipient, ctx.store.findArchivedAgentByWallet(recipient)) ??
    // What the wallet has promised away: payments, and returns to the treasury, not settled yet.
    balanceRefusal(balance - ctx.store.pendingPaymentsTotal(owner, agentId) - ctx.store.pendingReturnsTotal(owner, agentId), amount) ??
    noncePaidRefusal(payment.nonce === null ? null : ctx.store.findLivePaymentByMemo(owner, agentId, recipient, payment.nonce)) ??
    sameX402Refusal(payerSignature === null ? null : ctx.store.findLivePaymentByPayerSignature(payerSignature));
  return { refusal, reading };
}

/** A payment as the policy and its budgets see it. */
export const budgetedOf = (asked: PaymentAsked): BudgetedPayment => ({
  serviceId: asked.serviceId,
  inRegistry: asked.service !== null,
  recipient: asked.recipient,
  amount: asked.amount,
});

/**
 * The agent's policy on a payment (policy.ts decides, in API.md's order): its first refusal, or null;
 * and what it was judged against (the policy, what its budgets had spent), for what follows the
 * payment (spending-watch.ts).
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
  // agent_spend_* tables in server/store/schema.ts).
  const policy = ctx.store.getPolicy(owner, agentId);
  const ask = budgetedOf(asked);
  const spentInWindow = ctx.store.spentSince(owner, agentId, now - DAY_MS);
  const lastPaymentAt = asked.approved === true ? null : ctx.store.lastPaymentAt(owner, agentId);
  const refused = firstRefusal(policy, { now, lastPaymentAt, spentInWindow }, ask);
  const usages = refused === null ? usagesFor(ctx, owner, agentId, policy, ask) : [];
  return { refusal: refused ?? budgetRefusal(usages, ask, now), reading: { now, policy, spentInWindow, usages } };
}
