/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { withBazaar } from '@x402/extensions/bazaar';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startBazaarFacilitator, startBazaarSeller, type BazaarFacilitator, type BazaarSeller } from '../fixtures/bazaar-facilitator.js';
import { deployAgent, manualClock, micro, startCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { connectMcpHost } from '../helpers/mcp-host.js';
import { expectError } from '../helpers/expect-error.js';
import { CLI, runCoffer } from '../helpers/serve-process.js';
import { usdcOn } from '../helpers/cluster-usdc.js';
import { writeConnectionFile } from '../../server/boot/connection-file.js';
import { keyClient } from '../../server/client/coffer-client.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { BAZAAR_FRESH_MS, BAZAAR_RETRY_MS } from '../../server/core/registry/bazaar.js';

/**
 * Bazaar discovery end to end, with the official packages as the peers: a facilitator built as the x402
 * repository builds one (`x402Facilitator`, cataloging with `extractDiscoveryInfo`, serving
 * `GET /discovery/resources`), two `@x402/express` sellers that declare their routes with
 * `declareDiscoveryExtension`, and the official `@x402/fetch` buyer whose payments make the
 * facilitator catalog them; all on a local cluster presented as devnet. Coffer, pointed at that
 * facilitator, lists and finds those services through /v1, and its agents pay them.
 */
describe('Bazaar discovery: the registry lists what a facilitator discovered', () => {
  let cluster: TestCluster;
  let facilitator: BazaarFacilitator;
  let weather: BazaarSeller;
  let quotes: BazaarSeller;
  let weatherWallet: string;
  let quotesWallet: string;
  const clock = manualClock();

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
  });
  afterAll(async () => cluster.stop());
  const t = useCoffer(() => ({ network: cluster.url, clock }));

  beforeAll(async () => {
    cluster.airdrop(t.owner);
    await cluster.mintUsdc(t.owner, micro('10'));
    facilitator = await startBazaarFacilitator(cluster);
    weatherWallet = (await generateKeyPairSigner()).address;
    quotesWallet = (await generateKeyPairSigner()).address;
    await cluster.mintUsdc(weatherWallet, 0n);
    await cluster.mintUsdc(quotesWallet, 0n);
    weather = await startBazaarSeller(facilitator.url, {
      path: '/weather',
      payTo: weatherWallet,
      price: '$0.02',
      description: 'Current weather and a forecast for a city',
      serviceName: 'Harbor Weather',
      tags: ['weather', 'forecast'],
      query: { city: 'Lisbon' },
    });
    quotes = await startBazaarSeller(facilitator.url, {
      path: '/quote',
      payTo: quotesWallet,
      price: '$0.005',
      description: 'Stock quotes by ticker symbol',
      serviceName: 'Ticker Tape',
      tags: ['finance'],
      query: { symbol: 'AAPL' },
    });
    // The official buyer pays each once: the facilitator verifies, and catalogs what the seller declared.
    const buyer = await generateKeyPairSigner();
    await cluster.mintUsdc(buyer.address, micro('1'));
    const paidFetch = wrapFetchWithPayment(
      fetch,
      x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
    );
    expect((await paidFetch(`${weather.url}/weather?city=Lisbon`)).status).toBe(200);
    expect((await paidFetch(`${quotes.url}/quote?symbol=AAPL`)).status).toBe(200);
    expect(facilitator.catalog.size).toBe(2);
    // The owner's commands find this Coffer through its connection file, as they find `coffer serve`.
    writeConnectionFile(join(t.dataDir, 'connection.json'), {
      url: t.url,
      owner: t.owner,
      ownerKey: t.ownerKey,
      network: 'devnet',
      pid: process.pid,
    });
  });
  afterAll(async () => {
    await weather.close();
    await quotes.close();
    await facilitator.close();
  });

  const search = (q: string, limit?: number) =>
    t.api('GET', `/v1/services/search?q=${encodeURIComponent(q)}${limit === undefined ? '' : `&limit=${limit}`}`, { key: null });
  const bazaarOf = (body: any) => (body.results as any[]).filter((service) => service.source === 'x402-bazaar');
  const settings = (...args: string[]) => runCoffer(['settings', ...args, '--data-dir', t.dataDir]);

  it('is off by default: the registry is the catalog, and nothing asks the facilitator', async () => {
    const found = await search('weather');
    expect(found.status).toBe(200);
    expect(found.body.bazaar).toBeNull();
    expect(bazaarOf(found.body)).toEqual([]);
    expect((await t.api('GET', t.withOwner('/v1/bazaar'))).body).toMatchObject({ facilitator: null, state: 'off' });
    // `coffer settings` says nothing of it while it is off and not asked about.
    expect((await settings()).stdout).not.toContain('bazaar');
    expect(facilitator.discoveryRequests).toBe(0);
  });

  it('the facilitator serves the official list: the official client reads the sellers’ declarations', async () => {
    const official = withBazaar(new HTTPFacilitatorClient({ url: facilitator.url }));
    const list = await official.extensions.bazaar.listResources({ type: 'http' });
    expect(list.items.map((item) => item.serviceName).sort()).toEqual(['Harbor Weather', 'Ticker Tape']);
    expect(list.items.find((item) => item.serviceName === 'Harbor Weather')).toMatchObject({
      resource: `${weather.url}/weather`,
      accepts: [{ scheme: 'exact', amount: '20000', asset: cluster.mint.address, payTo: weatherWallet }],
      extensions: { bazaar: { info: { input: { type: 'http', method: 'GET', queryParams: { city: 'Lisbon' } } } } },
    });
    facilitator.discoveryRequests = 0;
  });

  it('turned on with coffer settings --bazaar: read at once; /v1 search finds both by the catalog’s rule, priced in USDC, with their origin', async () => {
    const set = await settings('--bazaar', `${facilitator.url}/`);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`bazaar     ${facilitator.url}\n`);
    expect(set.stdout).toContain('2 payable services listed, fresh');
    expect(facilitator.discoveryRequests).toBe(1);

    const found = await search('weather');
    const listing = bazaarOf(found.body);
    expect(listing).toEqual([
      {
        id: expect.stringMatching(/^bazaar:127\.0\.0\.1:\d+:[0-9a-f]{10}$/),
        name: 'Harbor Weather',
        description: 'Current weather and a forecast for a city',
        category: 'weather, forecast',
        pricing: {},
        pricePerCall: '0.02',
        endpoint: `GET ${weather.url}/weather?city={city}`,
        source: 'x402-bazaar',
        payTo: weatherWallet,
        network: 'devnet',
        base: null,
        discovery: { facilitator: facilitator.url, resource: `${weather.url}/weather`, lastUpdated: expect.any(String), x402Version: 2 },
      },
    ]);
    // The shipped catalog's matches come first.
    expect(found.body.results[0].source).not.toBe('x402-bazaar');
    expect(found.body.bazaar).toMatchObject({
      facilitator: facilitator.url,
      state: 'fresh',
      listed: 2,
      error: null,
      leftOut: { invalid: 0, not_http: 0, other_network: 0, not_usdc: 0, not_exact: 0, duplicate: 0, over_limit: 0 },
    });
    // Prefix words, any word, the tags and descriptions too; as an agent's client asks (the /v1 client, an agent key).
    const agent = await deployAgent(t, 'finder');
    const api = keyClient(t.url, { owner: t.owner, key: agent.apiKey });
    expect(bazaarOf(await api.searchServices('tick')).map((s) => s.name)).toEqual(['Ticker Tape']);
    expect(bazaarOf(await api.searchServices('forecast stocks')).map((s) => s.name)).toEqual(['Harbor Weather', 'Ticker Tape']);
    expect(bazaarOf(await api.searchServices('')).map((s) => s.pricePerCall)).toEqual(['0.02', '0.005']);
    // Searches answer from the cache: no request reached the facilitator.
    expect(facilitator.discoveryRequests).toBe(1);
  });

  it('a listing is for finding: its API is paid with x402 under the policy, allowed by its recipient, never by its id', async () => {
    const [listing] = bazaarOf((await search('harbor')).body);
    expectError(await t.api('GET', `/v1/services/${encodeURIComponent(listing.id)}`, { key: null }), 404, 'service_not_found');
    expectError(
      await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: 'by-id', dailyBudget: '1', maxPerPayment: '0.10', allowedServices: [listing.id] },
      }),
      400,
      'invalid_policy',
    );
    const agent = await deployAgent(t, 'weather-buyer', { dailyBudget: '1', maxPerPayment: '0.10', allowedServices: [listing.payTo] });
    expect((await t.api('POST', t.withOwner('/v1/agents/weather-buyer/allocate'), { body: { amount: '0.50' } })).status).toBe(200);
    const before = await usdcOn(cluster, weatherWallet);
    const url = listing.endpoint.split(' ')[1].replace('{city}', 'Porto');
    const { response, payment } = await payingFetch(
      url,
      {},
      { agent: { cofferUrl: t.url, owner: t.owner, agentId: 'weather-buyer', apiKey: agent.apiKey } },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, query: { city: 'Porto' } });
    expect(payment).toMatchObject({ amount: '0.02' });
    expect(await usdcOn(cluster, weatherWallet)).toBe(before + micro('0.02'));
  });

  it('an agent finds a listing through MCP find_service, told to buy it with fetch_paid, and buys it so', async () => {
    const agent = await deployAgent(t, 'mcp-finder', { dailyBudget: '1', maxPerPayment: '0.10' });
    expect((await t.api('POST', t.withOwner('/v1/agents/mcp-finder/allocate'), { body: { amount: '0.50' } })).status).toBe(200);
    const env = {
      ...(process.env as Record<string, string>),
      COFFER_URL: t.url,
      COFFER_OWNER: t.owner,
      COFFER_AGENT_ID: 'mcp-finder',
      COFFER_API_KEY: agent.apiKey,
      COFFER_CONFIG: '/nonexistent/agent.json',
    };
    const host = await connectMcpHost({ command: process.execPath, args: [CLI, 'mcp'], env }, 'modern');
    try {
      const found = await host.callTool('find_service', { query: 'harbor' });
      const [listing] = (found.structuredContent as { results: { id: string; how: string; pricing: unknown }[] }).results.filter((r) =>
        r.id.startsWith('bazaar:'),
      );
      expect(listing!.pricing).toEqual({ perCall: '$0.02' });
      const how = /^Call fetch_paid with method GET and url (\S+): it pays 0\.02 USDC a call within your policy\.$/.exec(listing!.how);
      expect(how, listing!.how).not.toBeNull();
      const before = await usdcOn(cluster, weatherWallet);
      const bought = await host.callTool('fetch_paid', { url: how![1]!.replace('{city}', 'Faro') });
      expect(bought.isError, bought.content[0]?.text).toBeFalsy();
      expect(bought.structuredContent).toMatchObject({ status: 200, payment: { protocol: 'x402', amount: '0.02' } });
      expect(await usdcOn(cluster, weatherWallet)).toBe(before + micro('0.02'));
    } finally {
      await host.close();
    }
  });

  it('cached for 10 minutes; then one search reads again, and answers at once from the cache meanwhile', async () => {
    const requests = facilitator.discoveryRequests;
    for (let i = 0; i < 3; i += 1) await search('weather');
    expect(facilitator.discoveryRequests).toBe(requests);
    clock.advance(BAZAAR_FRESH_MS);
    facilitator.delayMs = 1_500;
    const started = Date.now();
    const stale = await search('weather');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(stale.body.bazaar).toMatchObject({ state: 'stale', listed: 2, ageSeconds: BAZAAR_FRESH_MS / 1000 });
    expect(bazaarOf(stale.body)).toHaveLength(1);
    await expect.poll(async () => (await search('weather')).body.bazaar.state, { timeout: 5_000 }).toBe('fresh');
    facilitator.delayMs = 0;
    expect(facilitator.discoveryRequests).toBe(requests + 1);
  });

  it('the facilitator down: the cached list stays, marked stale with why; refresh is refused with its code; back up, fresh', async () => {
    facilitator.down = true;
    clock.advance(BAZAAR_FRESH_MS);
    await search('weather');
    await expect.poll(async () => (await search('weather')).body.bazaar.error?.code, { timeout: 5_000 }).toBe('bazaar_unreachable');
    const down = await search('weather');
    expect(bazaarOf(down.body).map((s) => s.name)).toEqual(['Harbor Weather']);
    expect(down.body.bazaar).toMatchObject({
      state: 'stale',
      listed: 2,
      error: { code: 'bazaar_unreachable', message: expect.stringContaining(facilitator.url) },
    });

    expectError(await t.api('POST', t.withOwner('/v1/bazaar/refresh')), 502, 'bazaar_unreachable', /keeps the last good list/);
    const refused = await settings('--bazaar-refresh');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(bazaar_unreachable\)/);
    const shown = await settings();
    expect(shown.stdout).toContain('2 payable services listed, stale');
    expect(shown.stdout).toMatch(/last read failed: .*\(bazaar_unreachable\)/);

    facilitator.down = false;
    clock.advance(BAZAAR_RETRY_MS);
    const back = await settings('--bazaar-refresh');
    expect(back.code).toBe(0);
    expect(back.stdout).toContain('2 payable services listed, fresh (read 0 s ago)');
  });

  it('what it lists is input: other networks and assets, MCP tools, bad items are left out and counted; the rest listed', async () => {
    facilitator.answer = (real) => {
      const [first] = real.items as any[];
      const copy = (edit: (item: any) => void) => {
        const item = structuredClone(first);
        edit(item);
        return item;
      };
      return {
        ...real,
        items: [
          ...real.items,
          copy((item) => {
            item.resource = `${item.resource}/base`;
            item.accepts[0] = {
              ...item.accepts[0],
              network: 'eip155:8453',
              asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
              payTo: '0x1',
            };
          }),
          copy((item) => {
            item.resource = `${item.resource}/mainnet`;
            item.accepts[0].network = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
          }),
          copy((item) => {
            item.resource = `${item.resource}/wsol`;
            item.accepts[0].asset = 'So11111111111111111111111111111111111111112';
          }),
          copy((item) => {
            item.resource = `${item.resource}/upto`;
            item.accepts[0].scheme = 'upto';
          }),
          copy((item) => {
            item.resource = `${item.resource}/mcp`;
            item.type = 'mcp';
          }),
          copy((item) => (item.resource = 'javascript:alert(1)')),
          copy((item) => (item.description = 'x'.repeat(50_000))),
          copy((item) => (item.accepts = 'all of them')),
          42,
          null,
        ],
        pagination: { ...real.pagination, total: real.items.length + 10 },
      };
    };
    const read = await t.api('POST', t.withOwner('/v1/bazaar/refresh'));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      state: 'fresh',
      listed: 2,
      leftOut: { invalid: 5, not_http: 1, other_network: 2, not_usdc: 1, not_exact: 1, duplicate: 0, over_limit: 0 },
    });
    expect(bazaarOf((await search('')).body).map((s) => s.name)).toEqual(['Harbor Weather', 'Ticker Tape']);
    facilitator.answer = null;
  });

  it('wrong shapes and huge answers are refused with a code and poison nothing: the last good list stays', async () => {
    for (const [raw, code] of [
      ['{"items": "nope"}', 'bazaar_bad_answer'],
      ['[1, 2, 3]', 'bazaar_bad_answer'],
      ['<html>not json</html>', 'bazaar_bad_answer'],
      [`{"items": [${'"x",'.repeat(1_500_000)}"x"]}`, 'bazaar_answer_too_large'],
    ] as const) {
      facilitator.raw = raw;
      expectError(await t.api('POST', t.withOwner('/v1/bazaar/refresh')), 502, code);
      const after = await search('');
      expect(bazaarOf(after.body).map((s) => s.name)).toEqual(['Harbor Weather', 'Ticker Tape']);
      expect(after.body.bazaar).toMatchObject({ state: 'stale', error: { code } });
    }
    facilitator.raw = null;

    // A list of thousands: 1,000 kept, the rest counted; search still answers fast and counts them all.
    facilitator.answer = (real) => {
      const [first] = real.items as any[];
      const items = Array.from({ length: 3_000 }, (_, i) => ({
        ...structuredClone(first),
        resource: `${weather.url}/weather/${i}`,
        serviceName: `Weather ${i}`,
      }));
      return { ...real, items, pagination: { limit: 3_000, offset: 0, total: 3_000 } };
    };
    const huge = await t.api('POST', t.withOwner('/v1/bazaar/refresh'));
    expect(huge.body).toMatchObject({ state: 'fresh', listed: 1_000, leftOut: { over_limit: 2_000 } });
    const started = Date.now();
    const found = await search('weather', 100);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(found.body.results).toHaveLength(100);
    expect(found.body.total).toBeGreaterThanOrEqual(1_000);
    facilitator.answer = null;
    expect((await t.api('POST', t.withOwner('/v1/bazaar/refresh'))).body).toMatchObject({ listed: 2 });
  });

  it('one search for both: a catalog service and a listing are found by the same words, diacritics and word forms alike (/v1, and the engine on its SQLite file)', async () => {
    t.coffer.db
      .prepare(
        `INSERT INTO services (id, name, description, category, pricing, price_per_call, endpoint, source, pay_to, network)
         VALUES ('cafe-forecasts', 'Café Forecasts', 'Forecasting the queue at the counter', 'food', '{}', '0.01',
                 'GET https://cafe.example/queue', 'x402-marketplace', ?, 'devnet')`,
      )
      .run(weatherWallet);
    facilitator.answer = (real) => {
      const harbor = (real.items as any[]).find((item) => item.serviceName === 'Harbor Weather');
      const cafe = { ...structuredClone(harbor), resource: `${weather.url}/weather/cafe`, serviceName: 'Café Crowds' };
      cafe.description = 'How busy a café is, by the hour';
      cafe.tags = ['food'];
      return { ...real, items: [...real.items, cafe], pagination: { ...real.pagination, total: real.items.length + 1 } };
    };
    try {
      expect((await t.api('POST', t.withOwner('/v1/bazaar/refresh'))).body).toMatchObject({ state: 'fresh', listed: 3 });
      for (const query of ['cafe', 'café', 'CAFÉ', 'Cafe crowd', 'forecast', 'forecasting', 'forecasts']) {
        for (const answer of [(await search(query, 100)).body, await t.coffer.engine.searchServices(query, 100)]) {
          const catalog = (answer.results as any[]).filter((s) => s.source !== 'x402-bazaar').map((s) => s.id);
          const listings = bazaarOf(answer).map((s) => s.name);
          // The catalog's matches first, then the Bazaar's; both counted.
          expect(answer.results.map((s: any) => s.source !== 'x402-bazaar')).toEqual([
            ...catalog.map(() => true),
            ...listings.map(() => false),
          ]);
          expect(answer.total, query).toBe(catalog.length + listings.length);
          if (query.toLowerCase().startsWith('caf')) {
            expect(catalog, query).toEqual(['cafe-forecasts']);
            expect(listings, query).toEqual(['Café Crowds']);
          } else {
            // "forecasting" and "forecasts" are "forecast" to the catalog's tokenizer, in either kind of listing.
            expect(catalog, query).toEqual(expect.arrayContaining(['cafe-forecasts', 'demo-weather']));
            expect(listings, query).toEqual(['Harbor Weather']);
          }
        }
      }
    } finally {
      facilitator.answer = null;
      t.coffer.db.prepare("DELETE FROM services WHERE id = 'cafe-forecasts'").run();
      expect((await t.api('POST', t.withOwner('/v1/bazaar/refresh'))).body).toMatchObject({ listed: 2 });
    }
    // The list read again: the listing is no more found.
    expect((await search('cafe')).body).toMatchObject({ results: [], total: 0 });
  });

  it('refuses a facilitator URL that is not one, with a code; only the owner sets it; off forgets the list', async () => {
    for (const facilitatorUrl of [
      'http://facilitator.example',
      'https://user:pw@facilitator.example',
      'https://f.example/x?key=1',
      'not a url',
      42,
    ]) {
      expectError(
        await t.api('POST', t.withOwner('/v1/bazaar'), { body: { facilitator: facilitatorUrl } }),
        400,
        'invalid_facilitator_url',
      );
    }
    const bad = await settings('--bazaar', 'ftp://facilitator.example');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Facilitator must be an https URL.*\(invalid_facilitator_url\)/);
    // Refused with a time zone beside it: nothing is saved, nothing said as set (helper 171).
    const zoneBefore = (await t.api('GET', t.withOwner('/v1/settings'))).body.timeZone;
    const both = await settings('--time-zone', 'Pacific/Auckland', '--bazaar', 'ftp://facilitator.example');
    expect(both.code).toBe(1);
    expect(both.stdout).toBe('');
    expect((await t.api('GET', t.withOwner('/v1/settings'))).body.timeZone).toBe(zoneBefore);
    // Turned off and read at once: nothing to read, refused (a usage error) before anything is saved.
    const offAndRead = await settings('--time-zone', 'Pacific/Auckland', '--bazaar', 'off', '--bazaar-refresh');
    expect(offAndRead.code).toBe(2);
    expect((await t.api('GET', t.withOwner('/v1/settings'))).body.timeZone).toBe(zoneBefore);
    const agent = await deployAgent(t, 'not-owner');
    expectError(await t.api('POST', t.withOwner('/v1/bazaar'), { key: agent.apiKey, body: { facilitator: null } }), 403, 'owner_only');
    expectError(await t.api('GET', t.withOwner('/v1/bazaar'), { key: agent.apiKey }), 403, 'owner_only');
    expect((await t.api('GET', t.withOwner('/v1/bazaar'))).body).toMatchObject({ facilitator: facilitator.url, listed: 2 });

    const off = await settings('--bazaar', 'off');
    expect(off.stdout).toContain('bazaar     off');
    const found = await search('weather');
    expect(found.body.bazaar).toBeNull();
    expect(bazaarOf(found.body)).toEqual([]);
    expectError(await t.api('POST', t.withOwner('/v1/bazaar/refresh')), 409, 'bazaar_off');
  });
});

