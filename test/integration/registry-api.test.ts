import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCoffer, type ApiResponse, type TestCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { TestCluster } from '../fixtures/test-cluster.js';

/** The registry over HTTP: service search and the model list. Public catalog data, no auth. */

interface CatalogService {
  id: string;
  name: string;
  source: string;
  category: string;
}
interface CatalogModel {
  id: string;
  displayName: string;
  provider: string;
  enabled: boolean;
  pricing: Record<string, string>;
}
const catalog = JSON.parse(readFileSync(new URL('../../server/data/catalog.json', import.meta.url), 'utf8')) as {
  services: CatalogService[];
  models: CatalogModel[];
};

const SOURCES = ['svc-native', 'model-registry', 'x402-marketplace'];
const RESOLUTIONS = ['1k', '2k', '4k'];
const DECIMAL = /^\d+\.\d{2,6}$/;

function expectService(service: Record<string, unknown>): void {
  for (const field of ['id', 'name', 'description', 'category', 'endpoint', 'source']) {
    expect(typeof service[field], `${String(service.id)}.${field}`).toBe('string');
    expect((service[field] as string).length, `${String(service.id)}.${field}`).toBeGreaterThan(0);
  }
  expect(SOURCES).toContain(service.source);
  expect(service.endpoint).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \S+$/);
  if (service.source !== 'x402-marketplace') expect(service.endpoint).toContain('{agentId}');

  const pricing = service.pricing as Record<string, unknown>;
  expect(pricing).toBeTypeOf('object');
  expect(pricing).not.toBeNull();
  expect(Array.isArray(pricing)).toBe(false);
  for (const [resolution, price] of Object.entries(pricing)) {
    expect(RESOLUTIONS).toContain(resolution);
    expect(price).toMatch(DECIMAL);
  }
}

function expectSearchShape(response: ApiResponse, query: string): void {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body.query).toBe(query);
  expect(Array.isArray(response.body.results)).toBe(true);
  expect(Number.isInteger(response.body.total)).toBe(true);
  expect(response.body.total).toBeGreaterThanOrEqual(response.body.results.length);
  for (const service of response.body.results) expectService(service);
  const ids = (response.body.results as Array<{ id: string }>).map((s) => s.id);
  expect(new Set(ids).size).toBe(ids.length);
}

const search = (t: TestCoffer, query: string | null, extra = '') =>
  t.api('GET', `/v1/services/search${query === null ? '' : `?q=${encodeURIComponent(query)}`}${extra}`, { key: null });

