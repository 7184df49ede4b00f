import express, { type Express } from 'express';
import { createHash } from 'node:crypto';
import { readCatalog } from '../store/catalog.js';
import { createPaywall, paymentOf, type PaywallOptions } from '../x402/paywall.js';
import { formatUsdc } from '../core/money.js';

/**
 * `coffer demo-api`: a small paid API built on the paywall, listed in the registry as demo-weather
 * and demo-quotes (0.01 USDC a call, paid to the catalog's address). Its data is made up but stable:
 * the same city or symbol gives the same answer within an hour.
 */
export function createDemoApi(options: Omit<PaywallOptions, 'recipient'>): Express {
  const catalog = readCatalog();
  const weatherListing = catalog.services.find((s) => s.id === 'demo-weather');
  const quotesListing = catalog.services.find((s) => s.id === 'demo-quotes');
  if (!weatherListing?.pricePerCall || !quotesListing?.pricePerCall) throw new Error('the catalog lists no demo API');
  const paywall = createPaywall({ ...options, recipient: weatherListing.payTo });

  const app = express();
  app.disable('x-powered-by');
  const seeded = (text: string) =>
    createHash('sha256')
      .update(`${text}:${Math.floor(Date.now() / 3_600_000)}`)
      .digest();

  app.get(
    '/weather',
    paywall.require({ price: weatherListing.pricePerCall, description: 'Current weather and a 3-day forecast', service: 'demo-weather' }),
    (req, res) => {
      const city = String(req.query.city ?? 'Lisbon').slice(0, 80);
      const bytes = seeded(city.toLowerCase());
      const conditions = ['sunny', 'cloudy', 'rain', 'windy', 'fog', 'snow'];
      const day = (i: number) => {
        const high = Math.round(((bytes[i] ?? 0) / 255) * 30 - 2);
        // The low is 3 to 12 degrees under the high, never above it.
        const low = high - Math.round(3 + ((bytes[i + 1] ?? 0) / 255) * 9);
        return { high, low, conditions: conditions[(bytes[i + 2] ?? 0) % conditions.length] };
      };
      const payment = paymentOf(res)!;
      res.json({
        city,
        now: { temperatureC: day(0).high, ...day(0) },
        forecast: [day(3), day(6), day(9)],
        paid: { amount: formatUsdc(payment.amount), by: payment.payer, txSignature: payment.txSignature },
      });
    },
  );

  app.get(
    '/quote',
    paywall.require({ price: quotesListing.pricePerCall, description: 'A price quote for a ticker symbol', service: 'demo-quotes' }),
    (req, res) => {
      const symbol = String(req.query.symbol ?? 'SOL')
        .toUpperCase()
        .slice(0, 12);
      const bytes = seeded(symbol);
      const price = (((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0)) / 100;
      const payment = paymentOf(res)!;
      res.json({
        symbol,
        priceUsd: price.toFixed(2),
        change24hPercent: (((bytes[2] ?? 0) - 128) / 16).toFixed(2),
        paid: { amount: formatUsdc(payment.amount), by: payment.payer, txSignature: payment.txSignature },
      });
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
