/**
 * Why no entry of a seller's x402 offer is paid, in words that say what was offered: the terms Coffer
 * does not sign, the signing's refusal, or the offer's entries beside where Coffer pays x402 (and why a
 * rail pays none here). x402-entry.ts refuses with it.
 */
import { DEMO_EVM_CHAIN_ID, DEMO_EVM_NETWORK } from '../../wire/network-words.js';
import { CofferError } from '../../wire/errors.js';
import type { EngineContext } from '../context.js';
import type { AgentRecord } from '../ports/store.js';
import type { X402Offer, X402Requirement } from '../ports/x402.js';
import { RAILS, isEvmAddress, isSolanaAddress, isZeroEvmAddress, type Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { chainOf, openBase } from '../rails.js';
import { byEip3009, EIP3009_ONLY, isUsdcOn } from './x402-payable.js';
import { paysSomeone } from './paid-to.js';
import { chainFamilyOf, memoFault, payablesOn, railNamed, termsFault, x402NetworkOf, type Payable } from './x402-offer-entries.js';

/**
 * Why no entry of the offer is paid, in words: the terms Coffer does not sign where every payable
 * entry has such; the rail's signing refusal (on Base, another token's name) where it refuses each;
 * else what the seller offers (its first few entries) beside where Coffer pays x402, and where else
 * the offer is payable.
 */
export function unpayableOffer(
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

/** How many of an unpayable offer's entries its refusal names. */
const ENTRIES_SAID = 5;

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
 * A seller's text as the words quote it: as written where it is one plain word, else as a JSON
 * string with every character outside printable ASCII escaped (\uXXXX), so that a space, an empty
 * value, or an invisible or reordering character in it shows and moves nothing around it.
 */
const spelled = (text: string): string =>
  /^[\x21-\x7e]+$/.test(text)
    ? text
    : JSON.stringify(text).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

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
