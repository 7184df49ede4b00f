import express, { type Express } from 'express';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import type { Address } from 'viem';
import { readCatalog } from '../store/catalog.js';
import { parseAmount } from '../wire/money.js';
import { x402Networks } from '../chain/solana/networks.js';
import { evmNetworkOf } from '../chain/evm/networks.js';
import { loopbackRefusal } from '../http/guards.js';
import { quoteFor, weatherFor } from '../demo-api/demo-data.js';
import type { Facilitator } from '../x402/paywall/facilitator.js';

/** The demo's EVM chain as the seller offers it: its chain id and its test USDC (EIP-712 name "USDC", version "2"). */
export type DemoSellerBase = { chainId: number; usdc: Address };

/**
 * The demo seller of `coffer demo-x402`: the demo API's weather and quotes behind the official x402
 * middleware (`@x402/express`, x402 v2), settled by the facilitator it is given, paid to the
 * registry's demo addresses at the registry's price, so Coffer knows it as demo-weather and
 * demo-quotes: on Solana, and with `base` on the demo's EVM chain too (each 402 offers both).
 * Its answers say they were bought with test money, and on which chain.
 */
export function createDemoX402Seller(options: {
  facilitator: Facilitator;
  network: string;
  base: DemoSellerBase | null;
  port: () => number;
}): {
  app: Express;
  /** Who is paid on Solana (the registry's demo addresses): each needs a USDC account before it can be. */
  recipients: string[];
  /** Who is paid on Base (the registry's demo `base.payTo`), where the seller offers Base. */
  baseRecipient: string | null;
  price: string;
} {
  const services = readCatalog().services;
  const weather = services.find((service) => service.id === 'demo-weather');
  const quotes = services.find((service) => service.id === 'demo-quotes');
  if (!weather?.pricePerCall || !quotes?.pricePerCall) throw new Error('the catalog lists no demo API');
  const names = x402Networks(options.network);
  if (names === null) throw new Error(`x402 names no network ${options.network}`);
  const network = names.v2 as `${string}:${string}`;
  const { base } = options;
  const baseNetwork = base === null ? null : (`eip155:${base.chainId}` as const);
  // The EVM chain as Coffer names it (evm-790527), beside the cluster's Coffer name (demo-localnet).
  const cofferBaseNetwork = base === null ? null : evmNetworkOf(base.chainId, base.usdc).name;
  const route = (price: string, description: string, service: { payTo: string; base?: { payTo: string } }) => ({
    accepts: [
      { scheme: 'exact', price: `$${price}`, network, payTo: service.payTo },
      // x402 knows no USDC on the demo's chain id, so the price names the test USDC and its EIP-712 domain.
      ...(base === null || baseNetwork === null || service.base === undefined
        ? []
        : [
            {
              scheme: 'exact',
              price: { amount: String(parseAmount(price)), asset: base.usdc, extra: { name: 'USDC', version: '2' } },
              network: baseNetwork,
              payTo: service.base.payTo,
            },
          ]),
    ],
    description: `${description} (bought with test USDC on a local chain: ${options.network}${base === null ? '' : ` or the EVM chain ${cofferBaseNetwork}`})`,
  });
  // Which chain paid, from the payment the middleware let through (x402 v2's PAYMENT-SIGNATURE), by
  // the name Coffer gives each, as the demo's own lines name them: x402's name for the cluster is
  // devnet's.
  const paid = (price: string, req: express.Request) => ({
    amount: price,
    currency: 'USDC',
    testMoney: true,
    network: paidOn(req) === baseNetwork && cofferBaseNetwork !== null ? cofferBaseNetwork : options.network,
  });

  const resourceServer = new x402ResourceServer(options.facilitator).register(network, new ExactSvmScheme());
  if (baseNetwork !== null) resourceServer.register(baseNetwork, new ExactEvmScheme());

  const app = express();
  app.disable('x-powered-by');
  // This machine's processes only: a page elsewhere cannot reach it by DNS rebinding.
  app.use((req, res, next) => {
    const refusal = loopbackRefusal(req, options.port());
    if (refusal === null) return next();
    res.status(403).json({ error: refusal.message, code: refusal.code });
  });
  app.use(
    paymentMiddleware(
      {
        'GET /weather': route(weather.pricePerCall, 'Current weather and a 3-day forecast', weather),
        'GET /quote': route(quotes.pricePerCall, 'A price quote for a ticker symbol', quotes),
      },
      resourceServer,
    ),
  );
  app.get('/weather', (req, res) => void res.json({ ...weatherFor(req.query.city), paid: paid(weather.pricePerCall!, req) }));
  app.get('/quote', (req, res) => void res.json({ ...quoteFor(req.query.symbol), paid: paid(quotes.pricePerCall!, req) }));
  app.get('/', (_req, res) => {
    res.json({
      name: 'Coffer x402 demo seller (test money)',
      routes: ['GET /weather?city=', 'GET /quote?symbol='],
      price: `${weather.pricePerCall} test USDC a call, x402 v2 (${network}, which is ${options.network} here: a local cluster, not devnet${
        baseNetwork === null ? '' : `; or ${baseNetwork}, a local EVM chain, not Base`
      })`,
    });
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found', code: 'not_found' });
  });
  return {
    app,
    recipients: [...new Set([weather.payTo, quotes.payTo])],
    baseRecipient: base === null ? null : (weather.base?.payTo ?? null),
    price: weather.pricePerCall,
  };
}

/** The network of the x402 v2 payment a request carries (its PAYMENT-SIGNATURE header), if any. */
function paidOn(req: express.Request): string | null {
  const header = req.headers['payment-signature'];
  if (typeof header !== 'string') return null;
  try {
    return decodePaymentSignatureHeader(header).accepted.network;
  } catch {
    return null;
  }
}
