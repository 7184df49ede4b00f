/**
 * Which entry of a seller's x402 offer Coffer pays, and on which rail: scheme `exact` in USDC on a
 * network of a rail Coffer pays x402 on (the rail asked, or the one whose wallet holds the amount,
 * the owner's preferred first), to someone a payment reaches (paid-to.ts), on terms the agent's
 * wallet can sign, the cheapest such entry on its rail that the agent's policy and the registry's
 * price allow (under an approval, that the owner's yes covers; else the cheapest, whose refusal is
 * said); anything else refused before any money moves, in words that say what was offered.
 * x402-pay.ts buys the entry chosen here.
 */
import { DEMO_EVM_CHAIN_ID, DEMO_EVM_NETWORK } from '../../wire/network-words.js';
import { CofferError } from '../../wire/errors.js';
import type { EngineContext } from '../context.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import type { X402Offer, X402Requirement } from '../ports/x402.js';
import { RAILS, checksummedEvmAddress, isEvmAddress, isSolanaAddress, isZeroEvmAddress, railFirst, type Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { chainOf, openBase } from '../rails.js';
import { preferredRailOf } from '../settings.js';
import { freeBalance, walletReading } from '../wallet-balance.js';
import { byEip3009, EIP3009_ONLY, isPayableOn, isUsdcOn } from './x402-payable.js';
import { isOwnWallet, paysSomeone } from './paid-to.js';
import type { AlsoShort, PaidMemo } from './payment.js';

/** The requirement of an offer Coffer pays, the rail it is paid on, and its recipient as the ledger spells it. */
export interface Payable {
  requirement: X402Requirement;
  rail: Rail;
  recipient: string;
  /**
   * The other rail the offer is payable on, whose wallet does not hold the amount either
   * (railWithFunds); `free` null where this rail was asked for (payment.ts AlsoShort), the other unread.
   */
  alsoShort?: AlsoShort;
}

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
 * Why no entry of the offer is paid, in words: the terms Coffer does not sign where every payable
 * entry has such; the rail's signing refusal (on Base, another token's name) where it refuses each;
 * else what the seller offers (its first few entries) beside where Coffer pays x402, and where else
 * the offer is payable.
 */
function unpayableOffer(
  ctx: EngineContext,
  offer: X402Offer,
  asked: Rail | undefined,
  { agent, owner, signedOn }: { agent: AgentRecord; owner: string; signedOn: ReadonlyMap<Rail, Payable[]> },
  signingRefusals: (string | null)[],
): CofferError {
  const rails = RAILS.filter((rail) => asked === undefined || rail === asked);
  // Terms Coffer does not sign said only where no entry considered has others (else the signing's refusal, or the offer, is why).
  const faulty = rails.flatMap((rail) => payablesOn(ctx, offer, rail));
  const signed = rails.some((rail) => signedOn.get(rail)!.length > 0);
  const fault = signed || faulty.length === 0 ? null : termsFault(faulty[0]!, ctx, agent, owner);
  // The rail asked for named, and the other where the offer is payable there: the refusal is the ask's.
  const elsewhere = RAILS.find((rail) => asked !== undefined && rail !== asked && signedOn.get(rail)!.length > 0);
  const payableElsewhere = elsewhere === undefined ? '' : `; it is payable on ${railName(elsewhere)}, with no rail asked`;
  if (fault !== null) return new CofferError('unsupported_offer', `${fault}${payableElsewhere}`);
  const refusal = signingRefusals.find((each) => each !== null);
  if (refusal !== undefined && refusal !== null) return new CofferError('unsupported_offer', refusal);
  // The first few entries said (an offer may hold hundreds), and how many more there are.
  const said = offer.requirements.slice(0, ENTRIES_SAID).map((entry) => {
    const rail = railNamed(ctx, entry.network, offer.x402Version);
    return `${spelled(entry.scheme)} on ${spelled(entry.network)} in ${spelled(entry.asset)}${offeredHow(entry, rail === undefined ? undefined : { rail, usdc: chainOf(ctx, rail).usdc })}`;
  });
  const more = offer.requirements.length - said.length;
  const offered = (said.join('; ') || 'nothing') + (more > 0 ? `; and ${more} more entr${more === 1 ? 'y' : 'ies'}` : '');
  const where = rails.map((rail) => x402NetworkOf(ctx, rail, offer.x402Version)).filter((name): name is string => name !== null);
  // Why a rail considered pays no x402 here at all, so that what the seller offers there is not
  // read as a fault of the offer (x402 on Solana where this Coffer runs on sim): where another rail
  // pays x402, only for a rail the offer has an entry of (on sim an offer on Base alone is refused
  // for its entry's fault, which a word on Solana would only hide).
  const whyNot = rails
    .filter((rail) => x402NetworkOf(ctx, rail, offer.x402Version) === null)
    .filter((rail) => where.length === 0 || offer.requirements.some((entry) => chainFamilyOf(entry.network, offer.x402Version) === rail))
    .map((rail) => `; ${noX402Here(ctx, rail, offer.x402Version)}`)
    .join('');
  return new CofferError(
    'unsupported_offer',
    (where.length === 0
      ? `x402 ${offer.x402Version === 1 ? 'v1 ' : ''}is not paid on ${asked === undefined ? 'any rail' : railName(asked)} here; the seller offers ${offered}${payableElsewhere}${whyNot}`
      : `${asked === undefined ? '' : `on ${railName(asked)}, the rail asked: `}Coffer pays x402 "exact" in USDC on ${where.join(' or ')}; the seller offers ${offered}${payableElsewhere}${whyNot}`) +
      demoSellerWords(ctx, offer),
  );
}

