import { describe, expect, it } from 'vitest';
import { openPaywallStore } from '../../server/x402/paywall-store.js';

const DAY = 24 * 60 * 60 * 1000;

describe('paywall store', () => {
  it('uses a nonce once and accepts a signature once, atomically', () => {
    const store = openPaywallStore(':memory:');
    store.issueNonce({ nonce: 'n1', resource: 'GET /a', amount: 10_000n, issuedAt: 0, expiresAt: 300_000, usedAt: null });
    store.issueNonce({ nonce: 'n2', resource: 'GET /a', amount: 10_000n, issuedAt: 0, expiresAt: 300_000, usedAt: null });
    expect(store.accept({ txSignature: 'sig1', nonce: 'n1', payer: 'p', amount: 10_000n, acceptedAt: 1 })).toBe(true);
    expect(store.accept({ txSignature: 'sig2', nonce: 'n1', payer: 'p', amount: 10_000n, acceptedAt: 2 })).toBe(false);
    // The same signature for another nonce is refused, and that nonce stays usable.
    expect(store.accept({ txSignature: 'sig1', nonce: 'n2', payer: 'p', amount: 10_000n, acceptedAt: 3 })).toBe(false);
    expect(store.getNonce('n2')?.usedAt).toBeNull();
    expect(store.isAccepted('sig1')).toBe(true);
    expect(store.isAccepted('sig2')).toBe(false);
    store.close();
  });

  it('prunes nonces and accepted payments a day past expiry, and keeps the rest', () => {
    const store = openPaywallStore(':memory:');
    const now = 10 * DAY;
    store.issueNonce({ nonce: 'old', resource: 'GET /a', amount: 1n, issuedAt: 0, expiresAt: now - DAY - 1, usedAt: null });
    store.issueNonce({ nonce: 'old-used', resource: 'GET /a', amount: 1n, issuedAt: 0, expiresAt: now - DAY - 1, usedAt: null });
    store.issueNonce({ nonce: 'recent', resource: 'GET /a', amount: 1n, issuedAt: now - 1000, expiresAt: now + 300_000, usedAt: null });
    store.accept({ txSignature: 'old-sig', nonce: 'old-used', payer: 'p', amount: 1n, acceptedAt: now - 2 * DAY });
    store.prune(now);
    expect(store.getNonce('old')).toBeNull();
    expect(store.getNonce('old-used')).toBeNull();
    expect(store.isAccepted('old-sig')).toBe(false);
    expect(store.getNonce('recent')).not.toBeNull();
    store.close();
  });
});
