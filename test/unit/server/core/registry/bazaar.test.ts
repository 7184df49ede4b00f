import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { coreEngine, STORES } from '../../../../fixtures/core-engine.js';
import { CofferError } from '../../../../../server/wire/errors.js';
import type { DiscoveryReader } from '../../../../../server/core/ports/discovery.js';
import {
  BAZAAR_FRESH_MS,
  BAZAAR_READ_TIMEOUT_MS,
  BAZAAR_RETRY_MS,
  BAZAAR_SEARCH_WAIT_MS,
} from '../../../../../server/core/registry/bazaar.js';

const FACILITATOR = 'https://facilitator.example';

/**
 * A facilitator's discovery endpoint as the core's port sees it: it answers its list page by page
 * (limit, offset, total), or fails as the HTTP adapter does, or never answers until aborted.
 */
class FakeFacilitator implements DiscoveryReader {
  items: unknown[] = [];
  pages: { facilitator: string; limit: number; offset: number }[] = [];
  mode: 'ok' | 'down' | 'hang' | 'ignores-offset' = 'ok';
  /** Answered instead of the list, when set. */
  json: unknown = undefined;

  async readPage(facilitator: string, page: { limit: number; offset: number }, signal: AbortSignal): Promise<unknown> {
    this.pages.push({ facilitator, ...page });
    if (this.mode === 'down')
      throw new CofferError('bazaar_unreachable', `the facilitator at ${facilitator} did not answer (ECONNREFUSED)`);
    if (this.mode === 'hang') {
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    }
    if (this.json !== undefined) return this.json;
    const offset = this.mode === 'ignores-offset' ? 0 : page.offset;
    return {
      x402Version: 2,
      items: this.items.slice(offset, offset + page.limit),
      pagination: { limit: page.limit, offset, total: this.items.length },
    };
  }
}

/** A listed API on the memory chain's network, in its USDC (what this Coffer can pay). */
async function setup(store: (typeof STORES)[number] = 'memory') {
  const facilitator = new FakeFacilitator();
  const t = await coreEngine({ store, discovery: facilitator });
  const payTo = (await generateKeyPairSigner()).address;
  const item = (path: string, name: string, description = 'a paid API', amount = '10000') => ({
    resource: `https://api.example/${path}`,
    type: 'http',
    x402Version: 2,
    accepts: [{ scheme: 'exact', network: t.x402.networks.sol.v2, amount, asset: t.chain.usdc, payTo }],
    lastUpdated: '2026-11-23T10:00:00.000Z',
    description,
    serviceName: name,
  });
  return { ...t, facilitator, payTo, item };
}

const bazaarIds = (answer: { results: { source: string; id: string }[] }) =>
  answer.results.filter((service) => service.source === 'x402-bazaar').map((service) => service.id);

afterEach(() => {
  vi.useRealTimers();
});

