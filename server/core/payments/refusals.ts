/**
 * The decisions on a payment besides its policy (policy/rules.ts) and its agent's kill switch
 * (agent-lookup.ts): pure, each answers its refusal or null. judge.ts takes them in order, with
 * what they judge read from the ledger, and `refuse`s the first.
 */
import { CofferError, type Refusal } from '../../wire/errors.js';
import { formatUsdc, parseAmount } from '../../wire/money.js';
import { coffersNonceTerms } from '../../wire/paywall-nonce.js';
import type { AgentRecord, PaymentRecord, ServiceRecord } from '../ports/store.js';
import { railName } from '../../wire/rail-words.js';
import type { Rail } from '../../wire/rails.js';
import type { AlsoShort, PaymentAsked } from './payment.js';

/**
 * One rule for every door (HTTP, MCP, CLI, payingFetch, x402): a registry service is never paid more
 * than it lists, whoever asks; a seller's 402 asking for more is a seller to look at, not to pay.
 * `paidThere`: the registry's services paid to an address, named where the cap is theirs (read only
 * for a refusal), so that the agent can look up their prices by name.
 */
export const priceCapRefusal = (
  { service, recipient, listed, amount }: PriceCapped,
  paidThere: (recipient: string) => string[] = () => [],
): Refusal =>
  listed === null || amount <= listed
    ? null
    : new CofferError(
        'price_above_registry',
        // No one service of the registry is this one (several are paid to that address, and it names
        // none of them, nor is bought at one's URL): the cap is the dearest of theirs, said so.
        `${formatUsdc(amount)} USDC is more than the ${formatUsdc(listed)} USDC the registry lists for ${service === null ? `the services paid to ${servicesThere(recipient, paidThere)}` : `"${service.id}"`}`,
      );

const servicesThere = (recipient: string | undefined, paidThere: (recipient: string) => string[]): string => {
  if (recipient === undefined) return 'that address';
  const ids = paidThere(recipient);
  return ids.length === 0 ? recipient : `${recipient} (${ids.join(', ')})`;
};

/** What the registry's price caps: the service paid (null: none of the registry's is named), its recipient, the cap and the amount. */
type PriceCapped = Pick<PaymentAsked, 'service' | 'recipient' | 'listed' | 'amount'>;

/**
 * A payment without a seller's nonce is redeemed by its receipt alone: a Coffer paywall takes it once
 * for a route priced at most what it paid (API.md, the paywall). Below the registry's per-call price
 * it buys no call, so it is refused before anything moves rather than paid for nothing. With a nonce
 * the seller's 402 named the price (the paywall holds the payment to it); outside the registry, and
 * for services priced by resolution, Coffer does not know the price and the paywall alone judges.
 */
export function buysNoCallRefusal(service: ServiceRecord, amount: bigint): Refusal {
  if (service.pricePerCall === null) return null;
  const price = parseAmount(service.pricePerCall);
  if (amount >= price) return null;
  return new CofferError(
    'price_below_registry',
    `${formatUsdc(amount)} USDC is less than the ${formatUsdc(price)} USDC the registry lists for a call to "${service.id}": ` +
      'without the nonce of its 402 such a payment buys nothing, so nothing was paid',
  );
}

/**
 * A Coffer paywall's nonce names the price of its 402 (server/wire/paywall-nonce.ts), and the paywall
 * refuses the receipt of a payment of less (amount_too_small): such a payment buys nothing, so it is
 * refused before anything moves. A 402 whose amount was lowered on its way to the agent, its nonce
 * left as the paywall wrote it, paid the lowered amount for nothing (helper 174). The price is read
 * without the paywall's key: a nonce made up to name more refuses only a payment its paywall would
 * refuse anyway. Another seller's nonce names no price Coffer reads.
 */
