import type { Request, RequestHandler, Response } from 'express';
import { parseAmount } from '../core/money.js';
import type { TransferLookup } from '../core/ports/chain.js';
import { paymentRequiredBody, type PaymentTerms } from './payment-required.js';
import type { PaywallStore } from './paywall-store.js';
import { createNonces } from './nonces.js';
import { verifyReceipt, type VerifiedPayment } from './verify-receipt.js';

export interface PaywallOptions {
  /** The wallet that receives the payments (its USDC token account is credited). */
  recipient: string;
  /** Where transactions are read: `cofferTransferLookup(url)` on sim, `rpcTransferLookup(network)` elsewhere. */
  lookup: TransferLookup;
  /** Payments accepted and the nonces' key (`openPaywallStore(file)`). */
  store: PaywallStore;
  /** How long a 402's nonce stays payable; 300 s by default. */
  maxTimeoutSeconds?: number;
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
 * Express middleware for an API seller. A request without `X-Payment` gets 402 with the price, the
 * recipient and a fresh single-use nonce. A request with a receipt is
 * verified on chain (see verifyReceipt); the route runs only for a payment accepted now, and finds it
 * with paymentOf(res). A refused receipt gets 402 with the reason and fresh terms.
 */
export function createPaywall(options: PaywallOptions) {
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? 300;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);

  // A nonce is bound to the route: method and path (the Host a client uses may vary; HEAD is GET's
  // twin in express).
  const resourceOf = (req: Request) => `${req.method === 'HEAD' ? 'GET' : req.method} ${req.baseUrl}${req.path}`;
  let issued = 0;
  const urlOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}${req.path}`;

  const nonces = createNonces(options.store.nonceKey);
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
      const askForPayment = (req: Request, res: Response, reason?: { code: string; error: string }) => {
        try {
          res.status(402).json(paymentRequiredBody(freshTerms(req, route, amount), reason));
        } catch (error) {
          log(`paywall: could not issue payment terms: ${(error as Error).message}`);
          res.status(503).json({ error: 'payment terms are unavailable right now; try again', code: 'paywall_unavailable' });
        }
      };
      return async (req, res, next) => {
        const header = req.get('x-payment');
        if (!header) {
          askForPayment(req, res);
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
          });
        } catch (error) {
          log(`paywall: could not read the chain: ${(error as Error).message}`);
          res.status(503).json({ error: 'the payment could not be verified right now; try again', code: 'verifier_unavailable' });
          return;
        }
        if (!verification.ok) {
          askForPayment(req, res, { code: verification.code, error: verification.reason });
          return;
        }
        res.locals.payment = verification.payment;
        next();
      };
    },
  };
}