describe.each(STORES)('Bazaar discovery in the registry (%s ledger)', (store) => {
  it('is off by default: the registry is the catalog, and no facilitator is asked', async () => {
    const t = await setup(store);
    const found = await t.engine.searchServices('weather');
    expect(found.bazaar).toBeNull();
    expect(found.results.every((service) => service.source !== 'x402-bazaar')).toBe(true);
    expect(t.engine.bazaar(t.asOwner)).toMatchObject({ facilitator: null, state: 'off', listed: 0 });
    expect(t.facilitator.pages).toEqual([]);
    t.close();
  });

  it('set by the owner, the list is read at once; searches find it beside the catalog, and make no request', async () => {
    const t = await setup(store);
    t.facilitator.items = [t.item('forecast', 'Forecast API', 'Ten-day weather forecast'), t.item('quote', 'Ticker', 'Stock quotes')];
    const set = await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    expect(set).toMatchObject({ facilitator: FACILITATOR, state: 'fresh', listed: 2, ageSeconds: 0, error: null });
    expect(t.store.listAudit(t.owner, 5).some((row) => row.action === 'registry.bazaar')).toBe(true);

    const weather = await t.engine.searchServices('weather');
    // The catalog's matches first (demo-weather), then the Bazaar's.
    expect(weather.results[0]!.id).toBe('demo-weather');
    expect(weather.results.at(-1)).toMatchObject({ source: 'x402-bazaar', name: 'Forecast API', pricePerCall: '0.01', payTo: t.payTo });
    expect(weather.bazaar).toMatchObject({ state: 'fresh', listed: 2 });
    expect(bazaarIds(await t.engine.searchServices('stock'))).toHaveLength(1);
    expect(bazaarIds(await t.engine.searchServices(''))).toHaveLength(2);
    expect(t.facilitator.pages).toHaveLength(1);
    t.close();
  });

  it('a limit counts both: the catalog first, the Bazaar in what is left; total counts every match', async () => {
    const t = await setup(store);
    t.facilitator.items = Array.from({ length: 30 }, (_, i) => t.item(`w${i}`, `Weather ${i}`));
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    const catalogOnly = (await t.engine.searchServices('weather', 100)).results.filter((s) => s.source !== 'x402-bazaar').length;
    const found = await t.engine.searchServices('weather', catalogOnly + 5);
    expect(found.results).toHaveLength(catalogOnly + 5);
    expect(bazaarIds(found)).toHaveLength(5);
    expect(found.total).toBe(catalogOnly + 30);
    t.close();
  });

  it('reads page after page, and stops at 1,000 items (the rest counted) or where a facilitator repeats itself', async () => {
    const t = await setup(store);
    t.facilitator.items = Array.from({ length: 250 }, (_, i) => t.item(`p${i}`, `Paged ${i}`));
    expect(await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR })).toMatchObject({ listed: 250 });
    expect(t.facilitator.pages.map((page) => page.offset)).toEqual([0, 100, 200]);

    t.facilitator.pages = [];
    t.facilitator.mode = 'ignores-offset';
    expect(await t.engine.refreshBazaar(t.asOwner)).toMatchObject({ listed: 100, leftOut: { duplicate: 0, over_limit: 0 } });
    expect(t.facilitator.pages.map((page) => page.offset)).toEqual([0, 100]);

    t.facilitator.mode = 'ok';
    t.facilitator.items = Array.from({ length: 1_234 }, (_, i) => t.item(`big${i}`, `Big ${i}`));
    const big = await t.engine.refreshBazaar(t.asOwner);
    expect(big).toMatchObject({ listed: 1_000, leftOut: { over_limit: 234 } });
    t.close();
  });

  it('a list older than 10 minutes is read again by the next search, which answers at once from the cache', async () => {
    const t = await setup(store);
    t.facilitator.items = [t.item('forecast', 'Forecast API')];
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    t.advance(BAZAAR_FRESH_MS - 1);
    expect((await t.engine.searchServices('forecast')).bazaar).toMatchObject({ state: 'fresh' });
    expect(t.facilitator.pages).toHaveLength(1);

    t.advance(1);
    t.facilitator.items.push(t.item('tides', 'Tide tables'));
    const stale = await t.engine.searchServices('');
    expect(stale.bazaar).toMatchObject({ state: 'stale', listed: 1, ageSeconds: BAZAAR_FRESH_MS / 1000 });
    expect(t.facilitator.pages).toHaveLength(2);
    // The read under way lands; the next search has the new list, fresh.
    await vi.waitFor(async () => expect((await t.engine.searchServices('')).bazaar).toMatchObject({ state: 'fresh', listed: 2 }));
    expect(t.facilitator.pages).toHaveLength(2);
    t.close();
  });

  it('a failed read keeps the last good list, marked stale with the failure, and is not tried again for a minute', async () => {
    const t = await setup(store);
    t.facilitator.items = [t.item('forecast', 'Forecast API')];
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    t.facilitator.mode = 'down';
    t.advance(BAZAAR_FRESH_MS);
    await t.engine.searchServices('forecast');
    await vi.waitFor(() => expect(t.engine.bazaar(t.asOwner).error).not.toBeNull());
    const after = await t.engine.searchServices('forecast');
    expect(bazaarIds(after)).toHaveLength(1);
    expect(after.bazaar).toMatchObject({
      state: 'stale',
      listed: 1,
      error: { code: 'bazaar_unreachable', message: expect.stringContaining('ECONNREFUSED') },
    });
    const tries = t.facilitator.pages.length;
    t.advance(BAZAAR_RETRY_MS - 1);
    await t.engine.searchServices('forecast');
    expect(t.facilitator.pages).toHaveLength(tries);
    t.advance(1);
    await t.engine.searchServices('forecast');
    expect(t.facilitator.pages).toHaveLength(tries + 1);

    // Asked outright, the failure is refused with its code; the list stays.
    await expect(t.engine.refreshBazaar(t.asOwner)).rejects.toMatchObject({ code: 'bazaar_unreachable' });
    t.facilitator.mode = 'ok';
    expect(await t.engine.refreshBazaar(t.asOwner)).toMatchObject({ state: 'fresh', error: null, listed: 1 });
    t.close();
  });

  it('a bad answer is refused as a whole (bazaar_bad_answer) and poisons nothing: the last good list stays', async () => {
    const t = await setup(store);
    t.facilitator.items = [t.item('forecast', 'Forecast API')];
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    for (const json of [null, 'text', { items: 'nope' }, { resources: [] }]) {
      t.facilitator.json = json;
      await expect(t.engine.refreshBazaar(t.asOwner)).rejects.toMatchObject({ code: 'bazaar_bad_answer' });
      expect(bazaarIds(await t.engine.searchServices('forecast'))).toHaveLength(1);
    }
    // Bad items are left out one by one: the good ones stay listed.
    t.facilitator.json = { items: [t.item('forecast', 'Forecast API'), 42, { resource: 'javascript:alert(1)' }, null] };
    expect(await t.engine.refreshBazaar(t.asOwner)).toMatchObject({ listed: 1, leftOut: { invalid: 3 } });
    t.close();
  });

  it('another facilitator replaces the list; off forgets it: the registry is the catalog again', async () => {
    const t = await setup(store);
    t.facilitator.items = [t.item('forecast', 'Forecast API')];
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    t.facilitator.items = [t.item('quote', 'Ticker')];
    const other = await t.engine.setBazaar(t.asOwner, { facilitator: 'https://other.example' });
    expect(other).toMatchObject({ facilitator: 'https://other.example', listed: 1 });
    expect((await t.engine.searchServices('')).results.filter((s) => s.source === 'x402-bazaar').map((s) => s.name)).toEqual(['Ticker']);
    expect(await t.engine.setBazaar(t.asOwner, { facilitator: null })).toMatchObject({ state: 'off', listed: 0 });
    expect(bazaarIds(await t.engine.searchServices(''))).toEqual([]);
    expect(t.store.getMeta('bazaar.list')).toBeNull();
    await expect(t.engine.refreshBazaar(t.asOwner)).rejects.toMatchObject({ code: 'bazaar_off' });
    t.close();
  });

  it('the last good list survives a restart (shown at once, without a request); a damaged stored list is dropped', async () => {
    const t = await setup(store);
    t.facilitator.items = [t.item('forecast', 'Forecast API')];
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    t.facilitator.mode = 'down';
    const restarted = t.restart();
    t.advance(60_000);
    const found = await restarted.searchServices('forecast');
    expect(found.results.some((s) => s.source === 'x402-bazaar' && s.name === 'Forecast API')).toBe(true);
    expect(found.bazaar).toMatchObject({ state: 'fresh', ageSeconds: 60 });
    expect(t.facilitator.pages).toHaveLength(1);

    // A stored list is input too: one that does not hold to its shape is not shown.
    const stored = JSON.parse(t.store.getMeta('bazaar.list')!);
    stored.items[0].accepts[0].payTo = { not: 'a string' };
    t.store.setMeta('bazaar.list', JSON.stringify(stored));
    const again = t.restart();
    expect(bazaarIds(await again.searchServices('forecast'))).toEqual([]);
    expect(t.logs.some((line) => line.includes('stored discovery list could not be read'))).toBe(true);
    t.close();
  });

  it('only the owner reads or sets it', async () => {
    const t = await setup(store);
    await t.fundedAgent('nosy', '1');
    expect(() => t.engine.bazaar(t.asAgent('nosy'))).toThrow(expect.objectContaining({ code: 'owner_only' }));
    await expect(t.engine.setBazaar(t.asAgent('nosy'), { facilitator: FACILITATOR })).rejects.toMatchObject({ code: 'owner_only' });
    await expect(t.engine.refreshBazaar(t.asAgent('nosy'))).rejects.toMatchObject({ code: 'owner_only' });
    expect(t.facilitator.pages).toEqual([]);
    t.close();
  });
});

