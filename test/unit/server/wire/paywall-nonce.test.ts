import { describe, expect, it } from 'vitest';
import { coffersNonceRoute, coffersNonceTerms, isNonceShaped } from '../../../../server/wire/paywall-nonce.js';
import { createNonces } from '../../../../server/x402/paywall/nonces.js';

describe("a paywall's nonce read without its key", () => {
  it('says the end the paywall issued it with, as the paywall itself reads it', () => {
    const nonces = createNonces(new Uint8Array(32).fill(1));
    const terms = {
      resource: 'GET /weather',
      amount: 10_000n,
      issuedAt: Date.UTC(2026, 10, 28, 12),
      expiresAt: Date.UTC(2026, 10, 28, 12, 5),
    };
    const nonce = nonces.issue(terms);
    expect(isNonceShaped(nonce)).toBe(true);
    expect(coffersNonceTerms(nonce)).toEqual({ issuedAt: terms.issuedAt, expiresAt: terms.expiresAt, amount: terms.amount });
    expect(nonces.read(nonce, terms.resource)).toEqual({ ok: true, terms });
  });

  it('names the route it was issued for: the same for two nonces of one route, another for another', () => {
    const nonces = createNonces(new Uint8Array(32).fill(1));
    const at = { amount: 10_000n, issuedAt: 1_000_000, expiresAt: 2_000_000 };
    const weather = nonces.issue({ ...at, resource: 'GET /weather' });
    expect(coffersNonceRoute(weather)).toMatch(/^[\w-]{8}$/);
    expect(coffersNonceRoute(nonces.issue({ ...at, resource: 'GET /weather' }))).toBe(coffersNonceRoute(weather));
    expect(coffersNonceRoute(nonces.issue({ ...at, resource: 'GET /quote' }))).not.toBe(coffersNonceRoute(weather));
    expect(coffersNonceRoute('2026.11.28.1301.ab12.ff')).toBeNull();
  });

  it("says nothing of a memo of another shape, another seller's six fields included", () => {
    const memos = ['pay_123', 'a.b.c', 'a.B!.c.d.e.f', 'a..c.d.e.f', '', '2026.11.28.1301.ab12.ff', 'v1.abc.def.ghi.jkl.mno'];
    for (const memo of memos) expect(coffersNonceTerms(memo)).toBeNull();
    // Shaped as Coffer's but ending before it was issued: none either.
    const nonces = createNonces(new Uint8Array(32).fill(1));
    const backwards = nonces.issue({ resource: 'GET /weather', amount: 1n, issuedAt: 2_000_000, expiresAt: 1_000_000 });
    expect(coffersNonceTerms(backwards)).toBeNull();
  });
});
