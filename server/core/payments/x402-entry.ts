/**
 * Which entry of a seller's x402 offer Coffer pays, and on which rail: scheme `exact` in USDC on a
 * network of a rail Coffer pays x402 on (the rail asked, or the one whose wallet holds the amount,
 * the owner's preferred first), to someone a payment reaches (paid-to.ts), on terms the agent's
 * wallet can sign, the cheapest such entry on its rail that the agent's policy and the registry's
 * price allow (under an approval, that the owner's yes covers; else the cheapest, whose refusal is
 * said); anything else refused before any money moves, in words that say what was offered.
 * x402-pay.ts buys the entry chosen here.
 */
import type { EngineContext } from '../context.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import type { X402Offer } from '../ports/x402.js';
import { RAILS, railFirst, type Rail } from '../../wire/rails.js';
import { preferredRailOf } from '../settings.js';
import { freeBalance, walletReading } from '../wallet-balance.js';
import type { PaidMemo } from './payment.js';
import { challengeMemosOf, payablesOn, termsFault, type Payable } from './x402-offer-entries.js';
import { unpayableOffer } from './x402-unpayable.js';

/**
 * The offer's requirement Coffer pays: scheme `exact` in USDC on a network of a rail Coffer pays x402
 * on (the rail asked for, if any), on terms Coffer signs (termsFault), the cheapest on its rail of
 * those `preferred` (the agent's policy and the registry's price allow them; under an approval, the
 * owner's yes covers them), else the cheapest. Where the offer can be paid on both rails, the owner's
 * preferred rail where its wallet holds the amount (after what is pending) and its entry is
 * preferred, else the first that does, Solana first (railWithFunds). Anything else is refused before
 * any money moves, saying what was offered. `askedByYes`: the rail asked is the one the owner's yes
 * was for (a refusal for want of funds there says so, not that no rail was asked).
 */
export async function payableRequirement(
  ctx: EngineContext,
  offer: X402Offer,
  agent: AgentRecord,
  owner: string,
  asked: Rail | undefined,
  preferred: (payable: Payable) => boolean,
  askedByYes = false,
): Promise<{ chosen: Payable; keyed: Payable[]; challengeMemos: PaidMemo[]; instead?: Payable }> {
  const rails = RAILS.filter((rail) => asked === undefined || rail === asked);
  // Every rail's entries on terms Coffer signs, read once, whatever the rail asked.
  const signedOn = new Map(RAILS.map((rail) => [rail, signedTermsOn(ctx, offer, rail, agent, owner)]));
  const payables = rails.map((rail) => signedOn.get(rail)!);
  // What a retry's Idempotency-Key is hashed over: the cheapest payable entry on each rail, as the
  // offer states it, not whether its signing would refuse it now (the token may be unread: the node
  // answering or not would make one request two), nor whether the policy allows it now.
  const keyed = payables.map((onRail) => onRail[0]).filter((payable): payable is Payable => payable !== undefined);
  const signable = await Promise.all(payables.map((onRail) => firstSignable(ctx, onRail, preferred)));
  const onRails = signable.map(({ payable }) => payable).filter((payable): payable is Payable => payable !== null);
  const first = onRails[0];
  if (first === undefined)
    throw unpayableOffer(
      ctx,
      offer,
      asked,
      { agent, owner, signedOn },
      signable.map(({ refusal }) => refusal),
    );
  // Asked for on one rail: a refusal for want of funds there says where else the offer is payable.
  const alsoPayable = asked === undefined ? undefined : RAILS.find((rail) => rail !== asked && signedOn.get(rail)!.length > 0);
  const chosen =
    onRails.length > 1
      ? await railWithFunds(ctx, agent, onRails, preferred)
      : alsoPayable === undefined
        ? first
        : { ...first, alsoShort: { rail: alsoPayable, free: null, ...(askedByYes ? { byYes: true as const } : {}) } };
  // Chosen by funds (both rails payable, the chosen one's wallet holding the amount when read): the
  // other rail, where the offer is tried should the chosen one run short before its reservation.
  const other = chosen.alsoShort === undefined ? onRails.find((payable) => payable.rail !== chosen.rail) : undefined;
  return { chosen, keyed, challengeMemos: challengeMemosOf(offer), ...(other !== undefined ? { instead: other } : {}) };
}

