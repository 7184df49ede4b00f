import { CofferError } from './errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, type Principal } from './auth.js';
import { DAY_MS, type EngineContext } from './context.js';
import { getAgentOrThrow, refuseStopped } from './agent-lookup.js';
import { hashRequest, newId } from './ids.js';
import { formatUsdc, parseAmount } from './money.js';
import { getBase58Decoder } from '@solana/kit';
import { encodeReceipt, receiptProofMessage } from './receipts.js';
import { NOT_SENT, UNSENT, neverSent, outcomeOfRace, prepareUnreserved, replayOutcome, reserveAndSend } from './transfers.js';
import type { AgentRecord, PaymentRecord, ServiceRecord } from './ports/store.js';
import type { PreparedTransfer } from './ports/chain.js';
import type { PayBody } from './schemas.js';
import { iso, spendRecordView } from './views.js';
import { listedPrice } from './registry.js';
import { firstRefusal } from './policy.js';
import { recordingRefusals } from './refusals.js';

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

/**
 * The outcome of an earlier request with the same Idempotency-Key: its result, or its error again; or
 * NOT_SENT when that attempt never reached the chain, so the retry is paid as a first try.
 */
async function replay(
  ctx: EngineContext,
  first: PaymentRecord,
  requestHash: string,
  agent: AgentRecord,
): Promise<PaymentResult | typeof NOT_SENT> {
  const settled = await replayOutcome(ctx, first, requestHash, (id) => ctx.store.getPayment(id), 'payment');
  if (settled === NOT_SENT) return NOT_SENT;
  if (settled.status === 'failed') {
    throw new CofferError(
      settled.errorCode === 'insufficient_funds' ? 'insufficient_funds' : 'chain_rejected',
      `the payment made with this Idempotency-Key failed (${settled.errorCode ?? 'unknown'}); no money moved`,
    );
  }
  return paymentResult(ctx, settled, agent);
}

/** The x402 fields of a payment Coffer itself signs and sends (none). */
export const SENT_BY_COFFER = { protocol: 'coffer', resource: null, x402Header: null, payerSignature: null } as const;

/** What the engine itself knows about a payment it makes (generation), beyond the request body. */
export interface PaymentContext {
  /** Anything else that makes two requests different (generation: the full prompt). */
  fingerprint?: string;
  /** The listed price of what is bought, when the service's own listing does not say (a model's price). */
  listedPrice?: bigint;
  /**
   * Runs inside the reservation's commit, after the pending payment is written: what the payment buys
   * is recorded in the same write as the payment itself (generation: its task), so no crash can leave
   * one without the other.
   */
  onReserved?: (payment: PaymentRecord) => void;
}

