import { CofferError, RepeatedFailure, isErrorCode, refuse } from '../../wire/errors.js';
import { actorOf, requireAgentScope, type Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { newId } from '../ids.js';
import { formatUsdc } from '../../wire/money.js';
import { earlierPayment, keyOf, keyOfPayment, movePayment, payingAgent, agentStoppedField } from './move.js';
import { allowedAtDoor, judgeAtDoor, paidUnderMemo } from './judge.js';
import { awaitingOf, holdPayment } from './held.js';
import { endedCode } from '../approvals/requests.js';
import { done, type Outcome } from '../outcome.js';
import { recordingRefusals } from './refusal-log.js';
import { registryServiceFor } from '../registry/registry.js';
import { iso } from '../../wire/views.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import type { PaidMemo, PaymentAsked } from './payment.js';
import type { X402Offer } from '../ports/x402.js';
import { type X402PayBody } from '../../wire/schemas.js';
import { checksummedEvmAddress, type Rail } from '../../wire/rails.js';
import { addressOn, chainOf } from '../rails.js';
import { settleX402 } from '../transfers/seller-sent.js';
import type { X402Payment, X402Settlement } from '../../wire/answers/payments.js';
import { coveredBy, freeOn, heldTerms, payableRequirement } from './x402-entry.js';
import { memoOf, type Payable } from './x402-offer-entries.js';
import { noncePaidRefusal } from './refusals.js';

/**
 * Coffer pays x402 APIs: an agent hands over the 402 a seller answered, Coffer picks the offer it can
 * pay (scheme `exact`, this network, USDC), applies the same rules as /pay in the same reservation
 * (kill switch, allowedServices by registry id or recipient, maxPerPayment, cooldown, rolling daily
 * budget, balance net of pending payments, the registry's listed price), and signs the transfer with
 * the agent's key only as the token's owner. The seller's facilitator pays the fee, signs and sends:
 * Coffer never signs as someone's fee payer. The payment stays pending until its transaction is seen
 * on chain (reported by the seller's answer, or found among the agent's transactions), and fails,
 * giving its budget back, once it can no longer land.
 */
export async function payX402(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: X402PayBody,
  idempotencyKey: string | null,
): Promise<Outcome<X402Payment>> {
  const agent = payingAgent(ctx, principal, agentId);
  const buyer = ctx.x402;
  const offer = buyer?.readOffer({ headers: body.headers, body: body.body }) ?? null;
  if (buyer !== null && offer === null) {
    // x402 v2 terms in the body alone: a seller's mistake worth naming (v2 sends them in the header).
    const v2InBody = (body.body as { x402Version?: unknown } | null)?.x402Version === 2;
    throw new CofferError(
      'unreadable_402',
      v2InBody
        ? 'the answer carries no x402 offer: its body holds x402 v2 terms, which v2 sends in the PAYMENT-REQUIRED header (base64 JSON), and no such header'
        : 'the answer carries no x402 offer (no PAYMENT-REQUIRED header, no x402 v1 body)',
    );
  }
  // An approved purchase is paid on the rail it was held on, an entry its yes covers first; any
  // other, an entry the agent's policy and the registry's price allow first.
  const approved = body.approvalId === undefined ? undefined : heldTerms(ctx, agent, body.approvalId);
  const askedRail = body.rail ?? approved?.rail;
  const preferred =
    approved !== undefined
      ? coveredBy(approved)
      : (payable: Payable) => allowedAtDoor(ctx, agent, { ...entryAsked(ctx, payable, body.url), key: null });
  const payables =
    offer === null
      ? null
      : await payableRequirement(
          ctx,
          offer,
          agent,
          principal.owner,
          askedRail,
          preferred,
          // Under a yes the rail is the yes's, named by the agent or not.
          approved !== undefined,
        );
  // The purchase as it is tried: on the rail chosen, or on the other where the chosen one's funds ran out.
  let tried = payables?.chosen ?? null;
  return recordingRefusals(
    ctx,
    principal,
    agentId,
    () => ({
      // The registry's id of the recipient, else the URL's host: how its refusals name the service.
      service: tried === null ? new URL(body.url).host : registryServiceFor(ctx, tried.recipient, body.url).serviceId,
      amount: tried === null ? '0' : formatUsdc(tried.requirement.amount),
      rail: tried?.rail ?? null,
    }),
    async () => {
      if (buyer === null || offer === null || payables === null) {
        throw new CofferError(
          'unsupported_offer',
          `x402 is paid on Solana on devnet and mainnet, and on Base where its rail is open; this Coffer runs on ${ctx.chain.network} without the Base rail`,
        );
      }
      const { chosen, instead, keyed, challengeMemos } = payables;
      const purchase = (payable: Payable) =>
        purchaseOn(ctx, principal, agent, { body, idempotencyKey, buyer, offer, keyed, challengeMemos }, payable);
      if (instead === undefined) return purchase(chosen);
      try {
        return await purchase(chosen);
      } catch (error) {
        // Chosen by funds read before the reservation, the rail's wallet ran short meanwhile (other
        // purchases of this agent reserved there first): the offer is tried once on its other rail,
        // whose refusal, if it refuses too, says what each holds now. Nothing was signed away: the
        // refused reservation wrote nothing, and its signed transfer never left.
        if (!(error instanceof CofferError) || error.code !== 'insufficient_funds' || error instanceof RepeatedFailure) throw error;
        // What the chosen rail holds now, for the words should the other refuse too (unread: left out).
        const free = await freeOn(ctx, agent, chosen).catch(() => null);
        tried = free === null ? instead : { ...instead, alsoShort: { rail: chosen.rail, free } };
        try {
          return await purchase(tried);
        } catch (elsewhere) {
          // Refused there for what holds on both rails (its funds too, the agent stopped, its policy
          // ended, a cooldown): that refusal. Refused for what holds on that rail alone (its recipient
          // not allowed or over its budget, its price, its terms): the first rail's, which the agent
          // can act on, said and recorded as it was.
          if (elsewhere instanceof CofferError && !BOTH_RAILS_REFUSALS.has(elsewhere.code)) {
            tried = chosen;
            throw error;
          }
          throw elsewhere;
        }
      }
    },
  );
}

/** Refusals on the other rail that hold on both: said in place of the first rail's want of funds. */
const BOTH_RAILS_REFUSALS = new Set(['insufficient_funds', 'agent_suspended', 'policy_expired', 'cooldown_active']);

/** An entry of an offer as a payment asks it (the registry's word on its recipient read here), but for its key. */
const entryAsked = (ctx: EngineContext, payable: Payable, url: string): Omit<PaymentAsked, 'key'> & { recipient: string } => {
  const listing = registryServiceFor(ctx, payable.recipient, url);
  return {
    serviceId: listing.serviceId,
    service: listing.service,
    recipient: payable.recipient,
    amount: payable.requirement.amount,
    listed: listing.listed,
    sentBy: 'seller',
    rail: payable.rail,
  };
};

/** What a purchase is made of, whichever rail of the offer it is tried on. */
interface PurchaseAsked {
  body: X402PayBody;
  idempotencyKey: string | null;
  buyer: NonNullable<EngineContext['x402']>;
  offer: X402Offer;
  /** The cheapest payable entry on each rail: what the Idempotency-Key is hashed over. */
  keyed: Payable[];
  /** The memos of the offer's entries, with their recipients: a memo paid on any of them is this challenge paid. */
  challengeMemos: PaidMemo[];
}

/**
 * The purchase on one rail of the offer: answered by an earlier payment under its key, held for the
 * owner, or signed and moved under its reservation.
 */
async function purchaseOn(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  { body, idempotencyKey, buyer, offer, keyed, challengeMemos }: PurchaseAsked,
  payable: Payable,
): Promise<Outcome<X402Payment>> {
  const { requirement } = payable;
  const memo = memoOf(requirement);
  const { amount } = requirement;
  const { rail, recipient: payTo } = payable;
  const asked = {
    ...entryAsked(ctx, payable, body.url),
    // The request's terms, whichever rail and entry are chosen now: a retry finds its payment even
    // where the wallets' funds or the policy would choose another today. (One rail's terms hash as
    // before each rail's memo was named beside its entry.)
    key: keyOf(agent, idempotencyKey, [
      'x402',
      body.url,
      body.method ?? 'GET',
      ...keyed.flatMap((each) => [
        each.requirement.network,
        each.recipient,
        each.requirement.amount.toString(),
        // As the recipient is: an EVM address in any case is one asset (one spelling, one request).
        each.rail === 'base' ? checksummedEvmAddress(each.requirement.asset) : each.requirement.asset,
        memoOf(each.requirement),
      ]),
    ]),
    ...(payable.alsoShort === undefined ? {} : { alsoShort: payable.alsoShort }),
  };
  const description = body.description ?? `${body.method ?? 'GET'} ${body.url}`.slice(0, 500);
  // Signed with the payment's id (a held purchase keeps its own when approved): on Base the
  // authorization's nonce commits to it, so the payment signed again (approved again after a
  // restore) runs once at most.
  const signFor = (paymentId: string) => async () => {
    const signed = await buyer.sign(offer, requirement, addressOn(ctx, agent.walletAddress, rail), rail, paymentId);
    return {
      txSignature: null,
      txWire: signed.txWire,
      lifetimeEnd: signed.lifetimeEnd,
      payerSignature: signed.payerSignature,
      x402Header: signed.header,
    };
  };
  // The purchase the owner said yes to, now with the seller's fresh terms: paid under its hold, once,
  // judged again at this moment (the hold itself no longer counted). The approval is its key: the
  // same purchase asked again (under any Idempotency-Key, or at the same moment) answers it.
  if (body.approvalId !== undefined) {
    const fresh = { payTo, amount, url: body.url, memo, rail };
    const approved = underApproval(ctx, agent, body.approvalId, fresh);
    if ('made' in approved) return answerEarlier(ctx, approved.made);
    const { held } = approved;
    const payment = {
      ...asked,
      // The key of the request the owner said yes to (held under it), as /pay's approved payments
      // keep theirs: that request asked again answers this purchase, never a second one.
      key: keyOfPayment(held),
      id: held.id,
      memo: memo ?? held.id,
      nonce: memo,
      challengeMemos,
      description,
      resource: body.url,
      approved: true,
    };
    let moved: Awaited<ReturnType<typeof movePayment>>;
    try {
      moved = await movePayment(ctx, principal, agent, payment, signFor(payment.id));
    } catch (error) {
      // The same purchase asked again at once: both passed the checks above before either wrote,
      // and the other made it. It answers that purchase; another is refused (approval_decided).
      const now = underApproval(ctx, agent, body.approvalId, fresh);
      if ('made' in now) return answerEarlier(ctx, now.made);
      throw error;
    }
    return 'earlier' in moved ? answerEarlier(ctx, moved.earlier) : done({ ...x402View(ctx, moved.row), ...agentStoppedField(moved) });
  }
  const earlier = await earlierPayment(ctx, agent, asked);
  if (earlier !== null) return answerEarlier(ctx, earlier);
  const { hold } = await judgeAtDoor(ctx, principal, agent, asked);
  // A seller's memo binds its challenge, whichever entry is paid: one paid already to its entry's
  // recipient (on either rail) is this challenge paid, though the policy now prefers another entry;
  // after the door's checks, as the reservation's nonce check comes after its own. The reservation
  // checks every entry's memo again: two asks at once, the policy choosing two entries, pay one.
  refuse(noncePaidRefusal(paidUnderMemo(ctx, agent, challengeMemos)));
  const id = newId('pay');
  const payment = { ...asked, id, memo: memo ?? id, nonce: memo, challengeMemos, description, resource: body.url };
  if (hold !== null && principal.kind === 'agent') return holdPayment(ctx, principal, agent, payment, hold);
  const moved = await movePayment(ctx, principal, agent, payment, signFor(payment.id));
  return 'earlier' in moved ? answerEarlier(ctx, moved.earlier) : done({ ...x402View(ctx, moved.row), ...agentStoppedField(moved) });
}

/**
 * The held x402 purchase an approval said yes to, for the agent's purchase with fresh terms: this
 * agent's, approved, not used yet, and the same purchase (the same seller's address and URL, at most
 * the amount approved). Once made, the purchase itself, asked again with the terms it was made with.
 * Refused with a code otherwise, nothing paid.
 */
function underApproval(
  ctx: EngineContext,
  agent: AgentRecord,
  approvalId: string,
  fresh: { payTo: string; amount: bigint; url: string; memo: string | null; rail: Rail },
): { held: PaymentRecord } | { made: PaymentRecord } {
  const approval = ctx.store.getApproval(approvalId);
  if (approval === null || approval.owner !== agent.owner || approval.agentId !== agent.agentId || approval.kind !== 'payment') {
    throw new CofferError('approval_not_found', `no held payment of agent "${agent.agentId}" waits under "${approvalId}"`);
  }
  if (approval.status !== 'approved') {
    const code = approval.status === 'pending' ? 'owner_approval_required' : (endedCode(approval.status) ?? 'approval_decided');
    throw new CofferError(
      code,
      // Withdrawn is no answer of the owner's: the agent was stopped, or took its request back.
      approval.status === 'withdrawn'
        ? 'the request for this purchase was withdrawn (the agent was stopped, or stopped waiting); nothing was paid'
        : `the owner's answer to this purchase is ${approval.status === 'pending' ? 'not given yet' : approval.status}; nothing was paid`,
    );
  }
  const held = approval.paymentId === null ? null : ctx.store.getPayment(approval.paymentId);
  if (held !== null && held.protocol === 'x402' && (held.status === 'pending' || held.status === 'confirmed') && madeWith(held, fresh)) {
    return { made: held };
  }
  if (held === null || held.status !== 'held' || held.protocol !== 'x402' || held.resource === null) {
    throw new CofferError(
      'approval_decided',
      `the purchase approved under "${approvalId}" was already made or has ended; nothing was paid again`,
    );
  }
  const same = (a: string, b: string) => new URL(a).origin === new URL(b).origin && new URL(a).pathname === new URL(b).pathname;
  if (fresh.payTo !== held.recipient || fresh.amount > held.amount || !same(fresh.url, held.resource)) {
    throw new CofferError(
      'approval_mismatch',
      `the owner approved ${formatUsdc(held.amount)} USDC to ${held.recipient} for ${held.resource}; this offer is ${formatUsdc(fresh.amount)} USDC to ${fresh.payTo} for ${fresh.url}: nothing was paid`,
    );
  }
  return { held };
}

/** Whether a purchase was made with these terms: its recipient, amount, URL, rail and the seller's memo (none: its own id). */
const madeWith = (made: PaymentRecord, fresh: { payTo: string; amount: bigint; url: string; memo: string | null; rail: Rail }) =>
  made.recipient === fresh.payTo &&
  made.amount === fresh.amount &&
  made.resource === fresh.url &&
  made.rail === fresh.rail &&
  made.memo === (fresh.memo ?? made.id);

/**
 * The answer to a request already made under this Idempotency-Key: the same payment and header; the
 * approval it waits for (or was given: then the purchase is made with fresh terms and its id); or its
 * failure again (a hold that ended says its own code).
 */
function answerEarlier(ctx: EngineContext, earlier: PaymentRecord): Outcome<X402Payment> {
  if (earlier.status === 'held') return awaitingOf(ctx, earlier);
  // Security: an x402 payment not yet seen to land is a signed authorization anyone holding it can
  // still hand a seller (on Base until its validBefore, up to an hour). A stopped agent is not given
  // it again: the kill stops what the agent can still set moving, not only what it asks anew.
  if (earlier.status === 'pending' && stoppedNow(ctx, earlier)) {
    throw new CofferError(
      'agent_suspended',
      `agent ${earlier.agentId} is stopped: its payment ${earlier.id}, made under this Idempotency-Key before it was stopped, is not handed out again; unsent, it lapses and its budget comes back`,
    );
  }
  if (earlier.status === 'failed') {
    const code = earlier.txWire === null && isErrorCode(earlier.errorCode) ? earlier.errorCode : 'chain_rejected';
    throw new RepeatedFailure(code, `the payment made with this Idempotency-Key failed (${earlier.errorCode ?? 'unknown'})`);
  }
  return done(x402View(ctx, earlier));
}

/**
 * What the seller answered to the paid request: the transaction it reports having settled is checked
 * on chain (it must hold the agent's own signature) and settles the payment at once; without one, the
 * payment is looked for among the agent's transactions, as reconciliation does.
 */
export async function reportX402Settlement(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  paymentId: string,
  headers: Record<string, string>,
): Promise<X402Settlement> {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  const payment = ctx.store.getPayment(paymentId);
  if (payment === null || payment.owner !== principal.owner || payment.agentId !== agentId || payment.protocol !== 'x402') {
    throw new CofferError('payment_not_found', `agent "${agentId}" has no x402 payment ${paymentId}`);
  }
  if (payment.status === 'pending' && !ctx.state.transfersInFlight.has(payment.id)) {
    await settleX402(ctx, payment, ctx.x402?.readSettlement(headers) ?? null, actorOf(principal));
  }
  const now = ctx.store.getPayment(paymentId) ?? payment;
  // A stopped agent's payment not yet landed is not handed out again here either (answerEarlier).
  return { ...x402View(ctx, now), ...(now.status === 'pending' && stoppedNow(ctx, now) ? { header: null } : {}) };
}

/** Whether the payment's agent is stopped now (read afresh: it may have been stopped since the purchase began). */
const stoppedNow = (ctx: EngineContext, payment: PaymentRecord): boolean =>
  ctx.store.getAgent(payment.owner, payment.agentId)?.status === 'suspended';

/** An x402 payment as answered: the header to retry with, and where the payment stands. */
function x402View(ctx: EngineContext, payment: PaymentRecord): X402Payment {
  return {
    paymentId: payment.id,
    status: payment.status,
    amount: formatUsdc(payment.amount),
    currency: 'USDC' as const,
    service: payment.serviceId,
    recipient: payment.recipient,
    rail: payment.rail,
    network: chainOf(ctx, payment.rail).network,
    resource: payment.resource,
    timestamp: iso(payment.createdAt),
    txSignature: payment.txSignature,
    header: payment.x402Header,
  };
}
