import express, { type Express } from 'express';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { readCatalog } from '../store/catalog.js';
import { x402Networks } from '../chain/solana/networks.js';
import { loopbackRefusal } from '../http/guards.js';
import { quoteFor, weatherFor } from '../demo-api/demo-data.js';
import type { Facilitator } from '../x402/paywall-x402.js';

/**
 * The demo seller of `coffer demo-x402`: the demo API's weather and quotes behind the official x402
 * middleware (`@x402/express`, x402 v2), settled by the facilitator it is given, paid to the
 * registry's demo address at the registry's price, so Coffer knows it as demo-weather and demo-quotes.
 * Its answers say they were bought with test money.
 */
export function createDemoX402Seller(options: { facilitator: Facilitator; network: string; port: () => number }): {
  app: Express;
  /** Who is paid (the registry's demo addresses): each needs a USDC account before it can be. */
  recipients: string[];
  price: string;
} {
  const services = readCatalog().services;
  const weather = services.find((service) => service.id === 'demo-weather');
  const quotes = services.find((service) => service.id === 'demo-quotes');
  if (!weather?.pricePerCall || !quotes?.pricePerCall) throw new Error('the catalog lists no demo API');
  const names = x402Networks(options.network);
  if (names === null) throw new Error(`x402 names no network ${options.network}`);
  const network = names.v2 as `${string}:${string}`;
  const route = (price: string, description: string, payTo: string) => ({
    accepts: { scheme: 'exact', price: `$${price}`, network, payTo },
    description: `${description} (bought with test USDC on ${options.network}, a local cluster)`,
  });
  const paid = (price: string) => ({ amount: price, currency: 'USDC', testMoney: true, network: options.network });

  const app = express();
  app.disable('x-powered-by');
  // This machine's processes only: a page elsewhere cannot reach it by DNS rebinding.
  app.use((req, res, next) => {
    const refusal = loopbackRefusal({ host: req.headers.host, origin: req.headers.origin }, options.port());
    if (refusal === null) return next();
    res.status(403).json({ error: refusal.message, code: refusal.code });
  });
  app.use(
    paymentMiddleware(
      {
        'GET /weather': route(weather.pricePerCall, 'Current weather and a 3-day forecast', weather.payTo),
        'GET /quote': route(quotes.pricePerCall, 'A price quote for a ticker symbol', quotes.payTo),
      },
      new x402ResourceServer(options.facilitator).register(network, new ExactSvmScheme()),
    ),
  );
  app.get('/weather', (req, res) => void res.json({ ...weatherFor(req.query.city), paid: paid(weather.pricePerCall!) }));
  app.get('/quote', (req, res) => void res.json({ ...quoteFor(req.query.symbol), paid: paid(quotes.pricePerCall!) }));
  app.get('/', (_req, res) => {
    res.json({
      name: 'Coffer x402 demo seller (test money)',
      routes: ['GET /weather?city=', 'GET /quote?symbol='],
      price: `${weather.pricePerCall} test USDC a call, x402 v2 (${network}, which is ${options.network} here: a local cluster, not devnet)`,
    });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found', code: 'not_found' });
  });
  return { app, recipients: [...new Set([weather.payTo, quotes.payTo])], price: weather.pricePerCall };
}