/**
 * Why Coffer does not sign an entry's terms for this agent, whatever its wallet holds: it pays the
 * agent's own wallet on that rail (nothing would be bought), or on Solana it names no fee payer that
 * signs and sends, or one of this treasury's wallets (Coffer signs only as the payer). Null where it
 * signs them.
 */
function termsFault(payable: Payable, ctx: EngineContext, agent: AgentRecord, owner: string): string | null {
  if (isOwnWallet(ctx, agent, payable.recipient, payable.rail)) {
    return `the x402 offer pays this agent's own wallet on ${railName(payable.rail)} (${payable.recipient}): nothing would be bought`;
  }
  if (payable.rail !== 'sol') return null;
  const { feePayer } = payable.requirement;
  if (feePayer === null || !isSolanaAddress(feePayer)) {
    return 'the x402 offer names no fee payer (extra.feePayer): Coffer does not pay the fees of a seller';
  }
  if (feePayer === agent.walletAddress || feePayer === owner) {
    return "the x402 offer names one of this treasury's wallets as its fee payer: Coffer signs only as the payer";
  }
  return null;
}

/**
 * What an entry offered says beyond its network and asset where that makes it unpayable: its amount
 * unread or 0, an asset or a payTo the rail its network is here does not pay (on another network, the
 * network is why), its memo, its transfer method.
 */
function offeredHow(entry: X402Requirement, here: { rail: Rail; usdc: string } | undefined): string {
  const method = entry.extra.assetTransferMethod;
  const by = byEip3009(method) ? '' : ` by ${spelled(String(method))} (${EIP3009_ONLY})`;
  const amount = entry.amount < 0n ? ' (its amount unreadable)' : entry.amount === 0n ? ' (an amount of 0)' : '';
  const onRail = here === undefined ? '' : `${assetFault(entry, here)}${recipientFault(entry, here.rail)}`;
  return `${amount}${onRail}${memoFault(entry)}${by}`;
}

/**
 * Why an entry's asset is not paid on its rail: not that network's USDC, whose address is said, or
 * on an EVM chain its address in a letter case that is no EIP-55 checksum, which an address mistyped
 * would be too (nothing where it is paid).
 */
function assetFault({ asset }: X402Requirement, { rail, usdc }: { rail: Rail; usdc: string }): string {
  if (isUsdcOn(rail, usdc, asset)) return '';
  return rail === 'base' && asset.toLowerCase() === usdc.toLowerCase()
    ? ` (this network's USDC in a letter case that is no checksum; ${usdc})`
    : ` (not this network's USDC, ${usdc})`;
}

/**
 * A seller's text as the words quote it: as written where it is one plain word, else as a JSON
 * string with every character outside printable ASCII escaped (\uXXXX), so that a space, an empty
 * value, or an invisible or reordering character in it shows and moves nothing around it.
 */
const spelled = (text: string): string =>
  /^[\x21-\x7e]+$/.test(text)
    ? text
    : JSON.stringify(text).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A memo is text the seller matches its payment by, and Coffer its earlier purchases by
 * (nonce_already_paid), kept with the payment: an entry whose memo is of another type, or longer than
 * x402's exact scheme puts on chain (on Base too, where no transfer carries it), is not paid.
 */
function memoFault(entry: X402Requirement): string {
  const memo = entry.extra.memo;
  if (memo === undefined) return '';
  if (typeof memo !== 'string') return ' (its extra.memo not text)';
  return new TextEncoder().encode(memo).length > MAX_MEMO_BYTES
    ? ` (its extra.memo longer than the ${MAX_MEMO_BYTES} bytes x402 allows)`
    : '';
}

