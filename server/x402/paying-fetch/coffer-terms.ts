/**
 * Coffer's own 402 as this Coffer can pay it: on which rail (the terms offered, the agent's funds, the
 * owner's preferred rail), and the prices the registry holds it to.
 */
import { tryParseUsdc } from '../../wire/money.js';
import type { PaymentInstructions } from '../payment-required.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import { RAILS } from '../../wire/rails.js';
import { railFirst } from '../../wire/rails.js';
import type { Rail } from '../../wire/rails.js';
import { mustRead } from './coffer-reach.js';
import type { PayingAgent } from './paying-fetch-options.js';
import { PaymentError } from './payment-error.js';
import { railName } from '../../wire/rail-words.js';

/**
 * The rail Coffer's own 402 is paid on where the agent asked none, where it offers Base on the chain
 * this Coffer pays Base on: the owner's preferred rail (settings, read with the wallets) where the
 * agent's wallet there holds the amount free, else the other where its wallet does (Solana first
 * with no preference), as Coffer chooses an x402 purchase's rail. Where neither does, Solana, not the
 * preferred rail as Coffer's x402 choice has it: Coffer's 402 is paid through /pay, whose refusal on
 * Solana alone names Base's figure beside it (withBaseFunds). `null` where there is nothing to choose (Solana alone offered, or Base on another
 * chain): paid on Solana, as before. The wallets are read, not reserved: a payment that reserved
 * meanwhile is Coffer's to refuse.
 */
export async function fundsOnEachRail(api: CofferClient, agent: PayingAgent, offered: PaymentInstructions, baseChainId: number | null) {
  if (offered.base === null || offered.base.chainId !== baseChainId) return null;
  const asked = tryParseUsdc(offered.amount);
  // A wallet not read now is not chosen, and is not named in a refusal: Solana pays or refuses as before.
  // Read over a client whose requests end after BALANCE_READ_MS: a node slow to answer (Base's client
  // waits 15 s, and asks twice) delays no payment, nor a command's exit, by more.
  const read = await api.balance(agent.agentId).then(
    ({ available, preferredRail }) => ({ available, preferredRail }),
    () => null,
  );
  const covers = (rail: Rail) => {
    // An older Coffer's balance answer has no `available`: nothing read, nothing chosen.
    const free = read?.available?.[rail];
    return asked !== null && free != null && (tryParseUsdc(free) ?? -1n) >= asked;
  };
  const order = railFirst(
    RAILS.map((rail) => ({ rail })),
    read?.preferredRail ?? null,
  );
  const chosen: Rail = order.find(({ rail }) => covers(rail))?.rail ?? 'sol';
  return { chosen, free: { sol: read?.available?.sol ?? null, base: read?.available?.base ?? null } };
}

/**
 * Coffer's 402 refused on one rail for want of funds, where it is payable on the `other` too: the
 * refusal says what the agent's wallet there holds free, as an x402 offer payable on both rails does;
 * where that wallet was not read, or held the amount when read (a payment reserved meanwhile), it says
 * the 402 can be paid there, and how (helper 189: asked on Base, Solana holding it went unsaid). Not
 * where the refusal stopped the agent (its breaker): asking again pays nothing then.
 */
export function withOtherRailFunds(error: PaymentError, other: Rail, otherFree: string | null) {
  if (error.details.cofferCode !== 'insufficient_funds' || error.details.agentStopped !== undefined) return error;
  const asked = tryParseUsdc(error.details.instructions?.amount ?? '');
  const short = otherFree !== null && asked !== null && (tryParseUsdc(otherFree) ?? 0n) < asked;
  const name = railName(other);
  const said = short
    ? `; on ${name}, where the 402 is payable too, ${otherFree} USDC available`
    : `; the 402 can be paid on ${name} too: ask again with the rail "${other}" to pay it from the agent's ${name} wallet`;
  // The call offered only where the other wallet was read holding the amount: unread, paying there may be refused too.
  const covers = otherFree !== null && !short;
  return new PaymentError(error.code, `${error.message}${said}`, { ...error.details, ...(covers ? { otherRail: other } : {}) });
}

/**
 * Coffer's terms as paid on Base (`rail: "base"`): the same amount, nonce and service, to the 402's
 * recipient there. A 402 that offers Solana alone, Base on another chain than this Coffer's, or any
 * 402 where this Coffer pays no Base (its rail off) is refused before anything is paid.
 */