/** A rail's payable entries on terms Coffer signs for this agent (termsFault), the cheapest first. */
const signedTermsOn = (ctx: EngineContext, offer: X402Offer, rail: Rail, agent: AgentRecord, owner: string): Payable[] =>
  payablesOn(ctx, offer, rail).filter((payable) => termsFault(payable, ctx, agent, owner) === null);

/**
 * The first of a rail's payable requirements (the cheapest first) its signing would not refuse
 * whatever the payer and that is `preferred`, else the first it would not refuse; null with why it
 * would refuse the first, where it would refuse each. Judged entry by entry, until one is found.
 */
async function firstSignable(
  ctx: EngineContext,
  payables: Payable[],
  preferred: (payable: Payable) => boolean,
): Promise<{ payable: Payable | null; refusal: string | null }> {
  let refused: string | null = null;
  let signable: Payable | null = null;
  // One entry is no choice: the policy is not asked here (it judges the entry at the door).
  if (payables.length === 1) preferred = () => true;
  for (const payable of payables) {
    if (signable !== null && !preferred(payable)) continue;
    const refusal = await ctx.x402!.signingRefusal(payable.requirement, payable.rail);
    if (refusal !== null) {
      refused ??= refusal;
      continue;
    }
    if (signable !== null || preferred(payable)) return { payable, refusal: null };
    signable = payable;
  }
  return signable !== null ? { payable: signable, refusal: null } : { payable: null, refusal: refused };
}

/**
 * Of an offer payable on both rails, the rails whose entry is `preferred` (the policy allows it)
 * first: the owner's preferred rail where the agent's wallet there holds the amount beside what it
 * has pending, else the first that does (Solana first), else the first of them, whose reservation
 * then refuses it for want of funds.
 */
async function railWithFunds(
  ctx: EngineContext,
  agent: AgentRecord,
  payables: Payable[],
  preferred: (payable: Payable) => boolean,
): Promise<Payable> {
  // The rails whose entry the policy allows first, each in the owner's order (Solana first where none).
  const byRail = railFirst(payables, preferredRailOf(ctx));
  const allowed = new Set(byRail.filter(preferred));
  const ordered = [...allowed, ...byRail.filter((payable) => !allowed.has(payable))];
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
export const freeOn = async (ctx: EngineContext, agent: AgentRecord, { rail, requirement }: Payable): Promise<bigint> =>
  freeBalance(ctx, agent, rail, (await walletReading(ctx, agent, rail, requirement.amount)).reading);

/** What the owner approved of a held purchase: its rail, recipient and amount. */
export type HeldTerms = Pick<PaymentRecord, 'rail' | 'recipient' | 'amount'>;

/**
 * The purchase this agent's approval holds, as approved; undefined for any other id (another agent's
 * or owner's says nothing here). Its checks come later, in x402-pay.ts underApproval.
 */
export function heldTerms(ctx: EngineContext, agent: AgentRecord, approvalId: string): HeldTerms | undefined {
  const approval = ctx.store.getApproval(approvalId);
  if (approval === null || approval.owner !== agent.owner || approval.agentId !== agent.agentId || approval.paymentId === null)
    return undefined;
  return ctx.store.getPayment(approval.paymentId) ?? undefined;
}

/**
 * Whether the owner's yes covers an entry (to the recipient approved, at most the amount approved):
 * a seller's fresh terms that add a cheaper entry to someone else do not turn the approved purchase
 * into another one, refused as approval_mismatch.
 */
export const coveredBy =
  (approved: HeldTerms) =>
  (payable: Payable): boolean =>
    payable.rail === approved.rail && payable.recipient === approved.recipient && payable.requirement.amount <= approved.amount;
