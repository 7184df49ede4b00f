/**
 * The x402 face of a Coffer paywall: the offers its 402 adds, and a payment presented checked,
 * settled by its facilitator and accepted once (the rules each step follows live in the files it
 * imports: paywall-rails.ts, payment-match.ts, settling-now.ts, payment-claims.ts,
 * x402-settlement.ts, accepted-payment.ts).
 */
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { PaymentRequirementsV1 } from '@x402/core/types/v1';
import type { Rail } from '../../wire/rails.js';
import type { PaymentTerms } from '../payment-required.js';
import { authorizationRan, forgetSettlement, recorded, type X402Acceptance } from './accepted-payment.js';
import { ChainSearches } from './chain-searches.js';
import type { Facilitator } from './facilitator.js';
import { facilitatorFeePayer, facilitatorSettles } from './facilitator-kinds.js';
import { keptAnswer, sayingOnce } from './kept-answer.js';
import type { Nonces } from './nonces.js';
import { decodePayment, hasV1Name, matchOn, railOf, type PaymentMatch, type Route } from './payment-match.js';
import { claimOf, replayOfClaimed } from './payment-claims.js';
import type { PaywallBaseTerms, PaywallSolTerms, Rails } from './paywall-rails.js';
import type { PaywallStore } from './paywall-store.js';
import { baseSettling, carriedAuthorization, paidBefore, solanaSettling, type Settling } from './settled-on-chain.js';
import { SettlingNow } from './settling-now.js';
import { refuse, type X402Refusal } from './x402-refusal.js';
import { evmV1Requirements, evmV2Requirements, v1Requirements, v2Requirements } from './x402-requirements.js';
import { ResumableSettles, verifiedAndSettled } from './x402-settlement.js';

/**
 * The x402 face of a Coffer paywall, on Solana (devnet and mainnet) and on Base: its 402 offers the
 * route in x402 v1 (an `accepts` list in the body) and v2 (a `PAYMENT-REQUIRED` header, the
 * paywall's nonce as `extra.memo`). On Solana the payment's transaction carries that nonce on chain
 * and names the facilitator's fee payer; on Base the payer signs an EIP-3009 authorization the
 * facilitator sends (offered only while the facilitator says it settles there). A payment payload
 * (`PAYMENT-SIGNATURE`, or `X-PAYMENT` that is not a Coffer receipt) is checked against the terms this
 * paywall issued on its network (v2: its nonce, unused, for this route, in time, or settling since
 * before it ended), then verified and
 * settled by the facilitator before the route runs; the transaction it landed in is remembered like
 * a receipt's, so a payment buys one answer.
 */
