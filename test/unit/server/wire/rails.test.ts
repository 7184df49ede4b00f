import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getBase58Decoder, isAddress } from '@solana/kit';
import { isSolanaAddress, railFirst } from '../../../../server/wire/rails.js';

describe('railFirst', () => {
  const entries = [
    { rail: 'sol' as const, id: 1 },
    { rail: 'base' as const, id: 2 },
    { rail: 'sol' as const, id: 3 },
    { rail: 'base' as const, id: 4 },
  ];

  it('puts the entries on the rail named first, each group in its own order', () => {
    expect(railFirst(entries, 'base').map(({ id }) => id)).toEqual([2, 4, 1, 3]);
    expect(railFirst(entries, 'sol').map(({ id }) => id)).toEqual([1, 3, 2, 4]);
  });

  it('keeps the order where no rail is named, and leaves the list it was given as it was', () => {
    expect(railFirst(entries, null).map(({ id }) => id)).toEqual([1, 2, 3, 4]);
    railFirst(entries, 'base');
    expect(entries.map(({ id }) => id)).toEqual([1, 2, 3, 4]);
  });
});

describe('isSolanaAddress', () => {
  it("answers as kit's isAddress for any base58-looking text, and for every 32-byte key", () => {
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+/';
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 0, maxLength: 50 }), (chars) => {
        const text = chars.join('');
        expect(isSolanaAddress(text)).toBe(isAddress(text));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        expect(isSolanaAddress(getBase58Decoder().decode(bytes))).toBe(true);
      }),
    );
    expect(isSolanaAddress('1111111111111111111111111111111')).toBe(false);
    expect(isSolanaAddress('11111111111111111111111111111111')).toBe(true);
  });
});