export function belowNoncesPriceRefusal(nonce: string | undefined, amount: bigint): Refusal {
  const terms = nonce === undefined ? null : coffersNonceTerms(nonce);
  if (terms === null || amount >= terms.amount) return null;
  return new CofferError(
    'amount_below_terms',
    `${formatUsdc(amount)} USDC is less than the ${formatUsdc(terms.amount)} USDC the seller's terms (its nonce) name: ` +
      'its paywall refuses the receipt of less, so nothing was paid',
  );
}

/**
 * An archived agent's wallet is out of use: money paid into it would sit where no key spends it and
 * the owner no longer looks.
 */
export const archivedRecipientRefusal = (recipient: string, archived: AgentRecord | null): Refusal =>
  archived === null
    ? null
    : new CofferError(
        'recipient_archived',
        `${recipient} is the wallet of agent "${archived.agentId}", which is archived: it takes no payments`,
      );

/**
 * Where else an offer held to one rail is payable, as a refusal there says it: a purchase with no rail
 * asked; where the owner's yes held it to `rail`, one asked anew, without the approvalId (the yes
 * covers only the rail it was asked on).
 */
export const payableElsewhere = (elsewhere: Rail, rail: Rail, byYes: boolean): string =>
  byYes
    ? `the owner's yes is for ${railName(rail)}: on ${railName(elsewhere)}, where the offer is payable too, it is a purchase asked anew, without the approvalId`
    : `the offer is payable on ${railName(elsewhere)} too, with no rail asked`;

/**
 * What the wallet holds on the rail paid, beyond what it has promised away there (pending payments and
 * returns), must cover the payment. `alsoShort`: the other rail the offer was payable on, short too
 * (`free` null: not read, the agent having asked for this rail; the words say it is payable there).
 */
export const balanceRefusal = (available: bigint, amount: bigint, rail: Rail, alsoShort?: AlsoShort): Refusal =>
  available >= amount
    ? null
    : new CofferError(
        'insufficient_funds',
        `the agent's wallet holds ${formatUsdc(available < 0n ? 0n : available)} USDC available on ${railName(rail)}, less than ${formatUsdc(amount)}` +
          (alsoShort === undefined
            ? ''
            : alsoShort.free === null
              ? `; ${payableElsewhere(alsoShort.rail, rail, alsoShort.byYes === true)}`
              : `; on ${railName(alsoShort.rail)}, where the offer is payable too, ${formatUsdc(alsoShort.free < 0n ? 0n : alsoShort.free)} USDC available`),
      );

/** What an earlier payment bought, where it says (an x402 payment's URL): ", for <url>". */
const forWhat = (earlier: PaymentRecord): string => (earlier.resource === null ? '' : `, for ${earlier.resource}`);

/** A paid API's nonce is paid once per recipient: `earlier` is a live payment of it. */
export const noncePaidRefusal = (earlier: PaymentRecord | null): Refusal =>
  earlier === null
    ? null
    : new CofferError(
        'nonce_already_paid',
        // Held, nothing is paid yet: it is the request the owner is asked, paid once if they say yes.
        earlier.status === 'held'
          ? `this nonce's payment (${earlier.id}${forWhat(earlier)}) waits for the owner's yes: nothing is paid yet, and it is paid once if they approve; ask with the approvalId its request was answered with to pick it up`
          : // Its URL said where it has one (x402): two services paid at one address may share a memo.
            `this nonce was already paid (${earlier.id}${forWhat(earlier)}); a paid API accepts it once`,
      );

/**
 * Two equal x402 payments signed under one blockhash are one transaction: it could land once and
 * confirm both. The second is not handed out (a moment later the blockhash, and so the transaction,
 * differs): `earlier` is a live payment with the same signed transaction.
 */
export const sameX402Refusal = (earlier: PaymentRecord | null): Refusal =>
  earlier === null
    ? null
    : new CofferError('chain_unavailable', 'an identical x402 payment is already on its way; ask again in a moment', {
        retryAfterSeconds: 1,
      });
