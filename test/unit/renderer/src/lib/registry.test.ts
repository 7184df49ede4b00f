import { describe, expect, it } from 'vitest';
import { urlBreaks } from '../../../../../renderer/src/lib/registry.js';

describe('the registry page', () => {
  it('breaks an endpoint after its separators only, losing nothing', () => {
    const url = 'GET http://127.0.0.1:7403/weather?city={city}&days=3';
    expect(urlBreaks(url)).toEqual(['GET http:/', '/', '127.0.0.1:7403/', 'weather?', 'city={city}&', 'days=3']);
    expect(urlBreaks(url).join('')).toBe(url);
    expect(urlBreaks('plain')).toEqual(['plain']);
  });
});
