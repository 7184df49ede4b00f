import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parseAmount } from '../../wire/money.js';
import { DEFAULT_TERMS_SECONDS } from '../../wire/paywall-nonce.js';
import type { Chain, TransferLookup } from '../../core/ports/chain.js';
import type { EvmTransferLookup } from '../../chain/evm/transfer-lookup.js';
import { paymentRequiredBody, type PaymentTerms } from '../payment-required.js';
import type { PaywallStore } from './paywall-store.js';
import { createNonces, type Nonces } from './nonces.js';
import { verifyReceipt, type VerifiedPayment } from './verify-receipt.js';
import { createPaywallX402, type PaywallX402 } from './paywall-x402.js';
import type { Facilitator } from './facilitator.js';
import type { PaywallBaseTerms, PaywallSolTerms } from './paywall-rails.js';
import { BeingSettled } from './settling-now.js';
import { x402Networks } from '../../chain/solana/networks.js';
import { x402EvmNetworks } from '../../chain/evm/networks.js';

export interface PaywallOptions {
  /** The wallet that receives the payments (its USDC token account is credited). */
  recipient: string;
  /**
   * Where transactions are read: `cofferTransferLookup(url)` on sim, `rpcTransferLookup(network)`
   * elsewhere (which also finds where a payer's signed transaction landed: an x402 payment whose
   * settlement went unanswered, and whether one not landed yet still may).
   */
  lookup: TransferLookup & Partial<Pick<Chain, 'fateOfPayerSigned'>> & { blockhashUsable?(txWire: string): Promise<boolean> };
  /**
   * Coffer receipts of payments on Base are taken too: paid to `recipient` (an EVM account), read on
   * that chain (`evmTransferLookup`). The 402 offers it beside the Solana terms.
   */
  base?: { recipient: string; lookup: EvmTransferLookup };
  /** Payments accepted and the nonces' key (`openPaywallStore(file)`). */
  store: PaywallStore;
  /**
   * x402 clients pay too (on Solana on devnet and mainnet, and on Base with `base`): the facilitator
   * that verifies and settles their payments, `inProcessFacilitator(...)` or `facilitatorAt(url)`.
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

/** What every route of a paywall shares: its options (with their defaults), its nonces, its x402 face. */
interface Paywall {
  options: PaywallOptions;
  maxTimeoutSeconds: number;
  withoutNonce: { maxAgeSeconds: number } | null;
  now: () => number;
  log: (message: string) => void;
  nonces: Nonces;
  x402: PaywallX402 | null;
  /** Counts the 402s issued, to prune the store now and then. */
  issued: number;
}

/** A route protected by the paywall: its terms and its price. */
type Priced = { route: RouteTerms; amount: bigint };

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
  const maxTimeoutSeconds = options.maxTimeoutSeconds ?? DEFAULT_TERMS_SECONDS;
  const log = options.log ?? (() => undefined);
  const nonces = createNonces(options.store.nonceKey);
  const paywall: Paywall = {
    options,
    maxTimeoutSeconds,
    withoutNonce: options.receiptsWithoutNonce === false ? null : { maxAgeSeconds: maxTimeoutSeconds },
    now: options.now ?? Date.now,
    log,
    nonces,
    x402:
      options.x402 === undefined
        ? null
        : createPaywallX402({
            facilitator: options.x402.facilitator,
            sol: solanaTerms(options),
            base: options.base === undefined ? null : baseTerms(options.base),
            store: options.store,
            nonces,
            log,
          }),
    issued: 0,
  };
  return {
    /** Protects a route: `app.get('/weather', paywall.require({ price: '0.01', description: '...' }), handler)`. */
    require(route: RouteTerms): RequestHandler {
      const priced = { route, amount: parseAmount(route.price, 'price') };
      return async (req, res, next) => {
        const xPayment = req.get('x-payment');
        // An x402 payment: PAYMENT-SIGNATURE (v2), or an X-PAYMENT that is not a Coffer receipt (v1).
        const x402Payment = req.get('payment-signature') ?? (xPayment !== undefined && !xPayment.startsWith('v1.') ? xPayment : undefined);
        if (paywall.x402 !== null && x402Payment !== undefined)
          return acceptX402(paywall, paywall.x402, priced, x402Payment, req, res, next);
        if (!xPayment) return askForPayment(paywall, priced, req, res);
        return acceptReceipt(paywall, priced, xPayment, req, res, next);
      };
    },
  };
}

/** The paywall's x402 terms on Solana, where x402 names its network (devnet, mainnet). */
function solanaTerms(options: PaywallOptions): PaywallSolTerms | null {
  const names = x402Networks(options.lookup.network);
  if (names === null) return null;
  const { lookup } = options;
  return {
    names,
    usdcMint: lookup.usdc,
    recipient: options.recipient,
    findTransfer: (tx) => lookup.findTransfer(tx),
    fateOfPayerSigned: lookup.fateOfPayerSigned === undefined ? null : (sent) => lookup.fateOfPayerSigned!(sent),
    blockhashUsable: lookup.blockhashUsable === undefined ? null : (wire) => lookup.blockhashUsable!(wire),
  };
}