export function onBase(instructions: PaymentInstructions, baseChainId: number | null, url: string): PaymentInstructions {
  const { base } = instructions;
  const refused = (why: string) =>
    new PaymentError('unsupported_offer', `${url} cannot be paid on Base: ${why}; not paid`, { instructions });
  // None offered, or one whose recipient no payment can go to (payment-required.ts drops it).
  if (base === null)
    throw refused('it offers no Base payment Coffer can read (none, or its base.recipient no EVM address that can be paid)');
  if (baseChainId === null) throw refused("this Coffer's Base rail is off");
  if (base.chainId !== baseChainId)
    throw refused(`it asks for Base on chain ${base.chainId}; this Coffer pays Base on chain ${baseChainId}`);
  // Its network is Solana's, which this payment does not touch.
  return { ...instructions, recipient: base.recipient, network: null };
}

/** Which of the 402's rails this Coffer can pay: Solana on its own network, Base on its own chain. */
export function railsPayable(offered: PaymentInstructions, coffer: { network: string; baseChainId: number | null }) {
  return {
    sol: offered.network === null || offered.network === coffer.network,
    base: offered.base !== null && coffer.baseChainId !== null && offered.base.chainId === coffer.baseChainId,
  };
}

/**
 * Coffer's 402 on another network than this Coffer's: read, but not payable here (unsupported_offer,
 * as an x402 offer on another network is; it was unreadable_402, though nothing was unread).
 */
export function checkNetwork(instructions: PaymentInstructions, network: string, url: string) {
  if (instructions.network !== null && instructions.network !== network) {
    throw new PaymentError('unsupported_offer', `${url} wants payment on ${instructions.network}; this Coffer pays on ${network}`, {
      instructions,
    });
  }
}

/**
 * Which registry service this 402 is for, and the prices it is held to. The service it names, when
 * the registry lists it: Coffer holds a listed service to its price and to its recipient on the rail
 * paid (price_above_registry, recipient_mismatch, service_not_on_rail), so those are Coffer's to say,
 * and `onBase` says whether it is paid on Base at all. What Coffer cannot know is read here: for a 402
 * that names no listed service, the dearest price the registry lists for its wallet on each rail
 * (Base's where it is offered on this Coffer's Base chain). The wallet paid is held to its own; one
 * the registry does not list, to the other rail's, so that an unlisted rail is no way around the price
 * listed for the other.
 */
export async function registryListing(agent: PayingAgent, offered: PaymentInstructions, baseChainId: number | null, api: CofferClient) {
  const service = offered.service;
  // A service the registry does not list (404) is paid by its recipients' listings alone.
  const named =
    service === null
      ? null
      : await mustRead(agent, 'check the registry', () =>
          api.service(service).catch((error: unknown) => {
            if (error instanceof CofferApiError && error.status === 404) return null;
            throw error;
          }),
        );
  if (named !== null) return { serviceId: named.id, onBase: named.base !== null, caps: { sol: null, base: null } };
  const capOf = async (wallet: string) =>
    dearestCallPrice(wallet, await mustRead(agent, 'check the registry', () => api.servicesPaidTo(wallet)));
  const base = offered.base !== null && offered.base.chainId === baseChainId ? offered.base.recipient : null;
  const [solCap, baseCap] = await Promise.all([capOf(offered.recipient), base === null ? null : capOf(base)]);
  return { serviceId: null, onBase: true, caps: { sol: solCap, base: baseCap } };
}

/**
 * The dearest price a call is listed at among a wallet's listings, with the ids of the services paid
 * there (named where the price refuses a payment, so that the agent can look their prices up); null
 * where none lists one. A first check in the agent's process, before anything is asked: the server's
 * cap (core/registry/registry.ts, a model's prices by resolution too) is the one that holds.
 */
function dearestCallPrice(wallet: string, listed: { results: { id: string; pricePerCall: string | null }[] }) {
  const services = listed.results.map((listing) => listing.id);
  return listed.results
    .map((listing) => listing.pricePerCall)
    .filter((price): price is string => price !== null)
    .reduce<{ text: string; micro: bigint; wallet: string; services: string[] } | null>((max, text) => {
      const micro = tryParseUsdc(text) ?? 0n;
      return max === null || micro > max.micro ? { text, micro, wallet, services } : max;
    }, null);
}
