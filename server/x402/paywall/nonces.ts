import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { coffersNonceTerms } from '../../wire/paywall-nonce.js';

/** What a nonce promises: this route, at this price, payable from `issuedAt` until `expiresAt`. */
export interface NonceTerms {
  resource: string;
  amount: bigint;
  issuedAt: number;
  expiresAt: number;
}

export type NonceReading = { ok: true; terms: NonceTerms } | { ok: false; code: 'unknown_nonce' | 'wrong_resource' };

/**
 * Stateless nonces. Every 402 hands out a fresh nonce, and anyone may ask for a 402, so storing each
 * one would let a flood of unpaid requests fill the seller's disk. Instead a nonce carries its own
 * terms (issued, expires, price, a digest of the route, 9 random bytes) authenticated with the
 * paywall's key: nothing is written until a nonce is paid, and then once (the accepted payment).
 *
 * Format: `<issued>.<expires>.<amount>.<route>.<random>.<mac>`, about 70 printable ASCII characters,
 * which fits a payment's memo. Written here, read by wire/paywall-nonce.ts (the one reading of its
 * fields, which a payer without the key makes too).
 */
export function createNonces(key: Uint8Array) {
  const mac = (body: string) => createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url');
  const routeDigest = (resource: string) => createHash('sha256').update(resource).digest().subarray(0, 6).toString('base64url');
  const unknown: NonceReading = { ok: false, code: 'unknown_nonce' };

  return {
    issue(terms: NonceTerms): string {
      const body = [
        terms.issuedAt.toString(36),
        terms.expiresAt.toString(36),
        terms.amount.toString(),
        routeDigest(terms.resource),
        randomBytes(9).toString('base64url'),
      ].join('.');
      return `${body}.${mac(body)}`;
    },

    /** The terms of a nonce this paywall issued, checked against the route it is used on. */
    read(nonce: string, resource: string): NonceReading {
      const parts = nonce.split('.');
      if (parts.length !== 6) return unknown;
      const given = Buffer.from(parts[5]!);
      const expected = Buffer.from(mac(parts.slice(0, 5).join('.')));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return unknown;
      // Past the MAC, the fields are the paywall's own writing, read as any holder reads them.
      const terms = coffersNonceTerms(nonce);
      if (terms === null) return unknown;
      if (parts[3] !== routeDigest(resource)) return { ok: false, code: 'wrong_resource' };
      return { ok: true, terms: { resource, ...terms } };
    },
  };
}

export type Nonces = ReturnType<typeof createNonces>;
