import express, { type Express } from 'express';
import { getAddress, type Address } from 'viem';
import type { EvmTransferLookup } from '../chain/evm/transfer-lookup.js';
import { readCatalog } from '../store/catalog.js';
import { createPaywall, paymentOf, type PaywallOptions } from '../x402/paywall/paywall.js';
import { formatUsdc } from '../wire/money.js';
import { isTestMoney } from '../wire/network-words.js';
import { quoteFor, weatherFor } from './demo-data.js';

/**
 * `coffer demo-api`: a small paid API built on the paywall, listed in the registry as demo-weather
 * and demo-quotes (0.01 USDC a call, paid to the catalog's address on Solana, or its Base address),
 * selling demo-data.ts.
 */
/**
 * Where the demo API is paid on Base, as the catalog lists it: an account no one holds a key to (the
 * last 20 bytes of the hash of "coffer demo-api pay-to on Base", a test checks), as the catalog's demo
 * address is on Solana, so what it is paid in test USDC stays there.
 */
export const DEMO_BASE_PAY_TO: Address = demoBasePayTo();

function demoBasePayTo(): Address {
  const payTo = readCatalog().services.find((s) => s.id === 'demo-weather')?.base?.payTo;
  if (payTo === undefined) throw new Error('the catalog lists no Base address for the demo API');
  return getAddress(payTo);
}

/**
 * The demo API's paywall options: on Base too where `base` names a chain to read (its recipient is
 * DEMO_BASE_PAY_TO).
 */
export type DemoApiOptions = Omit<PaywallOptions, 'recipient' | 'base'> & {
  base?: { lookup: EvmTransferLookup } | null;
};

export function createDemoApi({ base, ...options }: DemoApiOptions): Express {
  const catalog = readCatalog();
  const weatherListing = catalog.services.find((s) => s.id === 'demo-weather');
  const quotesListing = catalog.services.find((s) => s.id === 'demo-quotes');
  if (!weatherListing?.pricePerCall || !quotesListing?.pricePerCall) throw new Error('the catalog lists no demo API');
  const paywall = createPaywall({
    ...options,
    recipient: weatherListing.payTo,
    ...(base ? { base: { recipient: DEMO_BASE_PAY_TO, lookup: base.lookup } } : {}),
  });

  const app = express();
  app.disable('x-powered-by');
  // What paid: the chain, and whether its money is worth anything (on sim and the test chains not).
  const networkOf = { sol: options.lookup.network, base: base?.lookup.network ?? null };
  const paid = (res: Parameters<typeof paymentOf>[0]) => {
    const payment = paymentOf(res)!;
    const network = networkOf[payment.rail];
    return {
      amount: formatUsdc(payment.amount),
      by: payment.payer,
      txSignature: payment.txSignature,
      rail: payment.rail,
      testMoney: network !== null && isTestMoney(network),
    };
  };

  app.get(
    '/weather',
    paywall.require({ price: weatherListing.pricePerCall, description: 'Current weather and a 3-day forecast', service: 'demo-weather' }),
    (req, res) => {
      res.json({ ...weatherFor(req.query.city), paid: paid(res) });
    },
  );

  app.get(
    '/quote',
    paywall.require({ price: quotesListing.pricePerCall, description: 'A price quote for a ticker symbol', service: 'demo-quotes' }),
    (req, res) => {
      res.json({ ...quoteFor(req.query.symbol), paid: paid(res) });
    },
  );

  app.get('/', (_req, res) => {
    res.json({
      name: 'Coffer demo API',
      routes: ['GET /weather?city=', 'GET /quote?symbol='],
      price: `${weatherListing.pricePerCall} USDC a call`,
    });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found', code: 'not_found' });
  });
  return app;
}
