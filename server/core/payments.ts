import { CofferError, RepeatedFailure, refuse, type Refusal } from './errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, type Principal } from './auth.js';
import { DAY_MS, type EngineContext } from './context.js';
import { getAgentOrThrow, stoppedRefusal } from './agent-lookup.js';
import {
  archivedRecipientRefusal,
  balanceRefusal,
  buysNoCallRefusal,
  noncePaidRefusal,
  priceCapRefusal,
  sameX402Refusal,
} from './payment-refusals.js';
import { hashRequest, newId } from './ids.js';
import { formatUsdc, parseAmount } from './money.js';
import { getBase58Decoder } from '@solana/kit';
import { encodeReceipt, receiptProofMessage } from './receipts.js';
import { earlierAttempt, moveMoney, reservedWith, type MoveKey, type Moved, type SignedTransfer } from './transfer-lifecycle.js';
import type { AgentRecord, PaymentRecord, ServiceRecord } from './ports/store.js';
import type { PayBody } from './schemas.js';
import { iso, spendRecordView } from './views.js';
import { listedPrice } from './registry.js';
import { firstRefusal } from './policy.js';
import { recordingRefusals } from './refusals.js';
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
  const proof = getBase58Decoder().decode(await ctx.vault.signMessage(agent.walletAddress, receiptProofMessage(claims)));
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

function checkCurrency(currency: string | undefined): void {
  if (currency === undefined || currency === 'USDC') return;
  if (/eth|erc/i.test(currency)) {
    throw new CofferError('unsupported_currency', 'Ethereum USDC is coming soon; only Solana USDC ("USDC") is available now');
  }
  throw new CofferError('unsupported_currency', `unsupported currency "${currency}": only USDC is available`);
}

/** The earlier payment under an Idempotency-Key, answered again: its result, or its failure again. */
function answerEarlier(ctx: EngineContext, earlier: PaymentRecord, agent: AgentRecord): Promise<PaymentResult> {
  if (earlier.status === 'failed') {
    throw new RepeatedFailure(
      earlier.errorCode === 'insufficient_funds' ? 'insufficient_funds' : 'chain_rejected',
      `the payment made with this Idempotency-Key failed (${earlier.errorCode ?? 'unknown'}); no money moved`,
    );
  }
  return paymentResult(ctx, earlier, agent);
}

/** What the engine itself knows about a payment it makes (generation), beyond the request body. */
export interface PaymentContext {
  /** Anything else that makes two requests different (generation: the full prompt). */
  fingerprint?: string;
  /** The listed price of what is bought, when the service's own listing does not say (a model's price). */
  listedPrice?: bigint;
  /** Written in the payment's own commit, right after it (generation: its task), so no crash can leave one without the other. */
  alsoWrite?: (payment: PaymentRecord) => void;
}

export async function pay(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: PayBody,
  idempotencyKey: string | null,
  context: PaymentContext = {},
): Promise<PaymentResult> {
  return recordingRefusals(ctx, principal, agentId, { service: body.service, amount: body.amount }, () =>
    payOrThrow(ctx, principal, agentId, body, idempotencyKey, context),
  );
}

async function payOrThrow(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: PayBody,
  idempotencyKey: string | null,
  context: PaymentContext,
): Promise<PaymentResult> {
  const agent = payingAgent(ctx, principal, agentId);
  checkCurrency(body.currency);
  const amount = parseAmount(body.amount);
  const service = ctx.store.getService(body.service);
  const recipient = service?.payTo ?? body.recipient;
  const asked: PaymentAsked = {
    serviceId: body.service,
    service,
    recipient,
    amount,
    listed: service === null ? null : (context.listedPrice ?? listedPrice(service)),
    key: keyOf(agent, idempotencyKey, [
      body.service,
      amount.toString(),
      body.description ?? '',
      body.recipient ?? null,
      body.nonce ?? null,
      context.fingerprint ?? null,
    ]),
    sentBy: 'coffer',
  };
  const earlier = await openPayment(ctx, agent, asked);
  if (earlier !== null) return answerEarlier(ctx, earlier, agent);
  if (service !== null && body.nonce === undefined) refuse(buysNoCallRefusal(service, amount));
  if (service !== null && body.recipient !== undefined && body.recipient !== service.payTo) {
    throw new CofferError('recipient_mismatch', `service "${service.id}" is paid to ${service.payTo}, not ${body.recipient}`);
  }
  if (recipient === undefined) {
    throw new CofferError('service_not_found', `"${body.service}" is not in the registry; send its recipient address to pay it`);
  }
  // The treasury pays the rent of a new token account only for registry services: otherwise an agent
  // could spend the treasury's SOL by paying dust to fresh addresses.
  if (service === null && !(await ctx.chain.hasUsdcAccount(recipient))) {
    throw new CofferError(
      'recipient_not_ready',
      `${recipient} has no USDC account on ${ctx.chain.network}; the recipient must open one before it can be paid`,
    );
  }
  const id = newId('pay');
  // The paid API's nonce goes on chain so it can match the payment to its 402.
  const memo = body.nonce ?? id;
  const moved = await movePayment(
    ctx,
    principal,
    agent,
    {
      ...asked,
      recipient,
      id,
      memo,
      nonce: body.nonce ?? null,
      description: body.description ?? '',
      resource: null,
      alsoWrite: context.alsoWrite,
    },
    async () => ({
      ...(await ctx.chain.prepareTransfer({
        from: agent.walletAddress,
        to: recipient,
        amount,
        memo,
        reference: id,
        feePayer: agent.owner,
        createRecipientAccount: service !== null,
      })),
      payerSignature: null,
      x402Header: null,
    }),
  );
  return 'earlier' in moved ? answerEarlier(ctx, moved.earlier, agent) : paymentResult(ctx, moved.row, agent);
}

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
 * again, atomically, since other payments may land in between. Returns the earlier payment, or null.
 */
