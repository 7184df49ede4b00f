import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConnection } from '../../../../../server/store/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { openPaywallStore } from '../../../../../server/x402/paywall/paywall-store.js';

const DAY = 24 * 60 * 60 * 1000;
const accepted = (txSignature: string, nonce: string, acceptedAt = 1, nonceExpiresAt = 300_000) => ({
  txSignature,
  nonce,
  payer: 'p',
  amount: 10_000n,
  acceptedAt,
  nonceExpiresAt,
});

describe('paywall store', () => {
  it('accepts a signature once and a nonce once', () => {
    const store = openPaywallStore(':memory:');
    expect(store.accept(accepted('sig1', 'n1'))).toBe(true);
    expect(store.accept(accepted('sig2', 'n1'))).toBe(false);
    // The same signature for another nonce is refused, and that nonce stays unused.
    expect(store.accept(accepted('sig1', 'n2'))).toBe(false);
    expect(store.isNonceUsed('n1')).toBe(true);
    expect(store.isNonceUsed('n2')).toBe(false);
    expect(store.isAccepted('sig1')).toBe(true);
    expect(store.isAccepted('sig2')).toBe(false);
    store.close();
  });

  it('accepts each x402 authorization one EVM transaction ran once; a receipt naming that transaction buys nothing', () => {
    const store = openPaywallStore(':memory:');
    const ran = (authorization: string, nonce: string) => ({ ...accepted('0xbatch', nonce), authorization });
    expect(store.accept(ran('0xa1', 'n1'))).toBe(true);
    expect(store.accept(ran('0xa2', 'n2'))).toBe(true);
    // The same authorization again, under another nonce: refused, and that nonce stays unused.
    expect(store.accept(ran('0xa1', 'n3'))).toBe(false);
    expect(store.isNonceUsed('n3')).toBe(false);
    // A receipt naming the transaction (no authorization): refused, whatever its nonce.
    expect(store.isAccepted('0xbatch')).toBe(true);
    expect(store.accept(accepted('0xbatch', 'n4'))).toBe(false);
    // And a transaction a receipt paid with takes no x402 authorization after it.
    expect(store.accept(accepted('0xreceipt', 'n5'))).toBe(true);
    expect(store.accept({ ...accepted('0xreceipt', 'n6'), authorization: '0xa3' })).toBe(false);
    store.close();
  });

  it('tells an EIP-3009 authorization accepted by its payer and nonce, the payer in either case', () => {
    const store = openPaywallStore(':memory:');
    const payer = '0xAbCd000000000000000000000000000000000001';
    const nonce = `0x${'ab'.repeat(32)}`;
    expect(store.accept({ ...accepted('0xtx1', 'n1'), payer, authorization: nonce })).toBe(true);
    expect(store.isAuthorizationAccepted(payer.toLowerCase(), nonce.toUpperCase().replace('0X', '0x'))).toBe(true);
    // Another payer's authorization with the same nonce is another authorization.
    expect(store.isAuthorizationAccepted('0xAbCd000000000000000000000000000000000002', nonce)).toBe(false);
    // A payment accepted by its transaction alone names no authorization.
    expect(store.accept({ ...accepted('0xtx2', 'n2'), payer })).toBe(true);
    expect(store.isAuthorizationAccepted(payer, '')).toBe(false);
    store.close();
  });

  it('prunes accepted payments a day past their nonce expiry, and keeps the rest', () => {
    const store = openPaywallStore(':memory:');
    const now = 10 * DAY;
    store.accept(accepted('old-sig', 'old', now - 2 * DAY, now - DAY - 1));
    store.accept(accepted('recent-sig', 'recent', now - 1000, now + 300_000));
    store.prune(now);
    expect(store.isAccepted('old-sig')).toBe(false);
    expect(store.isNonceUsed('old')).toBe(false);
    expect(store.isAccepted('recent-sig')).toBe(true);
    store.close();
  });

  it('keeps its nonce key across a reopen, at 0600, and upgrades a file written with stored nonces', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-paywall-'));
    try {
      const file = join(dir, 'paywall.db');
      // A store from before: stored nonces, accepted payments without an expiry.
      const old = openConnection(file);
      old.exec(`CREATE TABLE nonces (nonce TEXT PRIMARY KEY, resource TEXT NOT NULL, amount INTEGER NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER) STRICT;
        CREATE TABLE accepted_payments (tx_signature TEXT PRIMARY KEY, nonce TEXT NOT NULL UNIQUE, payer TEXT NOT NULL, amount INTEGER NOT NULL, accepted_at INTEGER NOT NULL) STRICT;
        INSERT INTO accepted_payments VALUES ('before-sig', 'before-nonce', 'p', 1, ${5 * DAY});
        INSERT INTO nonces VALUES ('old-unpaid', 'GET /a', 10000, ${5 * DAY}, ${5 * DAY + 300_000}, NULL);`);
      old.close();

      const first = openPaywallStore(file);
      const key = Buffer.from(first.nonceKey).toString('hex');
      expect(first.nonceKey).toHaveLength(32);
      expect(first.isAccepted('before-sig')).toBe(true);
      // A nonce the old store handed out is still payable until it expires.
      expect(first.storedNonce('old-unpaid')).toEqual({
        resource: 'GET /a',
        amount: 10_000n,
        issuedAt: 5 * DAY,
        expiresAt: 5 * DAY + 300_000,
      });
      expect(first.storedNonce('never-issued')).toBeNull();
      first.prune(6 * DAY);
      expect(first.storedNonce('old-unpaid')).not.toBeNull(); // kept a day past its expiry
      expect(first.isAccepted('before-sig')).toBe(true); // kept two days from its acceptance
      first.prune(7 * DAY + 1);
      expect(first.isAccepted('before-sig')).toBe(false);
      expect(first.storedNonce('old-unpaid')).toBeNull();
      first.close();

      const second = openPaywallStore(file);
      expect(Buffer.from(second.nonceKey).toString('hex')).toBe(key);
      expect(second.storedNonce('old-unpaid')).toBeNull();
      second.close();
      const tables = openConnection(file, { readonly: true });
      expect(tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'nonces'").get()).toBeUndefined();
      tables.close();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(openPaywallStore(':memory:').nonceKey).not.toEqual(second.nonceKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
