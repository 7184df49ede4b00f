/* eslint-disable @typescript-eslint/no-explicit-any -- the facilitator's items are edited loosely on purpose: the tests feed them malformed */
import { describe, expect, it } from 'vitest';
import {
  cleanText,
  mapItem,
  mapItems,
  readDiscoveryPage,
  readItem,
  requirementOf,
  storedItemSchema,
  type BazaarEntry,
  type DiscoveredItem,
  type PayableHere,
} from '../../../../../server/core/registry/bazaar-listing.js';
import { CofferError } from '../../../../../server/wire/errors.js';

const DEVNET_V2 = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const PAY_TO = '32TkufgACBYJtUXpxmkpPLhnV7J4Hf4pQXm6BS9Raq3T';
const FACILITATOR = 'https://facilitator.example';
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const BASE_PAY_TO = '0x558D0663A0BAAc54ed3780ebe12DFafBF0fE05f1';
const ON_BASE = { networks: { v1: 'base-sepolia', v2: 'eip155:84532' }, usdc: BASE_SEPOLIA_USDC, network: 'base-sepolia' };
const DEVNET: PayableHere = {
  sol: { networks: { v1: 'solana-devnet', v2: DEVNET_V2 }, usdc: DEVNET_USDC, network: 'devnet' },
  base: null,
  network: 'devnet',
};
const DEVNET_AND_BASE: PayableHere = { ...DEVNET, base: ON_BASE };
const SIM: PayableHere = { sol: null, base: null, network: 'sim' };

/** An item as an official facilitator lists it (the shape seen from `@x402/core` + `@x402/extensions`, trimmed). */
const listed = (edit: (item: Record<string, any>) => void = () => undefined): Record<string, any> => {
  const item: Record<string, any> = {
    resource: 'https://api.weather.example/weather',
    type: 'http',
    x402Version: 2,
    accepts: [
      {
        scheme: 'exact',
        network: DEVNET_V2,
        amount: '20000',
        asset: DEVNET_USDC,
        payTo: PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { feePayer: 'FLmN7az4wsepTxL3VNTwh2b5bbwHhAWaziaqFM2eQcnA' },
      },
    ],
    lastUpdated: '2026-11-24T04:06:10.313Z',
    description: 'Current weather for a city',
    mimeType: 'application/json',
    serviceName: 'Bazaar Weather',
    tags: ['weather', 'forecast'],
    extensions: {
      bazaar: {
        info: { input: { type: 'http', queryParams: { city: 'Lisbon' }, method: 'GET' }, output: { type: 'json', example: { ok: true } } },
        schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
      },
    },
  };
  edit(item);
  return item;
};

const mapped = (raw: unknown, here: PayableHere = DEVNET) => {
  const item = readItem(raw);
  return item === null ? 'unreadable' : mapItem(item, here, FACILITATOR);
};