describe('a facilitator that does not answer never holds a search past its bound', () => {
  it('a read has 10 s in all (bazaar_timeout); a first search waits at most 2 s, later ones not at all', async () => {
    const t = await setup();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    t.facilitator.mode = 'hang';
    const set = t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    await vi.advanceTimersByTimeAsync(BAZAAR_READ_TIMEOUT_MS);
    expect(await set).toMatchObject({
      state: 'failed',
      listed: 0,
      error: { code: 'bazaar_timeout', message: expect.stringContaining('within 10 s') },
    });

    // No list, the retry due: the search starts a read and waits for it, 2 s at most.
    t.advance(BAZAAR_RETRY_MS);
    let answered = false;
    const search = t.engine.searchServices('weather').then((answer) => {
      answered = true;
      return answer;
    });
    await vi.advanceTimersByTimeAsync(BAZAAR_SEARCH_WAIT_MS - 1);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await search).bazaar).toMatchObject({ state: 'loading', listed: 0 });
    // The read still under way: the next search does not wait at all.
    const next = await t.engine.searchServices('weather');
    expect(next.bazaar).toMatchObject({ state: 'loading' });
    await vi.advanceTimersByTimeAsync(BAZAAR_READ_TIMEOUT_MS);
    expect(t.engine.bazaar(t.asOwner)).toMatchObject({ state: 'failed', error: { code: 'bazaar_timeout' } });
    t.close();
  });

  it('a Base token that cannot be read (its node hung) holds back no listing: its offers go unjudged, the list is read', async () => {
    const t = await setup();
    t.x402.networks.base = { v1: 'base-sepolia', v2: 'eip155:84532' };
    let asked = 0;
    // The buyer reads the token before it answers; the node never does.
    t.x402.refusing = () => {
      asked += 1;
      return new Promise<never>(() => undefined);
    };
    const onBase = {
      ...t.item('base', 'On Base'),
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '10000',
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          payTo: '0x000000000000000000000000000000000000dEaD',
          maxTimeoutSeconds: 60,
          extra: { name: 'USDC', version: '2' },
        },
      ],
    };
    t.facilitator.items = [t.item('weather', 'Weather'), onBase];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const set = t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    await vi.advanceTimersByTimeAsync(BAZAAR_READ_TIMEOUT_MS);
    // Read, not failed (the facilitator answered); the Solana listing is there (this engine pays no Base).
    expect(await set).toMatchObject({ state: 'fresh', listed: 1, error: null });
    expect(asked).toBe(1);
    t.close();
  });
});