describe('Bazaar discovery on the embedded chain', () => {
  it('lists no Solana offer as payable, and says why: x402 is paid on Solana on devnet and mainnet only', async () => {
    const cluster = await new TestCluster({ as: 'devnet' }).start();
    const facilitator = await startBazaarFacilitator(cluster);
    facilitator.answer = (real) => ({
      ...real,
      items: [
        {
          resource: 'https://api.example/weather',
          type: 'http',
          x402Version: 2,
          accepts: [
            {
              scheme: 'exact',
              network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
              amount: '10000',
              asset: cluster.mint.address,
              payTo: facilitator.feePayer.address,
            },
          ],
          lastUpdated: new Date().toISOString(),
        },
      ],
    });
    const sim = await startCoffer();
    try {
      const set = await sim.api('POST', sim.withOwner('/v1/bazaar'), { body: { facilitator: facilitator.url } });
      expect(set.body).toMatchObject({
        state: 'fresh',
        listed: 0,
        leftOut: { other_network: 1 },
        note: expect.stringMatching(
          /^this Coffer runs on sim: x402 is paid on Solana on devnet and mainnet only, and on Base here on eip155:790526/,
        ),
      });
    } finally {
      await sim.stop();
      await facilitator.close();
      await cluster.stop();
    }
  });
});