describe('a Bazaar item Coffer can pay becomes a registry entry', () => {
  it('with its price in USDC, its endpoint as the registry spells them, where it was found, and a stable id', () => {
    const entry = mapped(listed()) as BazaarEntry;
    expect(entry).toEqual({
      id: expect.stringMatching(/^bazaar:api\.weather\.example:[0-9a-f]{10}$/),
      name: 'Bazaar Weather',
      description: 'Current weather for a city',
      category: 'weather, forecast',
      pricing: {},
      pricePerCall: '0.02',
      endpoint: 'GET https://api.weather.example/weather?city={city}',
      source: 'x402-bazaar',
      payTo: PAY_TO,
      network: 'devnet',
      base: null,
      discovery: {
        facilitator: FACILITATOR,
        resource: 'https://api.weather.example/weather',
        lastUpdated: '2026-11-24T04:06:10.313Z',
        x402Version: 2,
      },
    });
    expect((mapped(listed()) as BazaarEntry).id).toBe(entry.id);
    // Another method on the same URL is another entry.
    const post = mapped(listed((item) => (item.extensions.bazaar.info.input.method = 'POST'))) as BazaarEntry;
    expect(post.endpoint).toBe('POST https://api.weather.example/weather?city={city}');
    expect(post.id).not.toBe(entry.id);
  });

  it('reads a v1 item (maxAmountRequired, solana-devnet), the declaration under discoveryInfo, a route template', () => {
    const v1 = mapped(
      listed((item) => {
        item.x402Version = 1;
        item.accepts = [
          {
            scheme: 'exact',
            network: 'solana-devnet',
            maxAmountRequired: '5000',
            asset: DEVNET_USDC,
            payTo: PAY_TO,
            description: 'v1 words',
          },
        ];
        delete item.description;
        delete item.extensions;
        item.discoveryInfo = { input: { type: 'http', method: 'GET' } };
        item.routeTemplate = '/weather/:country/:city';
      }),
    ) as BazaarEntry;
    expect(v1).toMatchObject({
      pricePerCall: '0.005',
      description: 'v1 words',
      endpoint: 'GET https://api.weather.example/weather/{country}/{city}',
      discovery: { x402Version: 1 },
    });
    // A v2 network name in a v1 item is no offer on this network.
    expect(mapped(listed((item) => (item.x402Version = 1)))).toBe('other_network');
  });

  it('names an item without a service name by its host and path; without a method, GET', () => {
    const bare = mapped(
      listed((item) => {
        delete item.serviceName;
        delete item.tags;
        delete item.extensions;
      }),
    ) as BazaarEntry;
    expect(bare).toMatchObject({
      name: 'api.weather.example/weather',
      endpoint: 'GET https://api.weather.example/weather',
      category: 'x402 api',
    });
  });

  it('lists the cheapest offer Coffer can pay on a rail, as its x402 payment picks it', () => {
    const entry = mapped(
      listed((item) => {
        item.accepts = [
          { scheme: 'exact', network: 'eip155:8453', amount: '1', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0xabc' },
          { scheme: 'exact', network: DEVNET_V2, amount: '30000', asset: DEVNET_USDC, payTo: PAY_TO },
          { scheme: 'exact', network: DEVNET_V2, amount: '10000', asset: DEVNET_USDC, payTo: PAY_TO },
        ];
      }),
    ) as BazaarEntry;
    expect(entry.pricePerCall).toBe('0.01');
  });
});

describe('Base listings (issue 50, point 4)', () => {
  const onBase = (edit: (offer: any) => void = () => undefined) =>
    listed((item) => {
      const offer = {
        scheme: 'exact',
        network: 'eip155:84532',
        amount: '20000',
        asset: BASE_SEPOLIA_USDC.toLowerCase(),
        payTo: BASE_PAY_TO.toLowerCase(),
        extra: { name: 'USDC', version: '2' },
      };
      edit(offer);
      item.accepts = [offer];
    });

  it('lists an offer on Base as payable where this Coffer pays x402 on Base: its Base account, checksummed', () => {
    const entry = mapped(onBase(), DEVNET_AND_BASE) as BazaarEntry;
    expect(entry).toMatchObject({
      pricePerCall: '0.02',
      payTo: BASE_PAY_TO,
      network: 'base-sepolia',
      base: { payTo: BASE_PAY_TO, network: 'base-sepolia' },
    });
  });

  it('lists an item payable on both rails at its Solana price, with its Base account beside', () => {
    const entry = mapped(
      listed((item) =>
        item.accepts.push({ scheme: 'exact', network: 'eip155:84532', amount: '20000', asset: BASE_SEPOLIA_USDC, payTo: BASE_PAY_TO }),
      ),
      DEVNET_AND_BASE,
    ) as BazaarEntry;
    expect(entry).toMatchObject({ payTo: PAY_TO, network: 'devnet', base: { payTo: BASE_PAY_TO, network: 'base-sepolia' } });
  });

  it('reads a v1 Base offer by its v1 name', () => {
    const v1 = onBase((offer) => {
      offer.network = 'base-sepolia';
      offer.maxAmountRequired = offer.amount;
      delete offer.amount;
    });
    v1.x402Version = 1;
    expect(mapped(v1, DEVNET_AND_BASE)).toMatchObject({ pricePerCall: '0.02', base: { payTo: BASE_PAY_TO } });
    // The same v1 name in a v2 item names no network here.
    expect(mapped({ ...v1, x402Version: 2 }, DEVNET_AND_BASE)).toBe('other_network');
  });

  it.each([
    ['other_network', 'Base mainnet (this Coffer is on Base Sepolia)', (offer: any) => (offer.network = 'eip155:8453')],
    ['not_usdc', 'another token on Base Sepolia', (offer: any) => (offer.asset = '0x4200000000000000000000000000000000000006')],
    ['invalid', 'a recipient that is no EVM address', (offer: any) => (offer.payTo = PAY_TO)],
    ['invalid', 'a Permit2 transfer (a purchase would refuse to sign it)', (offer: any) => (offer.extra.assetTransferMethod = 'permit2')],
    ['invalid', 'a transfer method that is no text', (offer: any) => (offer.extra.assetTransferMethod = { permit2: true })],
  ])('%s: %s', (reason, _what, edit) => {
    expect(mapped(onBase(edit), DEVNET_AND_BASE)).toBe(reason);
  });

  it('leaves out an offer whose amount is not a decimal in one spelling (a leading zero), as a purchase refuses it', () => {
    expect(
      mapped(
        onBase((offer) => (offer.amount = '020000')),
        DEVNET_AND_BASE,
      ),
    ).toBe('invalid');
    expect(
      mapped(
        onBase((offer) => (offer.amount = '0')),
        DEVNET_AND_BASE,
      ),
    ).toBe('invalid');
    expect(mapped(onBase(), DEVNET_AND_BASE)).toMatchObject({ pricePerCall: '0.02' });
  });

  it('lists an offer whose extra is null, as x402 allows (v1 offers often say so)', () => {
    expect(
      mapped(
        onBase((offer) => (offer.extra = null)),
        DEVNET_AND_BASE,
      ),
    ).toMatchObject({ pricePerCall: '0.02', base: { payTo: BASE_PAY_TO } });
  });

  it('lists an offer on Base by EIP-3009 after one by Permit2 on the same network, and the method said as EIP-3009', () => {
    const both = onBase((offer) => (offer.extra.assetTransferMethod = 'eip3009'));
    both.accepts.unshift({ ...both.accepts[0], amount: '10000', extra: { name: 'USDC', version: '2', assetTransferMethod: 'permit2' } });
    expect(mapped(both, DEVNET_AND_BASE)).toMatchObject({ pricePerCall: '0.02', base: { payTo: BASE_PAY_TO } });
  });

  it('keeps what a purchase’s signing judges (the token’s EIP-712 name and version, the time given), and leaves out an offer the buyer would refuse to sign', () => {
    const item = readItem(onBase((offer) => (offer.maxTimeoutSeconds = 60)))!;
    expect(item.accepts[0]).toMatchObject({ token: { name: 'USDC', version: '2' }, maxTimeoutSeconds: 60 });
    expect(requirementOf(item.accepts[0]!)).toEqual({
      scheme: 'exact',
      network: 'eip155:84532',
      amount: 20_000n,
      asset: BASE_SEPOLIA_USDC.toLowerCase(),
      payTo: BASE_PAY_TO.toLowerCase(),
      feePayer: null,
      maxTimeoutSeconds: 60,
      extra: { name: 'USDC', version: '2' },
    });
    // Named by numbers or not at all: no token named; a time that is no whole number: none.
    const unnamed = readItem(onBase((offer) => ((offer.extra = { name: 2, version: '2' }), (offer.maxTimeoutSeconds = '60'))))!;
    expect(unnamed.accepts[0]).toMatchObject({ token: null, maxTimeoutSeconds: null });
    expect(requirementOf(unnamed.accepts[0]!)).toMatchObject({ maxTimeoutSeconds: null, extra: {} });
    // The buyer's refusal, asked as the list was read (bazaar.ts), leaves it out.
    item.accepts[0]!.refused = 'the x402 offer names the token "USD Coin" version 2';
    expect(mapItem(item, DEVNET_AND_BASE, FACILITATOR)).toBe('invalid');
    // Kept with the stored list, so a restart does not call it payable.
    expect(mapItem(storedItemSchema.parse(JSON.parse(JSON.stringify(item))), DEVNET_AND_BASE, FACILITATOR)).toBe('invalid');
    item.accepts[0]!.refused = null;
    expect(mapItem(item, DEVNET_AND_BASE, FACILITATOR)).toMatchObject({ base: { payTo: BASE_PAY_TO } });
  });

  it('is left out where this Coffer does not pay x402 on Base', () => {
    expect(mapped(onBase(), DEVNET)).toBe('other_network');
  });
});

describe('an item Coffer cannot pay is left out, with why', () => {
  it.each([
    ['other_network', 'an offer on Base only', (item: any) => (item.accepts[0] = { ...item.accepts[0], network: 'eip155:8453' })],
    [
      'other_network',
      'an offer on Solana mainnet (this Coffer is on devnet)',
      (item: any) => (item.accepts[0].network = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'),
    ],
    ['not_usdc', 'another token on this network', (item: any) => (item.accepts[0].asset = 'So11111111111111111111111111111111111111112')],
    ['not_exact', 'a scheme Coffer does not pay', (item: any) => (item.accepts[0].scheme = 'upto')],
    ['not_http', 'an MCP tool', (item: any) => (item.type = 'mcp')],
    ['invalid', 'a recipient that is no Solana address', (item: any) => (item.accepts[0].payTo = '0x1234')],
    ['invalid', 'a price of 0', (item: any) => (item.accepts[0].amount = '0')],
    ['invalid', 'a price past what Coffer pays at all', (item: any) => (item.accepts[0].amount = '1000000000000001')],
    ['invalid', 'an exact offer without an amount', (item: any) => delete item.accepts[0].amount],
  ])('%s: %s', (reason, _what, edit) => {
    expect(mapped(listed(edit))).toBe(reason);
  });

  it('on the embedded chain nothing is payable: x402 names no sim network', () => {
    expect(mapped(listed(), SIM)).toBe('other_network');
  });
});

describe('what the facilitator says is input: every field checked, capped, cleaned', () => {
  it.each([
    ['no accepts', (item: any) => delete item.accepts],
    ['empty accepts', (item: any) => (item.accepts = [])],
    ['21 offers', (item: any) => (item.accepts = Array.from({ length: 21 }, () => item.accepts[0]))],
    ['an offer that is no object', (item: any) => (item.accepts = [42])],
    ['an amount that is no integer string', (item: any) => (item.accepts[0].amount = '0.02')],
    ['a numeric amount', (item: any) => (item.accepts[0].amount = 20000)],
    ['an unknown x402 version', (item: any) => (item.x402Version = 3)],
    ['a javascript: resource', (item: any) => (item.resource = 'javascript:alert(1)')],
    ['a resource with credentials', (item: any) => (item.resource = 'https://user:pw@api.weather.example/weather')],
    ['a relative resource', (item: any) => (item.resource = '/weather')],
    ['a resource of 3,000 characters', (item: any) => (item.resource = `https://api.weather.example/${'a'.repeat(3000)}`)],
    ['a description of 20,000 characters', (item: any) => (item.description = 'x'.repeat(20_000))],
    ['a description that is a number', (item: any) => (item.description = 7)],
    ['50+ tags', (item: any) => (item.tags = Array.from({ length: 51 }, (_, i) => `t${i}`))],
  ])('refused: %s', (_what, edit) => {
    expect(readItem(listed(edit))).toBeNull();
  });

  it.each([null, 42, 'item', [], { resource: 'https://a.example' }])('refused: %j', (raw) => {
    expect(readItem(raw)).toBeNull();
  });

  it('keeps what it reads plain: control and bidirectional characters gone, names and descriptions cut, 5 tags', () => {
    const item = readItem(
      listed((raw) => {
        raw.serviceName = 'Weather\u202Egpj.exe\u0000\u001b[31m';
        raw.description = `line one\nline two\t${'long '.repeat(200)}`;
        raw.tags = ['a', 'b\u200B', '', 'c', 'd', 'e', 'f', 'x'.repeat(100)];
      }),
    ) as DiscoveredItem;
    expect(item.serviceName).toBe('Weather gpj.exe [31m');
    expect(item.description.startsWith('line one line two long long')).toBe(true);
    expect(Array.from(item.description)).toHaveLength(500);
    expect(item.description.endsWith('…')).toBe(true);
    expect(item.tags).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('ignores what it does not read: unknown fields, a malformed declaration, a bad route template or query name', () => {
    const item = readItem(
      listed((raw) => {
        raw.somethingElse = { deep: [1, 2, 3] };
        raw.extensions.bazaar.info.input.queryParams = { city: 'x', 'bad name': 'y', '<script>': 'z' };
        raw.routeTemplate = '/../../etc/:passwd';
      }),
    ) as DiscoveredItem;
    expect(item.queryParams).toEqual(['city']);
    expect(item.routeTemplate).toBeNull();
    const noDeclaration = readItem(listed((raw) => (raw.extensions = { bazaar: 'not an object' }))) as DiscoveredItem;
    expect(noDeclaration.method).toBeNull();
    expect(readItem(listed((raw) => (raw.extensions.bazaar.info.input.method = 'TRACE')))!.method).toBeNull();
  });

  it('cleanText leaves ordinary text as it is', () => {
    expect(cleanText('  Café  menu — 3 items ', 100)).toBe('Café menu — 3 items');
    expect(cleanText('😀😀😀', 2)).toBe('😀…');
  });
});

describe('a discovery page', () => {
  it('is {items: [...], pagination}: its items unread, its total when it says one', () => {
    expect(readDiscoveryPage({ x402Version: 2, items: [1, 2], pagination: { limit: 100, offset: 0, total: 7 } })).toEqual({
      items: [1, 2],
      total: 7,
    });
    expect(readDiscoveryPage({ items: [] })).toEqual({ items: [], total: null });
    // A pagination that makes no sense is ignored, not trusted.
    expect(readDiscoveryPage({ items: [], pagination: { total: -5 } })).toEqual({ items: [], total: null });
  });

  it.each([null, 'text', 42, [], {}, { items: 'nope' }, { items: { 0: 'a' } }, { resources: [] }])(
    'refused with bazaar_bad_answer: %j',
    (json) => {
      expect(() => readDiscoveryPage(json)).toThrow(CofferError);
      try {
        readDiscoveryPage(json);
      } catch (error) {
        expect((error as CofferError).code).toBe('bazaar_bad_answer');
      }
    },
  );
});

describe('a list in the registry', () => {
  it('keeps the first entry of each id and counts what it left out, by reason', () => {
    const items = [
      listed(),
      listed(),
      listed((item) => (item.type = 'mcp')),
      listed((item) => (item.accepts[0].network = 'eip155:8453')),
      listed((item) => (item.resource = 'https://quotes.example/quote')),
    ].map((raw) => readItem(raw)!);
    const { entries, leftOut } = mapItems(items, DEVNET, FACILITATOR, { invalid: 2, overLimit: 3, duplicate: 4 });
    expect(entries.map((entry) => entry.discovery.resource)).toEqual([
      'https://api.weather.example/weather',
      'https://quotes.example/quote',
    ]);
    expect(leftOut).toEqual({ invalid: 2, not_http: 1, other_network: 1, not_usdc: 0, not_exact: 0, duplicate: 5, over_limit: 3 });
  });
});
