import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatUsdc } from '../../../../server/wire/money.js';
import { RECEIPT_PREFIX, decodeReceipt, encodeReceipt, type Receipt } from '../../../../server/wire/receipts.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const base58 = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...BASE58), minLength, maxLength });

const receiptArb: fc.Arbitrary<Receipt> = fc.record({
  v: fc.constant(1 as const),
  network: fc.constantFrom('sim', 'devnet', 'mainnet', 'localnet'),
  txSignature: base58(64, 88),
  amount: fc.oneof(
    fc.constantFrom('0.01', '5.00', '0.125', '0.000001', '1000000000.00'),
    fc.bigInt({ min: 1n, max: 10n ** 15n }).map(formatUsdc),
  ),
  currency: fc.constant('USDC' as const),
  timestamp: fc
    .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  recipient: base58(32, 44),
  payer: base58(32, 44),
  paymentId: fc.string({ minLength: 1, maxLength: 40 }),
  memo: fc.string({ unit: 'grapheme', maxLength: 60 }),
  proof: base58(64, 88),
});

const sample: Receipt = {
  v: 1,
  network: 'sim',
  txSignature: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
  amount: '0.01',
  currency: 'USDC',
  timestamp: '2025-06-01T12:00:00.000Z',
  recipient: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
  payer: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  paymentId: 'pay_01HZX',
  memo: 'nonce-123',
  proof: '3yZe7d1AVHyVfUtgD5nyuDyBeeXv8bUdfmbHyVWqYkw3KXUJV2u4dvVuqUAH2xmn5jz9HAbD5SYKJNvXtmWUr5Wm',
};

/** Builds a header the way the contract describes it, without going through encodeReceipt. */
const header = (value: unknown) => 'v1.' + Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

const body = (encoded: string) => encoded.slice(RECEIPT_PREFIX.length);

describe('encodeReceipt', () => {
  it('is "v1." + base64(JSON) of the receipt', () => {
    const encoded = encodeReceipt(sample);
    expect(RECEIPT_PREFIX).toBe('v1.');
    expect(encoded.startsWith('v1.')).toBe(true);
    expect(body(encoded)).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(JSON.parse(Buffer.from(body(encoded), 'base64').toString('utf8'))).toEqual(sample);
  });
});

