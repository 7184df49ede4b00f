import { describe, expect, it } from 'vitest';
import { listedServices, urlBreaks } from '../../../../../renderer/src/lib/registry.js';
import type { SearchResult, Service } from '../../../../../renderer/src/api/types.js';

const service = (id: string, source: string) => ({ id, source }) as Service;

describe('the registry page', () => {
  it('lists every service but the image models (they have their own table), in the order found', () => {
    const result = {
      results: [service('demo-weather', 'x402-marketplace'), service('model:sdxl', 'model-registry'), service('bazaar:a', 'x402-bazaar')],
    } as SearchResult;
    expect(listedServices(result).map((s) => s.id)).toEqual(['demo-weather', 'bazaar:a']);
  });

  it('breaks an endpoint after its separators only, losing nothing', () => {
    const url = 'GET http://127.0.0.1:7403/weather?city={city}&days=3';
    expect(urlBreaks(url)).toEqual(['GET http:/', '/', '127.0.0.1:7403/', 'weather?', 'city={city}&', 'days=3']);
    expect(urlBreaks(url).join('')).toBe(url);
    expect(urlBreaks('plain')).toEqual(['plain']);
  });
});