export async function pay(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: PayBody,
  idempotencyKey: string | null,
  context: PaymentContext = {},
): Promise<PaymentResult> {
  return recordingRefusals(ctx, principal.owner, agentId, { service: body.service, amount: body.amount }, () =>
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
  requireAgentScope(principal, agentId);
  // An agent pays within its policy; a dashboard session paying from its wallet is the owner, and fresh.
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  const { owner } = principal;
  checkCurrency(body.currency);
  const amount = parseAmount(body.amount);
  const agent = getAgentOrThrow(ctx, owner, agentId);

  // The same Idempotency-Key returns the first result, whatever happened since (even a kill).
  const requestHash = hashRequest([
    body.service,
    amount.toString(),
    body.description ?? '',
    body.recipient ?? null,
    body.nonce ?? null,
    context.fingerprint ?? null,
  ]);
  if (idempotencyKey !== null) {
    const first = ctx.store.findPaymentByIdempotencyKey(owner, agentId, idempotencyKey, ctx.clock.now() - DAY_MS);
    const outcome = first ? await replay(ctx, first, requestHash, agent) : NOT_SENT;
    if (outcome !== NOT_SENT) return outcome;
  }
  refuseStopped(agent);

  const service = ctx.store.getService(body.service);
  const recipient = service?.payTo ?? body.recipient;
  // Policy refusals come first, in API.md's check order, before anything about the recipient or the
  // chain (the balance read below included): an agent is told "not allowed" or "over budget"
  // whatever it aimed at, and a refused retry loop costs no RPC call. The reservation below checks
  // again, atomically, since other payments may land in between.
  checkPolicy(ctx, owner, agentId, body.service, service, recipient, amount);
  if (service !== null) assertListedPrice(service.id, context.listedPrice ?? listedPrice(service), amount);
  if (service !== null && body.nonce === undefined) assertBuysACall(service, amount);
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

  // Read before the reservation (the chain port is async); pending payments are subtracted inside it.
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  // Signed before the reservation, so the pending row is written with its transaction in one commit
  // (still before anything is sent). A reservation refused meanwhile leaves the signature unused.
  const id = newId('pay');
  const nonce = body.nonce ?? null;
  const prepared = await prepareUnreserved(() =>
    ctx.chain.prepareTransfer({
      from: agent.walletAddress,
      to: recipient,
      amount,
      memo: nonce ?? id,
      reference: id,
      feePayer: owner,
      createRecipientAccount: service !== null,
    }),
  );

  // Reserved right before the send, inside the commit that lands it where the chain keeps one.
  const reservation: { row?: PaymentRecord | { replayOf: PaymentRecord } } = {};
  const sent = await reserveAndSend(
    ctx,
    { kind: 'payment', id, owner, agentId, actor: actorOf(principal), detail: { service: body.service, amount: formatUsdc(amount) } },
    prepared,
    () => {
      reservation.row = reservePayment(ctx, {
        id,
        owner,
        agentId,
        idempotencyKey,
        requestHash,
        serviceId: body.service,
        service,
        recipient,
        amount,
        balance,
        // The paid API's nonce goes on chain so it can match the payment to its 402.
        nonce,
        description: body.description ?? '',
        fields: SENT_BY_COFFER,
        signed: prepared,
        onReserved: context.onReserved,
      });
      return !('replayOf' in reservation.row);
    },
  );
  const reserved = reservation.row;
  // Another request with this key was reserved meanwhile: its outcome is this one's.
  if (sent === null && reserved !== undefined && 'replayOf' in reserved) {
    return outcomeOfRace(replay(ctx, reserved.replayOf, requestHash, agent), 'payment');
  }
  const settled = ctx.store.getPayment(id);
  if (settled === null) throw new CofferError('internal', 'the payment was not recorded; nothing was sent');
  return paymentResult(ctx, settled, agent);
}

/**
 * One rule for every door (HTTP, MCP, CLI, payingFetch, x402): a registry service is never paid more
 * than it lists, whoever asks; a seller's 402 asking for more is a seller to look at, not to pay.
 */
export function assertListedPrice(serviceId: string, listed: bigint | null, amount: bigint): void {
  if (listed !== null && amount > listed) {
    throw new CofferError(
      'price_above_registry',
      `${formatUsdc(amount)} USDC is more than the ${formatUsdc(listed)} USDC the registry lists for "${serviceId}"`,
    );
  }
}

/**
 * A payment without a seller's nonce is redeemed by its receipt alone: a Coffer paywall takes it once
 * for a route priced at most what it paid (API.md, the paywall). Below the registry's per-call price
 * it buys no call, so it is refused before anything moves rather than paid for nothing. With a nonce
 * the seller's 402 named the price (the paywall holds the payment to it); outside the registry, and
 * for services priced by resolution, Coffer does not know the price and the paywall alone judges.
 */
export function assertBuysACall(service: ServiceRecord, amount: bigint): void {
  if (service.pricePerCall === null) return;
  const price = parseAmount(service.pricePerCall);
  if (amount < price) {
    throw new CofferError(
      'price_below_registry',
      `${formatUsdc(amount)} USDC is less than the ${formatUsdc(price)} USDC the registry lists for a call to "${service.id}": ` +
        'without the nonce of its 402 such a payment buys nothing, so nothing was paid',
    );
  }
}

/** What a payment to be reserved is: everything its pending row holds, and the balance read before. */
export interface PaymentToReserve {
  owner: string;
  agentId: string;
  idempotencyKey: string | null;
  requestHash: string;
  serviceId: string;
  service: ServiceRecord | null;
  recipient: string;
  amount: bigint;
  /** The agent's USDC balance, read before (the chain port is async); pending payments are subtracted inside. */
  balance: bigint;
  /** The paid API's nonce: the payment's memo, paid once per recipient. Null: the payment's id. */
  nonce: string | null;
  description: string;
  fields: Pick<PaymentRecord, 'protocol' | 'resource' | 'x402Header' | 'payerSignature'>;
  /** The payment's id when it was chosen before (its transaction, signed already, names it). */
  id?: string;
  /** The transaction signed for it before the reservation: written in the reservation's commit. */
  signed?: PreparedTransfer;
  onReserved?: (payment: PaymentRecord) => void;
}

/**
 * The reservation: in one SQLite write transaction, the policy checked again (other payments may have
 * landed since the first look), the balance net of pending payments, the nonce not paid before, and
 * the pending row written. Concurrent payments therefore cannot pass a budget. Answers the earlier
 * payment instead when another request under the same Idempotency-Key was reserved meanwhile.
 */
export function reservePayment(ctx: EngineContext, input: PaymentToReserve): PaymentRecord | { replayOf: PaymentRecord } {
  const { owner, agentId, idempotencyKey, amount, recipient } = input;
  return ctx.store.transaction((): PaymentRecord | { replayOf: PaymentRecord } => {
    const now = ctx.clock.now();
    if (idempotencyKey !== null) {
      // A first attempt that never reached the chain gives its key to this one (insertPayment moves it).
      const first = ctx.store.findPaymentByIdempotencyKey(owner, agentId, idempotencyKey, now - DAY_MS);
      if (first && !neverSent(first)) return { replayOf: first };
    }
    refuseStopped(getAgentOrThrow(ctx, owner, agentId));
    checkPolicy(ctx, owner, agentId, input.serviceId, input.service, recipient, amount);
    // An archived agent's wallet is out of use: money paid into it would sit where no key spends it
    // and the owner no longer looks. Checked here, in the reservation, so an archive racing this
    // payment is seen either way.
    const archived = ctx.store.findArchivedAgentByWallet(recipient);
    if (archived !== null) {
      throw new CofferError(
        'recipient_archived',
        `${recipient} is the wallet of agent "${archived.agentId}", which is archived: it takes no payments`,
      );
    }
    // What the wallet has promised away: payments, and returns to the treasury, not settled yet.
    const available = input.balance - ctx.store.pendingPaymentsTotal(owner, agentId) - ctx.store.pendingReturnsTotal(owner, agentId);
    if (available < amount) {
      throw new CofferError(
        'insufficient_funds',
        `the agent's wallet holds ${formatUsdc(available < 0n ? 0n : available)} USDC available, less than ${formatUsdc(amount)}`,
      );
    }
    if (input.nonce !== null) {
      const earlier = ctx.store.findLivePaymentByMemo(owner, agentId, recipient, input.nonce);
      if (earlier !== null) {
        throw new CofferError('nonce_already_paid', `this nonce was already paid (${earlier.id}); a paid API accepts it once`);
      }
    }
    const id = input.id ?? newId('pay');
    const payment: PaymentRecord = {
      id,
      owner,
      agentId,
      serviceId: input.serviceId,
      serviceName: input.service?.name ?? input.serviceId,
      recipient,
      amount,
      memo: input.nonce ?? id,
      description: input.description,
      ...UNSENT,
      ...input.signed,
      idempotencyKey,
      requestHash: input.requestHash,
      createdAt: now,
      refundedAt: null,
      refundTxSignature: null,
      ...input.fields,
    };
    ctx.store.insertPayment(payment);
    input.onReserved?.(payment);
    return payment;
  });
}

/**
 * Applies the agent's policy to a payment (policy.ts decides, in API.md's order): throws its first
 * refusal. What it is judged against is read here: the policy, the spending window, the last payment.
 */
export function checkPolicy(
  ctx: EngineContext,
  owner: string,
  agentId: string,
  serviceId: string,
  service: ServiceRecord | null,
  recipient: string | undefined,
  amount: bigint,
): void {
  const now = ctx.clock.now();
  // What the agent spent is never summed from its history here: the ledger keeps the figures in the
  // same write as each payment's insert, settlement and refund (the payments_spend_* triggers and
  // agent_spend_* tables in server/store/schema.ts).
  const refusal = firstRefusal(
    ctx.store.getPolicy(owner, agentId),
    { now, lastPaymentAt: ctx.store.lastPaymentAt(owner, agentId), spentInWindow: ctx.store.spentSince(owner, agentId, now - DAY_MS) },
    { serviceId, inRegistry: service !== null, recipient, amount },
  );
  if (refusal !== null) throw refusal;
}

export const SPEND_HISTORY_DEFAULT_LIMIT = 20;

export function spendHistory(ctx: EngineContext, principal: Principal, agentId: string, limit = SPEND_HISTORY_DEFAULT_LIMIT) {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return { payments: ctx.store.listPayments(principal.owner, agentId, limit).map(spendRecordView) };
}
