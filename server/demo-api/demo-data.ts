import { createHash } from 'node:crypto';

/**
 * What the demo APIs sell (`coffer demo-api` behind Coffer's paywall, `coffer demo-x402` behind the
 * official x402 middleware): made-up data, but stable: the same city or symbol gives the same answer
 * within an hour.
 */
const seeded = (text: string) =>
  createHash('sha256')
    .update(`${text}:${Math.floor(Date.now() / 3_600_000)}`)
    .digest();

const CONDITIONS = ['sunny', 'cloudy', 'rain', 'windy', 'fog', 'snow'];

/** The weather now and a three-day forecast for a city (at most 80 characters of its name). */
export function weatherFor(cityAsked: unknown) {
  const city = String(cityAsked ?? 'Lisbon').slice(0, 80);
  const bytes = seeded(city.toLowerCase());
  const day = (i: number) => {
    const high = Math.round(((bytes[i] ?? 0) / 255) * 30 - 2);
    // The low is 3 to 12 degrees under the high, never above it.
    const low = high - Math.round(3 + ((bytes[i + 1] ?? 0) / 255) * 9);
    return { high, low, conditions: CONDITIONS[(bytes[i + 2] ?? 0) % CONDITIONS.length] };
  };
  return { city, now: { temperatureC: day(0).high, ...day(0) }, forecast: [day(3), day(6), day(9)] };
}

/** A price quote for a ticker symbol (at most 12 characters, upper-cased). */
export function quoteFor(symbolAsked: unknown) {
  const symbol = String(symbolAsked ?? 'SOL')
    .toUpperCase()
    .slice(0, 12);
  const bytes = seeded(symbol);
  const price = (((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0)) / 100;
  return { symbol, priceUsd: price.toFixed(2), change24hPercent: (((bytes[2] ?? 0) - 128) / 16).toFixed(2) };
}
