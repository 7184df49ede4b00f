import { describe, expect, it } from 'vitest';
import { isNonceShaped, nonceStatedEnd } from '../../../../server/wire/paywall-nonce.js';
import { createNonces } from '../../../../server/x402/nonces.js';

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
    expect(nonceStatedEnd(nonce)).toBe(terms.expiresAt);
    expect(nonces.read(nonce, terms.resource)).toEqual({ ok: true, terms });
  });

  it('says nothing of a memo of another shape', () => {
    for (const memo of ['pay_123', 'a.b.c', 'a.B!.c.d.e.f', 'a..c.d.e.f', '']) expect(nonceStatedEnd(memo)).toBeNull();
  });
});