/** Why an entry's payTo takes no payment on its rail, in words (nothing where it may). */
function recipientFault({ payTo, asset }: X402Requirement, rail: Rail): string {
  // An EVM address whose letters fail its EIP-55 checksum is refused as one mistyped (as the asset is).
  if (rail === 'base' && !isEvmAddress(payTo)) {
    return isEvmAddress(payTo.toLowerCase())
      ? " (its payTo in a letter case that is no checksum, as a mistyped address's would be)"
      : ' (its payTo not an EVM address)';
  }
  if (rail === 'sol' && !isSolanaAddress(payTo)) return ' (its payTo not a Solana address)';
  if (rail === 'base' && isZeroEvmAddress(payTo)) return ' (to the zero address)';
  return paysSomeone(payTo, asset) ? '' : " (to the token's own contract)";
}

/**
 * Which rail's kind of chain an x402 network is: Solana's (`solana`, `solana-devnet`,
 * `solana:<genesis>`), an EVM chain's (Base's kind: `eip155:<id>`, or in v1, which names no other
 * kinds, any other name), or neither (v2's other namespaces, `aptos:1`).
 */
const chainFamilyOf = (network: string, version: number): Rail | null =>
  network.startsWith('solana') ? 'sol' : network.startsWith('eip155:') || version === 1 ? 'base' : null;

/** The rail whose network this Coffer's x402 names so in an offer of this version; undefined for another network. */
const railNamed = (ctx: EngineContext, network: string, version: number): Rail | undefined =>
  RAILS.find((rail) => x402NetworkOf(ctx, rail, version) === network);

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

/** Why a rail pays no x402 of this version on this Coffer: its network has no x402 name, or the rail is off. */
function noX402Here(ctx: EngineContext, rail: Rail, version: number): string {
  if (rail === 'sol') {
    return `x402 pays Solana on devnet and mainnet, and this Coffer's Solana is ${ctx.chain.network}`;
  }
  const base = openBase(ctx);
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

/**
 * The offer's requirements Coffer can pay on a rail (x402-payable.ts says which), the cheapest first
 * (in the offer's order where equal): a seller listing a dear entry first is not paid more for it,
 * and an entry above the agent's limits refuses nothing where a cheaper one fits.
 */
function payablesOn(ctx: EngineContext, offer: X402Offer, rail: Rail): Payable[] {
  const network = x402NetworkOf(ctx, rail, offer.x402Version);
  if (network === null) return [];
  const here = { network, usdc: chainOf(ctx, rail).usdc };
  return offer.requirements
    .filter((entry) => isPayableOn(rail, here, { ...entry, transferMethod: entry.extra.assetTransferMethod }) && memoFault(entry) === '')
    .sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0))
    .map((requirement) => ({
      requirement,
      rail,
      recipient: rail === 'base' ? checksummedEvmAddress(requirement.payTo) : requirement.payTo,
    }));
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

/** How many of an unpayable offer's entries its refusal names. */
const ENTRIES_SAID = 5;

/** The longest memo x402's exact scheme puts on chain. */
const MAX_MEMO_BYTES = 256;

/**
 * The seller's memos on an offer's entries, each with its entry's recipient as the ledger spells it:
 * the challenge they bind, paid once whichever entry is paid, on either rail. Every entry's, payable
 * now or not: one paid while Coffer still paid it (before the Base rail closed, or its terms changed)
 * is that challenge paid. Each pair once (an offer may list one recipient and memo at many prices,
 * each looked up in the write); a memo longer than x402 allows was never paid.
 */
function challengeMemosOf(offer: X402Offer): PaidMemo[] {
  const pairs = new Map<string, PaidMemo>();
  for (const requirement of offer.requirements) {
    const memo = memoOf(requirement);
    if (memo === null || memoFault(requirement) !== '') continue;
    const recipient = isEvmAddress(requirement.payTo) ? checksummedEvmAddress(requirement.payTo) : requirement.payTo;
    pairs.set(JSON.stringify([recipient, memo]), { recipient, memo });
  }
  return [...pairs.values()];
}

/**
 * v2 sellers may bind a payment to their nonce with `extra.memo` (of the very entry paid): on Solana
 * it goes on chain in the transfer; on Base it is the seller's label only, kept with the payment (an
 * EVM transfer carries no memo), and a memo paid once is not paid again (nonce_already_paid).
 */
export function memoOf(requirement: X402Requirement): string | null {
  const memo = requirement.extra.memo;
  return typeof memo === 'string' && memo.length > 0 ? memo : null;
}