describe('one search for the catalog and the Bazaar (the SQLite ledger, whose full-text index decides what matches)', () => {
  it('a listing is found by the words that find a catalog service: diacritics folded, another form of a word', async () => {
    const t = await setup('sqlite');
    t.facilitator.items = [
      t.item('cafe', 'Café Forecasting', 'Coffee, and what the weather does to it'),
      t.item('quote', 'Ticker', 'Stock quotes'),
    ];
    await t.engine.setBazaar(t.asOwner, { facilitator: FACILITATOR });
    const found = async (query: string) => {
      const answer = await t.engine.searchServices(query, 100);
      return { catalog: answer.results.filter((s) => s.source !== 'x402-bazaar').map((s) => s.id), bazaar: bazaarIds(answer), answer };
    };
    const [cafe] = bazaarIds(await t.engine.searchServices('Café Forecasting'));
    expect(cafe).toMatch(/^bazaar:/);
    for (const query of ['cafe', 'café', 'CAFÉ', 'Cafe']) {
      expect((await found(query)).bazaar, query).toEqual([cafe]);
    }
    // "forecasting" and "forecasts" are "forecast" to the catalog's tokenizer: the catalog's demo-weather
    // ("a three-day forecast") and the listing ("Café Forecasting") alike.
    for (const query of ['forecast', 'forecasting', 'forecasts']) {
      const { catalog, bazaar, answer } = await found(query);
      expect(catalog, query).toContain('demo-weather');
      expect(bazaar, query).toEqual([cafe]);
      expect(answer.total, query).toBe(catalog.length + 1);
    }
    t.close();
  });
});