describe('registry API', () => {
  const t = useCoffer();

  describe('GET /v1/services/search', () => {
    it('q=weather finds the weather service: {query, results: [Service], total}', async () => {
      const response = await search(t, 'weather');
      expectSearchShape(response, 'weather');
      const ids = (response.body.results as Array<{ id: string }>).map((s) => s.id);
      expect(ids).toContain('demo-weather');
      expect(response.body.total).toBe(response.body.results.length);
      const weather = (response.body.results as Array<Record<string, unknown>>).find((s) => s.id === 'demo-weather');
      expect(weather).toMatchObject({ name: 'Coffer demo weather', category: 'weather', source: 'x402-marketplace', pricing: {} });
      // Nothing unrelated: every hit mentions weather somewhere.
      for (const service of response.body.results as Array<Record<string, string>>) {
        expect(`${service.name} ${service.description} ${service.category} ${service.id}`.toLowerCase()).toContain('weather');
      }
    });

    it('q=image finds image services and model-registry entries', async () => {
      const response = await search(t, 'image');
      expectSearchShape(response, 'image');
      const results = response.body.results as Array<{ id: string; source: string; category: string; pricing: Record<string, string> }>;
      const ids = results.map((s) => s.id);
      expect(ids).toContain('image-generate');
      const models = results.filter((s) => s.source === 'model-registry');
      expect(models.length).toBeGreaterThan(0);
      for (const model of models) {
        expect(Object.keys(model.pricing).sort()).toEqual(RESOLUTIONS);
      }
      expect(results.some((s) => s.source === 'svc-native')).toBe(true);
      expect(results.map((s) => s.id)).not.toContain('demo-weather');
    });

    it('ranks a name match for a multi-word query and keeps the query verbatim', async () => {
      const response = await search(t, 'Stable Diffusion');
      expectSearchShape(response, 'Stable Diffusion');
      expect((response.body.results as Array<{ id: string }>)[0]?.id).toBe('model:sdxl');
    });

    it('is case-insensitive', async () => {
      const lower = await search(t, 'weather');
      const upper = await search(t, 'WEATHER');
      expect(upper.status).toBe(200);
      expect((upper.body.results as Array<{ id: string }>).map((s) => s.id)).toEqual(
        (lower.body.results as Array<{ id: string }>).map((s) => s.id),
      );
    });

    it.each([
      ['no q at all', null],
      ['an empty q', ''],
      ['a blank q', '   '],
    ])('%s lists every service', async (_label, query) => {
      const response = await search(t, query);
      expect(response.status).toBe(200);
      expect(response.body.total).toBe(catalog.services.length);
      expect(response.body.results.length).toBe(Math.min(catalog.services.length, 20));
      for (const service of response.body.results) expectService(service);
      expect(typeof response.body.query).toBe('string');
    });

    it('every catalog service is reachable and well-formed (limit=100)', async () => {
      const response = await search(t, '', '&limit=100');
      expectSearchShape(response, '');
      const ids = (response.body.results as Array<{ id: string }>).map((s) => s.id).sort();
      expect(ids).toEqual(catalog.services.map((s) => s.id).sort());
      const sources = new Set((response.body.results as Array<{ source: string }>).map((s) => s.source));
      expect([...sources].sort()).toEqual([...SOURCES].sort());
    });

    it.each([
      ['double quotes', '"weather"'],
      ['a lone double quote', '"'],
      ['unbalanced quotes', '"weather'],
      ['a star', 'weath*'],
      ['a lone star', '*'],
      ['NEAR', 'image NEAR weather'],
      ['NEAR with a distance', 'NEAR(image weather, 2)'],
      ['parentheses', '(image OR weather)'],
      ['an open parenthesis', '(image'],
      ['a close parenthesis', 'image)'],
      ['AND / OR / NOT', 'image AND NOT weather OR'],
      ['a lone NOT', 'NOT'],
      ['a column filter', 'name:weather'],
      ['a caret', '^image'],
      ['a minus', '-image'],
      ['a plus', '+image'],
      ['braces', '{name description}: weather'],
      ['SQL', "'; DROP TABLE services; --"],
      ['percent and underscore', '%_%'],
      ['backslashes', '\\\\'],
      ['unicode', 'météo 天气 🌦'],
      ['NUL', 'wea\u0000ther'],
    ])('FTS syntax in q (%s) does not error', async (_label, query) => {
      const response = await search(t, query);
      expectSearchShape(response, query);
    });

    it('the SQL-looking query left the catalog intact', async () => {
      await search(t, "'; DROP TABLE services; --");
      const response = await search(t, '', '&limit=100');
      expect(response.body.total).toBe(catalog.services.length);
    });

    it.each([['zzqxjv'], ['"zzqxjv"'], ['xylophone-quasar']])('%s matches nothing: results [] and total 0', async (query) => {
      const response = await search(t, query);
      expectSearchShape(response, query);
      expect(response.body.results).toEqual([]);
      expect(response.body.total).toBe(0);
    });

    it('limit caps results but not total', async () => {
      const one = await search(t, 'image', '&limit=1');
      expectSearchShape(one, 'image');
      expect(one.body.results).toHaveLength(1);
      const all = await search(t, 'image', '&limit=100');
      expect(one.body.total).toBe(all.body.total);
      expect(all.body.results.length).toBe(all.body.total);
      expect(one.body.results[0]).toEqual(all.body.results[0]);
    });

    it.each([['0'], ['101'], ['x'], ['-1'], ['1.5'], [''], ['1e2'], ['99999999999999999999']])(
      'limit=%s is 400 invalid_limit',
      async (limit) => {
        const response = await t.api('GET', `/v1/services/search?q=image&limit=${encodeURIComponent(limit)}`, { key: null });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ code: 'invalid_limit' });
        expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
      },
    );

    it('limit bounds 1 and 100 are accepted', async () => {
      for (const limit of ['1', '100']) {
        const response = await search(t, '', `&limit=${limit}`);
        expect(response.status).toBe(200);
      }
    });

    it('needs no auth: no key, no owner; a bearer key does not change the answer', async () => {
      const anonymous = await t.api('GET', '/v1/services/search?q=weather', { key: null });
      expect(anonymous.status).toBe(200);
      const withKey = await t.api('GET', '/v1/services/search?q=weather');
      expect(withKey.status).toBe(200);
      expect(withKey.body).toEqual(anonymous.body);
    });
  });

  describe('GET /v1/models', () => {
    it('lists only enabled models: {models: [Model]}', async () => {
      const response = await t.api('GET', '/v1/models', { key: null });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toContain('models');
      const models = response.body.models as Array<{ id: string }>;
      const enabled = catalog.models.filter((m) => m.enabled);
      const disabled = catalog.models.filter((m) => !m.enabled);
      expect(disabled.length).toBeGreaterThanOrEqual(1);
      expect(models.map((m) => m.id).sort()).toEqual(enabled.map((m) => m.id).sort());
      for (const gone of disabled) expect(models.map((m) => m.id)).not.toContain(gone.id);
    });

    it('each model has id, displayName, provider, description, 1k/2k/4k decimal pricing and enabled: true', async () => {
      const response = await t.api('GET', '/v1/models', { key: null });
      for (const model of response.body.models) {
        for (const field of ['id', 'displayName', 'provider', 'description']) {
          expect(typeof model[field], `${model.id}.${field}`).toBe('string');
          expect(model[field].length, `${model.id}.${field}`).toBeGreaterThan(0);
        }
        expect(model.enabled).toBe(true);
        expect(Object.keys(model.pricing).sort()).toEqual(RESOLUTIONS);
        for (const resolution of RESOLUTIONS) expect(model.pricing[resolution]).toMatch(DECIMAL);
        const source = catalog.models.find((m) => m.id === model.id);
        expect(model).toMatchObject({ displayName: source?.displayName, provider: source?.provider, pricing: source?.pricing });
      }
    });

    it('needs no auth, and the answer is the same with a key', async () => {
      const anonymous = await t.api('GET', '/v1/models', { key: null });
      const withKey = await t.api('GET', `/v1/models?owner=${t.owner}`);
      expect(anonymous.status).toBe(200);
      expect(withKey.status).toBe(200);
      expect(withKey.body).toEqual(anonymous.body);
    });
  });
});