export function createPaywallX402(options: {
  facilitator: Facilitator;
  /** Solana's terms, where x402 names the network (devnet, mainnet); null elsewhere. */
  sol: PaywallSolTerms | null;
  base: PaywallBaseTerms | null;
  store: PaywallStore;
  nonces: Nonces;
  log: (message: string) => void;
}) {
  const { sol, base } = options;
  if (sol === null && base === null) throw new Error('x402 pays on devnet or mainnet, or on Base; this paywall reads neither');
  const feePayer = sol === null ? null : facilitatorFeePayer(options.facilitator, sol.names.v2, options.log);
  const baseSettled = base === null ? null : facilitatorSettles(options.facilitator, base.names.v2, options.log);
  const settlingNow = new SettlingNow();
  /** The payments whose settlement was left pending, presented again (x402-settlement.ts). */
  const resumableSettles = new ResumableSettles();
  /** When the chain was last searched for a payment's settlement, by its claim (payment-claims.ts claimOf). */
  const searches = new ChainSearches();
  /** The Base token's name and version (read from the token once, kept as kept-answer.ts says), its trouble logged once. */
  const sayToken = sayingOnce(options.log);
  const tokenNaming =
    base === null
      ? null
      : keptAnswer(() =>
          base.tokenNaming().then(
            (naming) => (sayToken(null), naming),
            (error: unknown) => (sayToken(`paywall: the Base token's name could not be read: ${(error as Error).message}`), null),
          ),
        );
  /** The Base token's name and version while the facilitator settles there; null otherwise (both asked at once: one wait). */
  const baseToken = async () => {
    if (base === null || baseSettled === null || tokenNaming === null) return null;
    const [settles, token] = await Promise.all([baseSettled.current(), tokenNaming.current()]);
    return settles === null ? null : token;
  };
  const rails: Rails = { sol, base, feePayer, baseSettled, baseToken, nonces: options.nonces, store: options.store };

  return {
    /** What a 402 adds for x402 clients; nothing when the facilitator cannot be asked (receipts still work). */
    async offers(
      terms: PaymentTerms,
      error: string,
    ): Promise<{ body: { x402Version: 1; accepts: PaymentRequirementsV1[] } | null; header: string } | null> {
      const [fee, token] = await Promise.all([feePayer?.current().then((said) => said?.feePayer ?? null) ?? null, baseToken()]);
      const v2: PaymentRequirements[] = [];
      const v1: PaymentRequirementsV1[] = [];
      if (sol !== null && fee !== null) {
        v2.push(v2Requirements(sol, terms, fee));
        v1.push(v1Requirements(sol, terms, fee));
      }
      if (base !== null && token !== null) {
        v2.push(evmV2Requirements(base, terms, token));
        if (hasV1Name(base)) v1.push(evmV1Requirements(base, terms, token));
      }
      if (v2.length === 0) return null;
      const required: PaymentRequired = {
        x402Version: 2,
        error,
        resource: { url: terms.resource, description: terms.description, mimeType: 'application/json' },
        accepts: v2,
      };
      // No v1 list where x402 v1 names none of the networks offered (an EVM chain other than Base's):
      // an empty one would read as an offer of nothing.
      return { body: v1.length === 0 ? null : { x402Version: 1, accepts: v1 }, header: encodePaymentRequiredHeader(required) };
    },

    /**
     * Checks, verifies and settles an x402 payment for this route. Throws only when the facilitator
     * cannot be reached (the caller answers 503, and the payment can be presented again).
     */
    async accept(header: string, route: Route): Promise<X402Acceptance | X402Refusal> {
      const decoded = decodePayment(header);
      if (!decoded.ok) return decoded;
      const { payload } = decoded;
      const rail = railOf(payload, rails);
      if (typeof rail !== 'string') return rail;
      // On an EVM chain this paywall's terms are paid by an EIP-3009 authorization: any other payload
      // (a malformed field, Permit2, a Solana one) is refused here, as the facilitator's verify would
      // throw on it, which reads as its being unreachable (503, "try again") to a buyer who never can.
      if (rail === 'base' && carriedAuthorization(payload) === null) {
        return refuse(
          'invalid_payment',
          'the x402 payment on an EVM chain carries no EIP-3009 authorization this paywall takes (from, to, value, validAfter, validBefore as decimal text, a 32-byte nonce, a hex signature)',
        );
      }
      const match = await matchOn(rail, payload, route, rails);
      if (!match.ok) return match;
      const asOnChain = await settlingOn(rail, payload, match, rails);
      // Claimed before it is settled, not only recorded after, under the nonce it spends (a v1
      // payment, which names none, under its digest): two payments naming one nonce at once would
      // otherwise both move money, and the second be refused after.
      const claim = claimOf(match.nonce, asOnChain);
      const taken = settlingNow.take(claim, header, asOnChain?.digest ?? null);
      if (taken !== null) return taken;
      try {
        const replay = replayOfClaimed(options.store, claim, match.nonce, asOnChain);
        if (replay !== null) return replay;
        // A payment's settlement is remembered as it begins and by what the facilitator answers, for
        // the chain to be asked about if the facilitator refuses it later (settled-on-chain.ts).
        // A Solana v1 payment's memo is the buyer's own (random), so the chain cannot tie it to this
        // route: claimed, not settled on the chain's word.
        const onChain =
          rail === 'sol' && match.nonce === ''
            ? null
            : paidBefore(options.store, { memo: match.nonce, nonceExpiresAt: match.nonceExpiresAt, searches }, asOnChain);
        const settlement = await verifiedAndSettled(
          options.facilitator,
          payload,
          match.requirements,
          { settlements: resumableSettles, until: match.nonceExpiresAt, now: route.now },
          onChain,
        );
        if (!settlement.ok) {
          // Refused by the facilitator, which may have restarted with other keys, or stopped settling
          // there: asked again. (A refusal of the paywall's own, for the nonce, says nothing of it.)
          if (settlement.code === 'payment_rejected') (rail === 'sol' ? rails.feePayer : rails.baseSettled)!.refused();
          return settlement;
        }
        const authorization = rail === 'base' ? await authorizationRan(base!, payload, settlement.settled.transaction) : null;
        const acceptance = recorded(options.store, rail, payload, { ...match, claim }, settlement, route.now, authorization);
        if (acceptance.ok && claim !== '') forgetSettlement(options.store, claim, options.log);
        return acceptance;
      } finally {
        settlingNow.release(claim, asOnChain?.digest ?? null);
      }
    },
  };
}

/** How the chain shows the payment paid this route, on its rail (settled-on-chain.ts); null for a payload of another shape. */
async function settlingOn(rail: Rail, payload: PaymentPayload, match: PaymentMatch, rails: Rails): Promise<Settling | null> {
  if (rail === 'sol') {
    const sol = rails.sol!;
    return solanaSettling(payload, { recipient: sol.recipient, amount: match.amount, usdcMint: sol.usdcMint, memo: match.nonce }, sol);
  }
  const base = rails.base!;
  const senders = (await rails.baseSettled!.current())?.senders ?? [];
  return baseSettling(payload, { recipient: base.recipient, amount: match.amount }, base, senders);
}

export type PaywallX402 = ReturnType<typeof createPaywallX402>;