export async function openPayment(ctx: EngineContext, agent: AgentRecord, asked: PaymentAsked): Promise<PaymentRecord | null> {
  const earlier = asked.key === null ? null : await earlierAttempt(ctx, agent.owner, asked.key, asked.sentBy);
  if (earlier !== null) return earlier;
  refuse(
    stoppedRefusal(agent) ??
      judgePolicy(ctx, agent, asked).refusal ??
      priceCapRefusal(asked.service?.id ?? asked.serviceId, asked.listed, asked.amount),
  );
  return null;
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
}

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
  // Read before the reservation (the chain port is async); pending payments are subtracted inside it.
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  let reading: PolicyReading | null = null;
  return moveMoney(ctx, agent.owner, {
    kind: 'payment',
    actor: actorOf(principal),
    key: payment.key,
    sentBy: payment.sentBy,
    sign,
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
 * The reservation, inside the lifecycle's one write: the kill switch and the policy checked again
 * (other payments may have landed since the first look), the recipient not archived, the balance net
 * of pending payments and returns, the nonce (and an x402 transaction) not paid before; then the
 * pending row. Concurrent payments therefore cannot pass a budget.
 */
function reservePayment(
  ctx: EngineContext,
  agent: AgentRecord,
  payment: PaymentToMove,
  balance: bigint,
  signed: SignedPayment,
): { row: PaymentRecord; reading: PolicyReading | null } {
  const { owner, agentId } = agent;
  const { amount, recipient } = payment;
  let reading: PolicyReading | null = null;
  const judged = () => {
    const judgement = judgePolicy(ctx, agent, payment);
    reading = judgement.reading;
    return judgement.refusal;
  };
  // In the order they are said; each reads what it judges only when the ones before allowed.
  refuse(
    stoppedRefusal(getAgentOrThrow(ctx, owner, agentId)) ??
      judged() ??
      // Here, in the reservation, so an archive racing this payment is seen either way.
      archivedRecipientRefusal(recipient, ctx.store.findArchivedAgentByWallet(recipient)) ??
      // What the wallet has promised away: payments, and returns to the treasury, not settled yet.
      balanceRefusal(balance - ctx.store.pendingPaymentsTotal(owner, agentId) - ctx.store.pendingReturnsTotal(owner, agentId), amount) ??
      noncePaidRefusal(payment.nonce === null ? null : ctx.store.findLivePaymentByMemo(owner, agentId, recipient, payment.nonce)) ??
      sameX402Refusal(signed.payerSignature === null ? null : ctx.store.findLivePaymentByPayerSignature(signed.payerSignature)),
  );
  const row: PaymentRecord = {
    kind: 'payment',
    id: payment.id,
    owner,
    agentId,
    serviceId: payment.serviceId,
    serviceName: payment.service?.name ?? payment.serviceId,
    recipient,
    amount,
    memo: payment.memo,
    description: payment.description,
    ...reservedWith(ctx, signed, payment.key),
    payerSignature: signed.payerSignature,
    x402Header: signed.x402Header,
    refundedAt: null,
    refundTxSignature: null,
    protocol: payment.sentBy === 'seller' ? 'x402' : 'coffer',
    resource: payment.resource,
  };
  return { row, reading };
}

/** A payment as the policy and its budgets see it. */
const budgetedOf = (asked: PaymentAsked): BudgetedPayment => ({
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
function judgePolicy(ctx: EngineContext, agent: AgentRecord, asked: PaymentAsked): { refusal: Refusal; reading: PolicyReading } {
  const { owner, agentId } = agent;
  const now = ctx.clock.now();
  // What the agent spent is never summed from its history here: the ledger keeps the figures in the
  // same write as each payment's insert, settlement and refund (the payments_spend_* triggers and
  // agent_spend_* tables in server/store/schema.ts).
  const policy = ctx.store.getPolicy(owner, agentId);
  const ask = budgetedOf(asked);
  const spentInWindow = ctx.store.spentSince(owner, agentId, now - DAY_MS);
  const refused = firstRefusal(policy, { now, lastPaymentAt: ctx.store.lastPaymentAt(owner, agentId), spentInWindow }, ask);
  const usages = refused === null ? usagesFor(ctx, owner, agentId, policy, ask) : [];
  return { refusal: refused ?? budgetRefusal(usages, ask, now), reading: { now, policy, spentInWindow, usages } };
}

export const SPEND_HISTORY_DEFAULT_LIMIT = 20;

export function spendHistory(ctx: EngineContext, principal: Principal, agentId: string, limit = SPEND_HISTORY_DEFAULT_LIMIT) {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return { payments: ctx.store.listPayments(principal.owner, agentId, limit).map(spendRecordView) };
}