describe('a large registry, and the catalog load at start', () => {
  it('keeps listings it did not ship across restarts, follows the catalog for its own, and caps the count of a broad search', async () => {
    let t = await startCoffer({ keepDataDir: true });
    const dataDir = t.dataDir;
    try {
      const add = t.coffer.db.prepare(
        `INSERT INTO services (id, name, description, category, pricing, price_per_call, endpoint, source, pay_to, network)
         VALUES (?, ?, 'a bulk listing', 'bulk', '{}', '0.01', ?, 'x402-marketplace', '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx', 'mainnet')`,
      );
      t.coffer.db.transaction(() => {
        for (let i = 0; i < 1_500; i++) add.run(`bulk-${i}`, `Bulk listing ${i}`, `GET https://bulk${i}.example/api`);
      })();
      const broad = await t.api('GET', '/v1/services/search?q=bulk');
      expect(broad.body).toMatchObject({ total: 1000, totalIsCapped: true });
      expect(broad.body.results).toHaveLength(20);
      const narrow = await t.api('GET', '/v1/services/search?q=weather');
      expect(narrow.body.totalIsCapped).toBe(false);
      expect(narrow.body.results.map((s: { id: string }) => s.id)).toContain('demo-weather');

      await t.stop();
      t = await startCoffer({ dataDir, keepDataDir: true });
      // The listings it did not ship survive the start, still searchable; the shipped ones are all there.
      expect((await t.api('GET', '/v1/services/search?q=bulk&limit=1')).body.total).toBe(1000);
      expect((await t.api('GET', '/v1/services/bulk-7')).status).toBe(200);
      for (const service of catalog.services) expect((await t.api('GET', `/v1/services/${service.id}`)).status, service.id).toBe(200);
      const everything = await t.api('GET', '/v1/services/search?q=');
      expect(everything.body.total).toBe(catalog.services.length + 1_500);

      // A catalog that stops shipping a service removes it, and only it.
      const { loadCatalog, readCatalog } = await import('../../server/store/catalog.js');
      const shipped = readCatalog();
      loadCatalog(t.coffer.db, { ...shipped, services: shipped.services.filter((s) => s.id !== 'demo-quotes') }, t.owner);
      expect((await t.api('GET', '/v1/services/demo-quotes')).status).toBe(404);
      expect((await t.api('GET', '/v1/services/search?q=quotes')).body.results.map((s: { id: string }) => s.id)).not.toContain(
        'demo-quotes',
      );
      expect((await t.api('GET', '/v1/services/bulk-7')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe('example listings', () => {
  const examples = catalog.services.filter((service) => (service as { example?: boolean }).example === true);
  const allIds = async (t: TestCoffer) =>
    (await t.api('GET', '/v1/services/search?q=&limit=100')).body.results as { id: string; description: string; endpoint: string }[];

  it('are the .example endpoints, say so in their description, and are listed on the sim chain', async () => {
    expect(examples.length).toBeGreaterThan(0);
    for (const service of catalog.services) {
      const endpoint = (service as unknown as { endpoint: string }).endpoint;
      expect(/\.example[/:?]/.test(endpoint), service.id).toBe(examples.includes(service));
    }
    const t = await startCoffer();
    try {
      const listed = await allIds(t);
      for (const example of examples) {
        expect(listed.find((service) => service.id === example.id)?.description, example.id).toMatch(
          /^Example listing, sim chain only \(no API answers here\): /,
        );
      }
    } finally {
      await t.stop();
    }
  });

  it('are not listed on a real network, where paying one would send money to nobody', async () => {
    const cluster = await new TestCluster().start();
    const t = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address });
    try {
      const listed = (await allIds(t)).map((service) => service.id);
      expect(listed).toContain('image-generate');
      for (const example of examples) expect(listed).not.toContain(example.id);
      const refused = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: 'x', dailyBudget: '1', maxPerPayment: '1', allowedServices: [examples[0]!.id] },
      });
      expect(refused.body.code).toBe('invalid_policy');
    } finally {
      await t.stop();
      await cluster.stop();
    }
  });
});
