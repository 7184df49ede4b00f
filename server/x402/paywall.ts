import type { Request, RequestHandler, Response } from 'express';
import { parseAmount } from '../wire/money.js';
import type { TransferLookup } from '../core/ports/chain.js';
import { paymentRequiredBody, type PaymentTerms } from './payment-required.js';
import type { PaywallStore } from './paywall-store.js';
import { createNonces } from './nonces.js';
import { verifyReceipt, type VerifiedPayment } from './verify-receipt.js';
import { createPaywallX402, type Facilitator } from './paywall-x402.js';

export interface PaywallOptions {
  /** The wallet that receives the payments (its USDC token account is credited). */
  recipient: string;
  /** Where transactions are read: `cofferTransferLookup(url)` on sim, `rpcTransferLookup(network)` elsewhere. */
  lookup: TransferLookup;
  /** Payments accepted and the nonces' key (`openPaywallStore(file)`). */
  store: PaywallStore;
  /**
   * x402 clients pay too (devnet and mainnet): the facilitator that verifies and settles their
   * payments, `inProcessFacilitator(...)` or `facilitatorAt(url)`.
   */
  x402?: { facilitator: Facilitator };
  /** How long a 402's nonce stays payable; 300 s by default. */
  maxTimeoutSeconds?: number;
  /**
   * Whether a receipt of a payment made without a nonce (`coffer pay <service> <amount>`, a /pay
   * without `nonce`) buys one answer: its transaction is the one-time token, it must pay the route's
   * price to `recipient`, and it is good for `maxTimeoutSeconds` after it lands. True by default.
   * Such a receipt names no paywall, only the recipient, and each paywall remembers what it accepted
   * in its own store: every paywall paid to one recipient must share one store file, or all but one
   * of them set this to false.
   */
  receiptsWithoutNonce?: boolean;
  now?: () => number;
  log?: (message: string) => void;
}

export interface RouteTerms {
  /** Decimal USDC, for example "0.01". */
  price: string;
  description: string;
  /** The registry id of this API, so paying clients can check the price against the registry. */
  service?: string;
}

/** The verified payment of the current request, for the route's handler. */
export const paymentOf = (res: Response): VerifiedPayment | undefined => res.locals.payment as VerifiedPayment | undefined;

/**
 * Express middleware for an API seller. A request without a payment gets 402 with the price, the
 * recipient and a fresh single-use nonce (and, with `x402`, the same terms for x402 v1 and v2
 * clients). A Coffer receipt (`X-Payment: v1.…`) is verified on chain (see verifyReceipt); an x402
 * payment (`PAYMENT-SIGNATURE`, or an `X-PAYMENT` payload) is checked against the terms issued and
 * settled by the facilitator (see paywall-x402.ts). A receipt of a payment made without a 402 (no
 * nonce) is taken once too, unless `receiptsWithoutNonce` is false. The route runs only for a payment accepted now,
 * and finds it with paymentOf(res). A refused payment gets 402 with the reason and fresh terms.
 */
export function createPaywall(options: PaywallOptions) {
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? 300;
  const withoutNonce = options.receiptsWithoutNonce === false ? null : { maxAgeSeconds: maxTimeoutSeconds };
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);

  // A nonce is bound to the route: method and path (the Host a client uses may vary; HEAD is GET's
  // twin in express).
  const resourceOf = (req: Request) => `${req.method === 'HEAD' ? 'GET' : req.method} ${req.baseUrl}${req.path}`;
  let issued = 0;
  const urlOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}${req.path}`;

  const nonces = createNonces(options.store.nonceKey);
  const x402 =
    options.x402 === undefined
      ? null
      : createPaywallX402({
          facilitator: options.x402.facilitator,
          network: options.lookup.network,
          usdcMint: options.lookup.usdcMint,
          recipient: options.recipient,
          store: options.store,
          nonces,
          log,
        });
  const freshTerms = (req: Request, route: RouteTerms, amount: bigint): PaymentTerms => {
    const issuedAt = now();
    // Every 1,000 402s, forget the accepted payments whose nonces are long expired.
    if (++issued % 1000 === 0) options.store.prune(issuedAt);
    const nonce = nonces.issue({ resource: resourceOf(req), amount, issuedAt, expiresAt: issuedAt + maxTimeoutSeconds * 1000 });
    return {
      amount,
      recipient: options.recipient,
      network: options.lookup.network,
      usdcMint: options.lookup.usdcMint,
      nonce,
      resource: urlOf(req),
      description: route.description,
      maxTimeoutSeconds,
      service: route.service,
    };
  };

  return {
    /** Protects a route: `app.get('/weather', paywall.require({ price: '0.01', description: '...' }), handler)`. */
    require(route: RouteTerms): RequestHandler {
      const amount = parseAmount(route.price, 'price');
      const askForPayment = async (req: Request, res: Response, reason?: { code: string; error: string }) => {
        let terms;
        try {
          terms = freshTerms(req, route, amount);
        } catch (error) {
          log(`paywall: could not issue payment terms: ${(error as Error).message}`);
          res.status(503).json({ error: 'payment terms are unavailable right now; try again', code: 'paywall_unavailable' });
          return;
        }
        const body = paymentRequiredBody(terms, reason);
        // The x402 terms are an addition: whatever happens to them, Coffer's own terms are answered.
        const offers = x402 === null ? null : await x402.offers(terms, body.error).catch(() => null);
        if (offers !== null) res.setHeader('PAYMENT-REQUIRED', offers.header);
        res.status(402).json({ ...body, ...offers?.body });
      };
      return async (req, res, next) => {
        const xPayment = req.get('x-payment');
        // An x402 payment: PAYMENT-SIGNATURE (v2), or an X-PAYMENT that is not a Coffer receipt (v1).
        const x402Payment = req.get('payment-signature') ?? (xPayment !== undefined && !xPayment.startsWith('v1.') ? xPayment : undefined);
        if (x402 !== null && x402Payment !== undefined) {
          let accepted;
          try {
            accepted = await x402.accept(x402Payment.slice(0, 16_384), {
              resource: resourceOf(req),
              url: urlOf(req),
              description: route.description,
              amount,
              maxTimeoutSeconds,
              now: now(),
            });
          } catch (error) {
            log(`paywall: could not settle an x402 payment: ${(error as Error).message}`);
            res.status(503).json({ error: 'the payment could not be settled right now; try again', code: 'verifier_unavailable' });
            return;
          }
          if (!accepted.ok) {
            await askForPayment(req, res, { code: accepted.code, error: accepted.reason });
            return;
          }
          res.setHeader(accepted.response.name, accepted.response.value);
          res.locals.payment = accepted.payment;
          next();
          return;
        }
        const header = xPayment;
        if (!header) {
          await askForPayment(req, res);
          return;
        }
        let verification;
        try {
          verification = await verifyReceipt(header.slice(0, 8192), {
            resource: resourceOf(req),
            price: amount,
            recipient: options.recipient,
            lookup: options.lookup,
            store: options.store,
            nonces,
            now: now(),
            withoutNonce,
          });
        } catch (error) {
          log(`paywall: could not read the chain: ${(error as Error).message}`);
          res.status(503).json({ error: 'the payment could not be verified right now; try again', code: 'verifier_unavailable' });
          return;
        }
        if (!verification.ok) {
          await askForPayment(req, res, { code: verification.code, error: verification.reason });
          return;
        }
        res.locals.payment = verification.payment;
        next();
      };
    },
  };
}