describe('decodeReceipt', () => {
  it('decodes a header built by hand per the contract', () => {
    expect(decodeReceipt(header(sample))).toEqual(sample);
  });

  it('round-trips every valid receipt', () => {
    fc.assert(
      fc.property(receiptArb, (receipt) => {
        expect(decodeReceipt(encodeReceipt(receipt))).toEqual(receipt);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts the boundary lengths of signatures and addresses', () => {
    for (const txSignature of ['1'.repeat(64), 'z'.repeat(88)]) {
      expect(decodeReceipt(header({ ...sample, txSignature }))).toEqual({ ...sample, txSignature });
    }
    for (const address of ['1'.repeat(32), 'z'.repeat(44)]) {
      expect(decodeReceipt(header({ ...sample, recipient: address, payer: address }))).toEqual({
        ...sample,
        recipient: address,
        payer: address,
      });
    }
  });

  describe('returns null for tampered input', () => {
    const encodedBody = body(encodeReceipt(sample));

    it.each([
      ['v2. prefix', 'v2.' + encodedBody],
      ['V1. prefix', 'V1.' + encodedBody],
      ['no dot', 'v1' + encodedBody],
      ['no prefix', encodedBody],
      ['leading space', ' v1.' + encodedBody],
      ['Bearer-like prefix', 'x402 v1.' + encodedBody],
      ['empty string', ''],
      ['prefix only', 'v1.'],
    ])('wrong prefix: %s', (_label, input) => {
      expect(decodeReceipt(input)).toBeNull();
    });

    it.each([
      ['non-base64 characters', 'v1.!!!!'],
      ['a space inside', 'v1.' + encodedBody.slice(0, 8) + ' ' + encodedBody.slice(8)],
      ['a trailing newline', 'v1.' + encodedBody + '\n'],
      ['padding in the middle', 'v1.' + encodedBody.slice(0, 8) + '==' + encodedBody.slice(8)],
      ['too much padding', 'v1.' + encodedBody.replace(/=*$/, '') + '==='],
      ['only padding', 'v1.===='],
      ['not JSON', 'v1.' + Buffer.from('not json at all').toString('base64')],
      ['truncated JSON', 'v1.' + Buffer.from(JSON.stringify(sample).slice(0, -1)).toString('base64')],
    ])('bad base64 or JSON: %s', (_label, input) => {
      expect(decodeReceipt(input)).toBeNull();
    });

    // One receipt, one header string: any other spelling of the same JSON is refused, so a holder can
    // neither mint look-alike headers nor hide a second value (duplicate keys: JSON.parse keeps the last).
    const json = JSON.stringify(sample);
    const encode = (text: string) => 'v1.' + Buffer.from(text, 'utf8').toString('base64');
    it.each([
      ['pretty-printed', JSON.stringify(sample, null, 1)],
      ['a space after each colon', json.replace(/":/g, '": ')],
      ['keys in another order', JSON.stringify(Object.fromEntries(Object.entries(sample).reverse()))],
      ['a \\u escape in a value', json.replace('"sim"', '"\\u0073im"')],
      ['v written 1.0', json.replace('"v":1', '"v":1.0')],
      ['a duplicate amount key', json.replace('"amount":"0.01"', '"amount":"5.00","amount":"0.01"')],
      ['a duplicate payer key', json.replace('"payer":', `"payer":"${sample.recipient}","payer":`)],
    ])('another spelling of the same JSON: %s', (_label, text) => {
      expect(JSON.parse(text)).toEqual(sample);
      expect(decodeReceipt(encode(text))).toBeNull();
      expect(decodeReceipt(encode(json))).toEqual(sample);
    });

    it.each([
      ['null', null],
      ['a number', 1],
      ['a string', 'receipt'],
      ['an array', [sample]],
      ['an empty object', {}],
    ])('JSON that is not a receipt object: %s', (_label, value) => {
      expect(decodeReceipt(header(value))).toBeNull();
    });

    it.each(Object.keys(sample))('JSON missing %s', (field) => {
      const partial: Record<string, unknown> = { ...sample };
      delete partial[field];
      expect(decodeReceipt(header(partial))).toBeNull();
    });

    it.each([
      ['an unknown field', { extra: 'x' }],
      ['a second version field', { version: 1 }],
      ['a signature field under another name', { signature: sample.txSignature }],
    ])('JSON with extra fields: %s', (_label, extra) => {
      expect(decodeReceipt(header({ ...sample, ...extra }))).toBeNull();
    });

    it.each([
      ['v as a string', { v: '1' }],
      ['v: 2', { v: 2 }],
      ['v: 0', { v: 0 }],
      ['amount as a number', { amount: 0.01 }],
      ['amount without fractional digits', { amount: '1' }],
      ['amount with 7 fractional digits', { amount: '0.0000001' }],
      ['amount negative', { amount: '-0.01' }],
      ['amount with exponent', { amount: '1e3' }],
      ['currency USDT', { currency: 'USDT' }],
      ['currency ETH', { currency: 'ETH' }],
      ['currency lowercase usdc', { currency: 'usdc' }],
      ['currency missing-value null', { currency: null }],
      ['timestamp as epoch number', { timestamp: 1_717_243_200_000 }],
      ['timestamp not ISO', { timestamp: 'yesterday' }],
      ['network empty', { network: '' }],
      ['network as a number', { network: 1 }],
      ['txSignature too short (63)', { txSignature: '1'.repeat(63) }],
      ['txSignature with a non-base58 0', { txSignature: '0' + sample.txSignature.slice(1) }],
      ['txSignature with a non-base58 l', { txSignature: 'l' + sample.txSignature.slice(1) }],
      ['recipient too short (31)', { recipient: '1'.repeat(31) }],
      ['recipient too long (45)', { recipient: '1'.repeat(45) }],
      ['recipient with a non-base58 O', { recipient: 'O' + sample.recipient.slice(1) }],
      ['payer with a non-base58 I', { payer: 'I' + sample.payer.slice(1) }],
      ['payer as a number', { payer: 12345 }],
      ['paymentId empty', { paymentId: '' }],
      ['paymentId as a number', { paymentId: 7 }],
      ['memo null', { memo: null }],
      ['memo as an object', { memo: { nonce: 'x' } }],
    ])('JSON with a wrong value: %s', (_label, change) => {
      expect(decodeReceipt(header({ ...sample, ...change }))).toBeNull();
    });

    it('oversized input', () => {
      const huge = header({ ...sample, memo: 'm'.repeat(10_000) });
      expect(huge.length).toBeGreaterThan(10_000);
      expect(decodeReceipt(huge)).toBeNull();
      expect(decodeReceipt('v1.' + 'A'.repeat(1_000_000))).toBeNull();
    });
  });

  describe('single-character tampering is never silently accepted as the same receipt', () => {
    /** Replaces body[index] by `replacement` and decodes. */
    const alter = (encoded: string, index: number, replacement: string) => {
      const b = body(encoded);
      return decodeReceipt(RECEIPT_PREFIX + b.slice(0, index) + replacement + b.slice(index + 1));
    };

    it('at a random position, with a random replacement', () => {
      fc.assert(
        fc.property(receiptArb, fc.nat(), fc.constantFrom(...BASE64, '='), (receipt, position, replacement) => {
          const encoded = encodeReceipt(receipt);
          const index = position % body(encoded).length;
          fc.pre(body(encoded)[index] !== replacement);
          const decoded = alter(encoded, index, replacement);
          expect(decoded === null || JSON.stringify(decoded) !== JSON.stringify(receipt)).toBe(true);
        }),
        { numRuns: 1000 },
      );
    });

    it('exhaustively in the last base64 quantum (padding and unused bits)', () => {
      fc.assert(
        fc.property(receiptArb, (receipt) => {
          const encoded = encodeReceipt(receipt);
          const b = body(encoded);
          for (let index = b.length - 4; index < b.length; index += 1) {
            for (const replacement of BASE64 + '=') {
              if (replacement === b[index]) continue;
              const decoded = alter(encoded, index, replacement);
              expect(
                decoded === null || JSON.stringify(decoded) !== JSON.stringify(receipt),
                `body[${index}] ${b[index]} -> ${replacement} decodes to the original receipt`,
              ).toBe(true);
            }
          }
        }),
        { numRuns: 50 },
      );
    });

    it('a fixed receipt whose encoding ends in "==": changing the last data character', () => {
      // JSON of 3k+1 bytes: the last base64 quantum is "Xy==", whose second character carries 4 unused bits.
      const receipt = [1, 2, 3]
        .map((n) => ({ ...sample, memo: 'm'.repeat(n) }))
        .find((r) => Buffer.byteLength(JSON.stringify(r)) % 3 === 1)!;
      const encoded = encodeReceipt(receipt);
      const b = body(encoded);
      expect(b.endsWith('==')).toBe(true);
      const index = b.length - 3;
      const replacement = BASE64[BASE64.indexOf(b[index]!) ^ 0b0001]!; // flip only an unused low bit
      expect(alter(encoded, index, replacement)).not.toEqual(receipt);
    });
  });
});
