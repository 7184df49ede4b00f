import { DEMO_EVM_CHAIN_ID, DEMO_EVM_NETWORK } from '../../wire/network-words.js';
import { CofferError, RepeatedFailure, isErrorCode } from '../../wire/errors.js';
import { actorOf, requireAgentScope, type Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { newId } from '../ids.js';
import { formatUsdc } from '../../wire/money.js';
import { earlierPayment, keyOf, movePayment, payingAgent, agentStoppedField } from './move.js';
import { judgeAtDoor } from './judge.js';
import type { MoveKey } from '../transfers/lifecycle.js';
import { awaitingOf, holdPayment } from './held.js';
import { endedCode } from '../approvals/requests.js';
import { done, type Outcome } from '../outcome.js';
import { recordingRefusals } from './refusal-log.js';
import { registryServiceFor } from '../registry/registry.js';
import { iso } from '../../wire/views.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import type { X402Offer, X402Requirement } from '../ports/x402.js';
import { isSolanaAddress, type X402PayBody } from '../../wire/schemas.js';
import { RAILS, checksummedEvmAddress, isEvmAddress, isZeroEvmAddress, railFirst, type Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { addressOn, chainOf } from '../rails.js';
import { preferredRailOf } from '../settings.js';
import { freeBalance, walletReading } from '../wallet-balance.js';
import { settleX402 } from '../transfers/seller-sent.js';
import { isPayableOn } from './x402-payable.js';
import { isOwnWallet, paysSomeone } from './paid-to.js';
import type { X402Payment, X402Settlement } from '../../wire/answers/payments.js';

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
  if (buyer !== null && offer === null)
    throw new CofferError('unreadable_402', 'the answer carries no x402 offer (no PAYMENT-REQUIRED header, no x402 v1 body)');
  // An approved purchase is paid on the rail it was held on.
  const askedRail = body.rail ?? (body.approvalId === undefined ? undefined : heldRail(ctx, body.approvalId));
  const payables = offer === null ? null : await payableRequirement(ctx, offer, agent, principal.owner, askedRail);
  // The purchase as it is tried: on the rail chosen, or on the other where the chosen one's funds ran out.
  let tried = payables?.chosen ?? null;
  return recordingRefusals(
    ctx,
    principal,
    agentId,
    () => ({
      service: tried === null ? new URL(body.url).host : serviceLabelOf(ctx, tried, body.url),
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
      const purchase = (payable: Payable) =>
        purchaseOn(ctx, principal, agent, { body, idempotencyKey, buyer, offer, keyed: payables.keyed }, payable);
      const { chosen, instead } = payables;
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

/** The registry's id of a purchase's recipient, else its URL's host: how its refusals name the service. */
const serviceLabelOf = (ctx: EngineContext, payable: Payable, url: string) =>
  registryServiceFor(ctx, payable.recipient, url).serviceId ?? new URL(url).host;

/** What a purchase is made of, whichever rail of the offer it is tried on. */
interface PurchaseAsked {
  body: X402PayBody;
  idempotencyKey: string | null;
  buyer: NonNullable<EngineContext['x402']>;
  offer: X402Offer;
  /** The first payable entry on each rail: what the Idempotency-Key is hashed over. */
  keyed: Payable[];
}

/**
 * The purchase on one rail of the offer: answered by an earlier payment under its key, held for the
 * owner, or signed and moved under its reservation.
 */
async function purchaseOn(
  ctx: EngineContext,
  principal: Principal,
  agent: AgentRecord,
  { body, idempotencyKey, buyer, offer, keyed }: PurchaseAsked,
  payable: Payable,
): Promise<Outcome<X402Payment>> {
  const { requirement } = payable;
  // What the registry says of the recipient, and the seller's memo: read once, used below.
  const listing = registryServiceFor(ctx, payable.recipient, body.url);
  const memo = memoOf(requirement);
  const { amount } = requirement;
  const { rail, recipient: payTo } = payable;
  const asked = {
    serviceId: listing.serviceId,
    service: listing.service,
    recipient: payTo,
    amount,
    listed: listing.listed,
    // The request's terms, whichever rail is chosen now: a retry finds its payment even where the
    // wallets' funds would choose another rail today.
    key: keyOf(agent, idempotencyKey, [
      'x402',
      body.url,
      body.method ?? 'GET',
      ...keyed.flatMap((each) => [each.requirement.network, each.recipient, each.requirement.amount.toString(), each.requirement.asset]),
      // The seller's memo of the rail's entry the key is hashed over (the one paid, unless its
      // signing would refuse the first).
      memoOf((keyed.find((each) => each.rail === rail) ?? payable).requirement),
    ]),
    sentBy: 'seller' as const,
    rail,
    ...(payable.alsoShort === undefined ? {} : { alsoShort: payable.alsoShort }),
  };
  const description = body.description ?? `${body.method ?? 'GET'} ${body.url}`.slice(0, 500);
  const sign = async () => {
    const signed = await buyer.sign(offer, requirement, addressOn(ctx, agent.walletAddress, rail), rail);
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
      key: heldKey(held),
      id: held.id,
      memo: memo ?? held.id,
      nonce: memo,
      description,
      resource: body.url,
      approved: true,
    };
    let moved: Awaited<ReturnType<typeof movePayment>>;
    try {
      moved = await movePayment(ctx, principal, agent, payment, sign);
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
  const id = newId('pay');
  const payment = { ...asked, id, memo: memo ?? id, nonce: memo, description, resource: body.url };
  if (hold !== null && principal.kind === 'agent') return holdPayment(ctx, principal, agent, payment, hold);
  const moved = await movePayment(ctx, principal, agent, payment, sign);
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

/** The Idempotency-Key a held payment was asked under, for the payment made under its approval. */
const heldKey = (held: PaymentRecord): MoveKey<'payment'> | null =>
  held.idempotencyKey === null
    ? null
    : { kinds: ['payment'], agentId: held.agentId, key: held.idempotencyKey, requestHash: held.requestHash ?? '' };

/** The requirement of an offer Coffer pays, the rail it is paid on, and its recipient as the ledger spells it. */
interface Payable {
  requirement: X402Requirement;
  rail: Rail;
  recipient: string;
  /**
   * The other rail the offer is payable on, whose wallet does not hold the amount either
   * (railWithFunds); `free` null where the agent asked for this rail, the other unread.
   */
  alsoShort?: { rail: Rail; free: bigint | null };
}

/**
 * The offer's requirement Coffer pays: scheme `exact` in USDC on a network of a rail Coffer pays x402
 * on (the rail asked for, if any). Where the offer can be paid on both rails, the owner's preferred
 * rail where its wallet holds the amount (after what is pending), else the first that does, Solana
 * first (railWithFunds). Anything else is refused before any money moves, saying what was offered.
 */
async function payableRequirement(
  ctx: EngineContext,
  offer: X402Offer,
  agent: AgentRecord,
  owner: string,
  asked: Rail | undefined,
): Promise<{ chosen: Payable; keyed: Payable[]; instead?: Payable }> {
  const payables = RAILS.filter((rail) => asked === undefined || rail === asked).map((rail) => payablesOn(ctx, offer, rail));
  // What a retry's Idempotency-Key is hashed over: the first payable entry on each rail, as the
  // offer states it, not whether its signing would refuse it now (the token may be unread: the node
  // answering or not would make one request two).
  const keyed = payables.map((onRail) => onRail[0]).filter((payable): payable is Payable => payable !== undefined);
  const signable = await Promise.all(payables.map((onRail) => firstSignable(ctx, onRail)));
  const onRails = signable.map(({ payable }) => payable).filter((payable): payable is Payable => payable !== null);
  const refusals = signable.map(({ refusal }) => refusal).filter((refusal): refusal is string => refusal !== null);
  const first = onRails[0];
  // The rail's signing would refuse its terms whatever the payer (on Base, another token's name):
  // said as it would, before anything is judged or held.
  if (first === undefined && refusals[0] !== undefined) throw new CofferError('unsupported_offer', refusals[0]);
  if (first === undefined) {
    const offered =
      offer.requirements
        .map(
          (entry) =>
            `${entry.scheme} on ${entry.network} in ${entry.asset}${offeredHow(entry, railNamed(ctx, entry.network, offer.x402Version))}`,
        )
        .join('; ') || 'nothing';
    const where = RAILS.filter((rail) => asked === undefined || rail === asked)
      .map((rail) => x402NetworkOf(ctx, rail, offer.x402Version))
      .filter((name): name is string => name !== null);
    // The rail asked for named, and the other where the offer is payable there: the refusal is the ask's.
    const elsewhere = RAILS.find((rail) => asked !== undefined && rail !== asked && payablesOn(ctx, offer, rail).length > 0);
    // Why a rail considered pays no x402 here at all, so that what the seller offers there is not
    // read as a fault of the offer (x402 on Solana where this Coffer runs on sim).
    const whyNot = RAILS.filter((rail) => (asked === undefined || rail === asked) && x402NetworkOf(ctx, rail, offer.x402Version) === null)
      .map((rail) => `; ${noX402Here(ctx, rail, offer.x402Version)}`)
      .join('');
    throw new CofferError(
      'unsupported_offer',
      (where.length === 0
        ? `x402 ${offer.x402Version === 1 ? 'v1 ' : ''}is not paid on ${asked === undefined ? 'any rail' : railName(asked)} here; the seller offers ${offered}${whyNot}`
        : `${asked === undefined ? '' : `on ${railName(asked)}, the rail asked: `}Coffer pays x402 "exact" in USDC on ${where.join(' or ')}; the seller offers ${offered}${elsewhere === undefined ? '' : `; it is payable on ${railName(elsewhere)}, with no rail asked`}${whyNot}`) +
        demoSellerWords(ctx, offer),
    );
  }
  // Asked for on one rail: a refusal for want of funds there says where else the offer is payable.
  const alsoPayable = asked === undefined ? undefined : RAILS.find((rail) => rail !== asked && payablesOn(ctx, offer, rail).length > 0);
  const chosen =
    onRails.length > 1
      ? await railWithFunds(ctx, agent, onRails)
      : alsoPayable === undefined
        ? first
        : { ...first, alsoShort: { rail: alsoPayable, free: null } };
  checkNotItself(ctx, chosen, agent);
  if (chosen.rail === 'sol') checkSolanaTerms(offer, chosen.requirement, agent, owner);
  // Chosen by funds (both rails payable, the chosen one's wallet holding the amount when read): the
  // other rail, where the offer is tried should the chosen one run short before its reservation.
  const other = chosen.alsoShort === undefined ? onRails.find((payable) => payable.rail !== chosen.rail) : undefined;
  return { chosen, keyed, ...(other !== undefined && payableTerms(ctx, offer, other, agent, owner) ? { instead: other } : {}) };
}

/** Whether the offer's terms on a rail are ones Coffer signs (the agent not paying itself; a Solana entry's own: checkSolanaTerms). */
function payableTerms(ctx: EngineContext, offer: X402Offer, payable: Payable, agent: AgentRecord, owner: string): boolean {
  try {
    checkNotItself(ctx, payable, agent);
    if (payable.rail === 'sol') checkSolanaTerms(offer, payable.requirement, agent, owner);
    return true;
  } catch {
    return false;
  }
}

/** An offer paid to the paying agent's own wallet on that rail buys nothing: refused before anything is held. */
function checkNotItself(ctx: EngineContext, payable: Payable, agent: AgentRecord): void {
  if (isOwnWallet(ctx, agent, payable.recipient, payable.rail)) {
    throw new CofferError(
      'unsupported_offer',
      `the x402 offer pays this agent's own wallet on ${railName(payable.rail)} (${payable.recipient}): nothing would be bought`,
    );
  }
}

/**
 * What an entry offered says beyond its network and asset where that makes it unpayable: its amount
 * unread or 0, a payTo no payment can go to on the rail its network is here (on another network, the
 * network is why), its transfer method.
 */
function offeredHow(entry: X402Requirement, rail: Rail | undefined): string {
  const method = entry.extra.assetTransferMethod;
  const by = method === undefined || method === 'eip3009' ? '' : ` by ${String(method)} (Coffer pays by EIP-3009 on an EVM chain)`;
  const amount = entry.amount < 0n ? ' (its amount unreadable)' : entry.amount === 0n ? ' (an amount of 0)' : '';
  return `${amount}${rail === undefined ? '' : recipientFault(entry, rail)}${memoIsText(entry) ? '' : ' (its extra.memo not text)'}${by}`;
}

/**
 * A memo is text the seller matches its payment by, and Coffer its earlier purchases by
 * (nonce_already_paid): an entry whose memo is of another type is neither, and is not paid.
 */
const memoIsText = (entry: X402Requirement): boolean => entry.extra.memo === undefined || typeof entry.extra.memo === 'string';

/** Why an entry's payTo takes no payment on its rail, in words (nothing where it may). */
function recipientFault({ payTo, asset }: X402Requirement, rail: Rail): string {
  if (rail === 'base' && !isEvmAddress(payTo)) return ' (its payTo not an EVM address)';
  if (rail === 'sol' && !isSolanaAddress(payTo)) return ' (its payTo not a Solana address)';
  if (rail === 'base' && isZeroEvmAddress(payTo)) return ' (to the zero address)';
  return paysSomeone(payTo, asset) ? '' : " (to the token's own contract)";
}

/** The rail whose network this Coffer's x402 names so in an offer of this version; undefined for another network. */
const railNamed = (ctx: EngineContext, network: string, version: number): Rail | undefined =>
  RAILS.find((rail) => x402NetworkOf(ctx, rail, version) === network);

/**
 * The first of a rail's payable requirements its signing would not refuse whatever the payer; null
 * with why it would refuse the first, where it would refuse each.
 */
async function firstSignable(ctx: EngineContext, payables: Payable[]): Promise<{ payable: Payable | null; refusal: string | null }> {
  let first: string | null = null;
  for (const payable of payables) {
    const refusal = await ctx.x402!.signingRefusal(payable.requirement, payable.rail);
    if (refusal === null) return { payable, refusal: null };
    first ??= refusal;
  }
  return { payable: null, refusal: first };
}

/** The rail of the purchase held under an approval (its checks come later, in underApproval). */
function heldRail(ctx: EngineContext, approvalId: string): Rail | undefined {
  const approval = ctx.store.getApproval(approvalId);
  const paymentId = approval?.paymentId ?? null;
  const held = paymentId === null ? null : ctx.store.getPayment(paymentId);
  return held?.rail;
}

/** Why a rail pays no x402 of this version on this Coffer: its network has no x402 name, or the rail is off. */
function noX402Here(ctx: EngineContext, rail: Rail, version: number): string {
  if (rail === 'sol') {
    return `x402 pays Solana on devnet and mainnet, and this Coffer's Solana is ${ctx.chain.network}`;
  }
  const base = ctx.base ?? null;
  if (base === null) return "this Coffer's Base rail is off";
  return version === 1
    ? `x402 v1 names Base and Base Sepolia only, and this Coffer's Base rail is ${base.network}`
    : `x402 does not name this Coffer's Base rail, ${base.network}`;
}

/**
 * The demo seller's chain named where its offer is refused: its EVM chain is the demo's own, never
 * Base nor a Coffer's embedded one (network-words.ts), so a Coffer of the user's own cannot pay it,
 * and a newcomer who followed the README to it is told whose agent can.
 */
function demoSellerWords(ctx: EngineContext, offer: X402Offer): string {
  const demoChain = `eip155:${DEMO_EVM_CHAIN_ID}`;
  // The demo's own Coffer pays that chain: a refusal there has another why, said before this.
  const elsewhere = ctx.base?.network !== DEMO_EVM_NETWORK;
  return elsewhere && offer.requirements.some((entry) => entry.network === demoChain)
    ? `; ${demoChain} is the test chain of coffer demo-x402, whose seller is paid by the demo's own Coffer and agent (the commands it prints name that agent's --config)`
    : '';
}

/** How x402 names this Coffer's network of a rail in an offer of this version; null where it names none. */
function x402NetworkOf(ctx: EngineContext, rail: Rail, version: number): string | null {
  const names = ctx.x402?.networks[rail] ?? null;
  return names === null ? null : version === 1 ? names.v1 : names.v2;
}

/** The offer's requirements Coffer can pay on a rail, in the offer's order (x402-payable.ts says which). */
function payablesOn(ctx: EngineContext, offer: X402Offer, rail: Rail): Payable[] {
  const network = x402NetworkOf(ctx, rail, offer.x402Version);
  if (network === null) return [];
  const here = { network, usdc: chainOf(ctx, rail).usdc };
  return offer.requirements
    .filter((entry) => isPayableOn(rail, here, { ...entry, transferMethod: entry.extra.assetTransferMethod }) && memoIsText(entry))
    .map((requirement) => ({
      requirement,
      rail,
      recipient: rail === 'base' ? checksummedEvmAddress(requirement.payTo) : requirement.payTo,
    }));
}

/**
 * Of an offer payable on both rails: the owner's preferred rail where the agent's wallet there holds
 * the amount beside what it has pending, else the first that does (Solana first), else the preferred
 * (or the first), whose reservation then refuses it for want of funds.
 */
async function railWithFunds(ctx: EngineContext, agent: AgentRecord, payables: Payable[]): Promise<Payable> {
  const ordered = railFirst(payables, preferredRailOf(ctx));
  // A wallet whose node does not answer now is not chosen: the other rail pays where it holds the
  // amount (a Base node away holds back no purchase Solana can pay). Neither read: the first's trouble.
  const read = await Promise.allSettled(ordered.map((payable) => freeOn(ctx, agent, payable)));
  const free = read.map((each) => (each.status === 'fulfilled' ? each.value : null));
  if (free.every((each) => each === null)) throw (read[0] as PromiseRejectedResult).reason;
  const funded = ordered.find((payable, index) => (free[index] ?? -1n) >= payable.requirement.amount);
  if (funded !== undefined) return funded;
  // Neither holds it: paid where the wallet was read (its refusal to come), naming the other rail's
  // figure too where that was read.
  const [first, second] = free[0] === null ? [ordered[1]!, null] : [ordered[0]!, free[1] === null ? null : ordered[1]!];
  return second === null ? first : { ...first, alsoShort: { rail: second.rail, free: free[1]! } };
}

/** What the agent's wallet on a payable's rail holds beside what it has pending there. */
const freeOn = async (ctx: EngineContext, agent: AgentRecord, { rail, requirement }: Payable): Promise<bigint> =>
  freeBalance(ctx, agent, rail, (await walletReading(ctx, agent, rail, requirement.amount)).reading);

/**
 * A Solana offer's own terms: a fee payer that signs and sends (none of this owner's wallets), a memo
 * no longer than x402 allows.
 */
function checkSolanaTerms(offer: X402Offer, chosen: X402Requirement, agent: AgentRecord, owner: string): void {
  if (chosen.feePayer === null || !isSolanaAddress(chosen.feePayer)) {
    throw new CofferError(
      'unsupported_offer',
      'the x402 offer names no fee payer (extra.feePayer): Coffer does not pay the fees of a seller',
    );
  }
  const memo = memoOf(chosen);
  if (memo !== null && new TextEncoder().encode(memo).length > MAX_MEMO_BYTES) {
    throw new CofferError('unsupported_offer', `the x402 offer's memo is longer than the ${MAX_MEMO_BYTES} bytes x402 allows`);
  }
  if (chosen.feePayer === agent.walletAddress || chosen.feePayer === owner) {
    throw new CofferError(
      'unsupported_offer',
      "the x402 offer names one of this treasury's wallets as its fee payer: Coffer signs only as the payer",
    );
  }
}

/** The longest memo x402's exact scheme puts on chain. */
const MAX_MEMO_BYTES = 256;

/**
 * v2 sellers may bind a payment to their nonce with `extra.memo` (of the very entry paid): on Solana
 * it goes on chain in the transfer; on Base it is the seller's label only, kept with the payment (an
 * EVM transfer carries no memo), and a memo paid once is not paid again (nonce_already_paid).
 */
function memoOf(requirement: X402Requirement): string | null {
  const memo = requirement.extra.memo;
  return typeof memo === 'string' && memo.length > 0 ? memo : null;
}

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
