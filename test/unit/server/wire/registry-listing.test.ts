import { describe, expect, it } from 'vitest';
import { listedServices, railsOf } from '../../../../server/wire/registry-listing.js';
import type { SearchResult, Service } from '../../../../server/wire/answers/registry.js';

const service = (id: string, source: string) => ({ id, source }) as Service;

describe("the registry's listing", () => {
  it('lists every service but the image models (they have their own list), in the order found', () => {
    const result = {
      results: [service('demo-weather', 'x402-marketplace'), service('model:sdxl', 'model-registry'), service('bazaar:a', 'x402-bazaar')],
    } as SearchResult;
    expect(listedServices(result).map((s) => s.id)).toEqual(['demo-weather', 'bazaar:a']);
  });

  it('says the rails a service is paid on: Solana, both, or Base alone (a Bazaar listing payable there only)', () => {
    const base = { payTo: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', network: 'sim' };
    const solana = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
    expect(railsOf({ payTo: solana, base: null })).toEqual(['sol']);
    // On sim both rails' networks are "sim": the recipient tells them apart.
    expect(railsOf({ payTo: solana, base })).toEqual(['sol', 'base']);
    expect(railsOf({ payTo: base.payTo, base })).toEqual(['base']);
  });
});
