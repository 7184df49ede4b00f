import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNonces } from '../../../../../server/x402/paywall/nonces.js';

const key = new Uint8Array(32).fill(7);
const terms = { resource: 'GET /weather', amount: 10_000n, issuedAt: 1_700_000_000_000, expiresAt: 1_700_000_300_000 };

describe('stateless nonces', () => {
  it('carry their terms, fit a memo, and are never the same twice', () => {
    const nonces = createNonces(key);
    const a = nonces.issue(terms);
    const b = nonces.issue(terms);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[\x20-\x7e]{40,120}$/);
    expect(nonces.read(a, terms.resource)).toEqual({ ok: true, terms });
  });

  it('name the route they were issued for', () => {
    const nonces = createNonces(key);
    expect(nonces.read(nonces.issue(terms), 'POST /weather')).toEqual({ ok: false, code: 'wrong_resource' });
  });

  it('are unknown to a paywall with another key', () => {
    expect(createNonces(new Uint8Array(32).fill(8)).read(createNonces(key).issue(terms), terms.resource)).toEqual({
      ok: false,
      code: 'unknown_nonce',
    });
  });

  it('property: any change to a nonce makes it unknown (or, for the route digest alone, another route)', () => {
    const nonces = createNonces(key);
    const nonce = nonces.issue(terms);
    fc.assert(
      fc.property(
        fc.nat({ max: nonce.length - 1 }),
        fc.string({ minLength: 0, maxLength: 3 }),
        fc.nat({ max: 3 }),
        (at, insert, removed) => {
          const tampered = nonce.slice(0, at) + insert + nonce.slice(at + removed);
          fc.pre(tampered !== nonce);
          expect(nonces.read(tampered, terms.resource).ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
    for (const text of ['', '.....', 'a.b.c.d.e.f', nonce + '.x'])
      expect(nonces.read(text, terms.resource)).toEqual({ ok: false, code: 'unknown_nonce' });
  });
});