/** The paywall's x402 terms on Base: its chain as x402 names it. */
const baseTerms = (base: NonNullable<PaywallOptions['base']>): PaywallBaseTerms => ({
  names: x402EvmNetworks(base.lookup.chainId),
  usdc: base.lookup.usdc,
  recipient: base.recipient,
  tokenNaming: () => base.lookup.tokenNaming(),
  ranAuthorization: (txHash, from, nonce) => base.lookup.ranAuthorization(txHash, from, nonce),
  paidInTransaction: (txHash, authorization, settled) => base.lookup.paidInTransaction(txHash, authorization, settled),
  whereAuthorizationRan: (authorization, since) => base.lookup.whereAuthorizationRan(authorization, since),
});

// A nonce is bound to the route: method and path (the Host a client uses may vary; HEAD is GET's
// twin in express).
const resourceOf = (req: Request) => `${req.method === 'HEAD' ? 'GET' : req.method} ${req.baseUrl}${req.path}`;
/** The URL asked, its query too, as the official x402 middleware names the resource (what the buyer asked for). */
const urlOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`;

function freshTerms(paywall: Paywall, req: Request, { route, amount }: Priced): PaymentTerms {
  const { options, maxTimeoutSeconds } = paywall;
  const issuedAt = paywall.now();
  // Every 1,000 402s, forget the accepted payments whose nonces are long expired.
  if (++paywall.issued % 1000 === 0) options.store.prune(issuedAt);
  const nonce = paywall.nonces.issue({ resource: resourceOf(req), amount, issuedAt, expiresAt: issuedAt + maxTimeoutSeconds * 1000 });
  return {
    amount,
    recipient: options.recipient,
    network: options.lookup.network,
    usdcMint: options.lookup.usdc,
    nonce,
    resource: urlOf(req),
    description: route.description,
    maxTimeoutSeconds,
    service: route.service,
    ...(options.base === undefined
      ? {}
      : { base: { recipient: options.base.recipient, network: options.base.lookup.network, chainId: options.base.lookup.chainId } }),
  };
}

/** The 402: fresh terms (Coffer's, and x402's when the paywall takes x402), with why a payment was refused. */
async function askForPayment(paywall: Paywall, priced: Priced, req: Request, res: Response, reason?: { code: string; error: string }) {
  let terms;
  try {
    terms = freshTerms(paywall, req, priced);
  } catch (error) {
    paywall.log(`paywall: could not issue payment terms: ${(error as Error).message}`);
    res.status(503).json({ error: 'payment terms are unavailable right now; try again', code: 'paywall_unavailable' });
    return;
  }
  const body = paymentRequiredBody(terms, reason);
  // The x402 terms are an addition: whatever happens to them, Coffer's own terms are answered.
  const offers = paywall.x402 === null ? null : await paywall.x402.offers(terms, body.error).catch(() => null);
  if (offers !== null) res.setHeader('PAYMENT-REQUIRED', offers.header);
  res.status(402).json({ ...body, ...offers?.body });
}

/** An x402 payment, settled by the facilitator: the route runs, with the settlement's header. */
async function acceptX402(
  paywall: Paywall,
  x402: PaywallX402,
  priced: Priced,
  payment: string,
  req: Request,
  res: Response,
  next: NextFunction,
) {
  let accepted;
  try {
    accepted = await x402.accept(payment.slice(0, 16_384), {
      resource: resourceOf(req),
      url: urlOf(req),
      description: priced.route.description,
      amount: priced.amount,
      maxTimeoutSeconds: paywall.maxTimeoutSeconds,
      now: paywall.now(),
    });
  } catch (error) {
    // Presented again while it settles: said so (its first presentation gets the answer; this one, tried again, the outcome).
    if (error instanceof BeingSettled) return void res.status(503).json({ error: error.message, code: 'verifier_unavailable' });
    paywall.log(`paywall: could not settle an x402 payment: ${(error as Error).message}`);
    res.status(503).json({ error: 'the payment could not be settled right now; try again', code: 'verifier_unavailable' });
    return;
  }
  if (!accepted.ok) return askForPayment(paywall, priced, req, res, { code: accepted.code, error: accepted.reason });
  res.setHeader(accepted.response.name, accepted.response.value);
  res.locals.payment = accepted.payment;
  next();
}

/** A Coffer receipt, verified on chain: the route runs. */
async function acceptReceipt(paywall: Paywall, priced: Priced, header: string, req: Request, res: Response, next: NextFunction) {
  const { options } = paywall;
  let verification;
  try {
    verification = await verifyReceipt(header.slice(0, 8192), {
      resource: resourceOf(req),
      price: priced.amount,
      recipient: options.recipient,
      lookup: options.lookup,
      store: options.store,
      nonces: paywall.nonces,
      now: paywall.now(),
      withoutNonce: paywall.withoutNonce,
      base: options.base ?? null,
    });
  } catch (error) {
    paywall.log(`paywall: could not read the chain: ${(error as Error).message}`);
    res.status(503).json({ error: 'the payment could not be verified right now; try again', code: 'verifier_unavailable' });
    return;
  }
  if (!verification.ok) return askForPayment(paywall, priced, req, res, { code: verification.code, error: verification.reason });
  res.locals.payment = verification.payment;
  next();
}
