/**
 * A payment moved, whatever its door (/pay, x402, generation, a held payment the owner approved): who
 * pays, its Idempotency-Key, the earlier payment that answers a retry, its signing, and its move
 * through the transfer lifecycle with its reservation (judged by judge.ts judgeInReservation).
 */
import { CofferError, refuse } from '../../wire/errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, type Principal } from '../auth.js';
import type { BalanceReading, EngineContext } from '../context.js';
import { withWalletReading } from '../wallet-balance.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { hashRequest } from '../ids.js';
import { earlierAttempt, moveMoney, reservedWith, type MoveKey, type Moved } from '../transfers/lifecycle.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import { budgetedOf, judgeInReservation } from './judge.js';
import { watchPayment, type PolicyReading } from '../policy/spending-watch.js';
import { addressOn, chainOf } from '../rails.js';
import type { PaymentAsked, PaymentToMove, SignedPayment } from './payment.js';

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

/** The Idempotency-Key a payment was asked under (a held one's, for the payment made under its approval). */
export const keyOfPayment = (payment: PaymentRecord): MoveKey<'payment'> | null =>
  payment.idempotencyKey === null
    ? null
    : { kinds: ['payment'], agentId: payment.agentId, key: payment.idempotencyKey, requestHash: payment.requestHash ?? '' };

/**
 * The earlier payment under the request's Idempotency-Key, which answers a retry whatever happened
 * since (even a kill): the first thing every door asks, before judging the payment (judge.ts).
 */
export const earlierPayment = async (ctx: EngineContext, agent: AgentRecord, asked: PaymentAsked): Promise<PaymentRecord | null> =>
  asked.key === null ? null : earlierAttempt(ctx, agent.owner, asked.key, asked.sentBy);

/** A payment Coffer signs (and sends): from the agent's wallet, the treasury paying the fee (and a registry service's account). */
export const signCofferPayment = async (ctx: EngineContext, agent: AgentRecord, payment: PaymentToMove): Promise<SignedPayment> => ({
  ...(await chainOf(ctx, payment.rail).prepareTransfer({
    from: addressOn(ctx, agent.walletAddress, payment.rail),
    to: payment.recipient,
    amount: payment.amount,
    memo: payment.memo,
    reference: payment.id,
    feePayer: addressOn(ctx, agent.owner, payment.rail),
    // The treasury pays the rent of a new token account only for registry services: otherwise an agent
    // could spend the treasury's SOL by paying dust to fresh addresses.
    createRecipientAccount: payment.service !== null,
  })),
  payerSignature: null,
  x402Header: null,
});

/**
 * A payment moved, with the reason its breaker stopped the agent where this payment tripped it (the
 * payment was within the policy and stands), for its answer to say. The breaker is judged once the
 * payment is reserved, before it is sent: a send that then fails answers its error, the agent stopped all the same.
 */
export type MovedPayment = Moved<'payment'> & { agentStopped: string | null };

/** What a payment's answer adds where it stopped its agent: `agentStopped`, the agent's reason now. */
export const agentStoppedField = (moved: MovedPayment) =>
  moved.agentStopped === null ? {} : { agentStopped: { reason: moved.agentStopped } };

/** The payment moved through the transfer lifecycle: the wallet's balance known (wallet-balance.ts), then signed, reserved and sent. */
export function movePayment(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  payment: PaymentToMove,
  sign: () => Promise<SignedPayment>,
): Promise<MovedPayment> {
  let agentStopped: string | null = null;
  const moved = withWalletReading(ctx, agent, payment.rail, payment.amount, async (walletRead, refusedInReservation) => {
    // The wallet's reading is taken before the reservation (the chain port is async; what left the
    // wallet since and what is pending are subtracted inside it), while the transaction is signed:
    // neither waits for the other.
    let wallet: BalanceReading | null = null;
    let reading: PolicyReading | null = null;
    return moveMoney(ctx, agent.owner, {
      kind: 'payment',
      actor: actorOf(principal),
      // A held payment's key already names it (its row is taken out and written again): not looked up again.
      key: payment.approved === true ? null : payment.key,
      sentBy: payment.sentBy,
      rail: payment.rail,
      sign: async () => {
        // Signing first: an x402 purchase's blockhash is the read it waits for, asked before the balance.
        const [signed, read] = await Promise.all([sign(), walletRead()]);
        wallet = read;
        return signed;
      },
      reserve: (signed) => {
        try {
          const reserved = reservePayment(ctx, agent, payment, wallet!, signed);
          reading = reserved.reading;
          return reserved.row;
        } catch (error) {
          refusedInReservation();
          throw error;
        }
      },
      alsoWrite: payment.alsoWrite,
      // A payment that counts may take a budget past a warning share, or trip the breaker.
      counted: () => {
        if (reading !== null) agentStopped = watchPayment(ctx, agent, budgetedOf(payment), reading);
      },
    });
  });
  return moved.then((done) => ({ ...done, agentStopped }));
}

/**
 * The reservation, inside the lifecycle's one write: the checks (judge.ts judgeInReservation), then
 * the pending row. Concurrent payments therefore cannot pass a budget.
 */
function reservePayment(
  ctx: EngineContext,
  agent: AgentRecord,
  payment: PaymentToMove,
  wallet: BalanceReading,
  signed: SignedPayment,
): { row: PaymentRecord; reading: PolicyReading | null } {
  if (payment.approved === true && !ctx.store.releaseHeldPayment(payment.id)) {
    throw new CofferError(
      'approval_decided',
      `payment ${payment.id} is no longer held for the owner: it was made or ended meanwhile, and this request paid nothing`,
    );
  }
  const { refusal, reading } = judgeInReservation(ctx, agent, payment, wallet, signed.payerSignature);
  refuse(refusal);
  return {
    row: {
      kind: 'payment',
      ...paymentFields(agent, payment),
      ...reservedWith(ctx, signed, payment.key, payment.rail),
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
