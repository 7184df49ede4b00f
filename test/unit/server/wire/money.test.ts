import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CofferError } from '../../../../server/wire/errors.js';
import { MAX_AMOUNT_MICRO, MICRO_PER_USDC, USDC_DECIMALS, formatUsdc, parseAmount, tryParseUsdc } from '../../../../server/wire/money.js';

/** API.md: "at most 1,000,000,000" USDC, kept as integer micro-USDC (6 decimals). */
const ONE_BILLION_USDC_MICRO = 1_000_000_000n * 1_000_000n;

function expectInvalidAmount(value: unknown, field?: string): CofferError {
  let caught: unknown;
  try {
    if (field === undefined) parseAmount(value);
    else parseAmount(value, field);
  } catch (error) {
    caught = error;
  }
  expect(caught, `parseAmount(${String(value)}) should throw`).toBeInstanceOf(CofferError);
  const error = caught as CofferError;
  expect(error.code).toBe('invalid_amount');
  return error;
}

describe('money constants', () => {
  it('match the contract: 6 decimals, 1e9 USDC maximum', () => {
    expect(USDC_DECIMALS).toBe(6);
    expect(MICRO_PER_USDC).toBe(1_000_000n);
    expect(MAX_AMOUNT_MICRO).toBe(ONE_BILLION_USDC_MICRO);
  });
});

describe('tryParseUsdc', () => {
  it.each([
    ['5', 5_000_000n],
    ['5.00', 5_000_000n],
    ['0.125', 125_000n],
    ['0.000001', 1n],
    ['0.1', 100_000n],
    ['12.345678', 12_345_678n],
    ['1000000000', ONE_BILLION_USDC_MICRO],
    ['0', 0n],
    ['0.0', 0n],
    // As people write it: no zero before the point.
    ['.5', 500_000n],
    ['.01', 10_000n],
  ])('parses %j as %s micro-USDC', (text, micro) => {
    expect(tryParseUsdc(text)).toBe(micro);
  });

  it('does not apply the > 0 / <= 1e9 bounds itself (only the syntax)', () => {
    expect(tryParseUsdc('0')).toBe(0n);
    expect(tryParseUsdc('1000000000.000001')).toBe(ONE_BILLION_USDC_MICRO + 1n);
  });

  it.each([
    '',
    ' ',
    ' 5',
    '5 ',
    '-1',
    '+1',
    '1e3',
    '1E3',
    '1,000',
    '1 000',
    '1.',
    '.',
    '.1234567',
    '1.2.3',
    '0.0000001',
    '1.1234567',
    '0x10',
    'NaN',
    'Infinity',
    'abc',
    '５', // full-width digit
    '٣', // Arabic-Indic digit
    '1_000',
  ])('returns null for %j', (text) => {
    expect(tryParseUsdc(text)).toBeNull();
  });

  it('never goes through a float: 0.1 + 0.2 style values are exact', () => {
    expect(tryParseUsdc('0.3')).toBe(300_000n);
    expect(tryParseUsdc('999999999.999999')).toBe(999_999_999_999_999n);
    // 2^53 + 1 micro would lose precision as a double; as a string it must not.
    expect(tryParseUsdc('9007199254.740993')).toBe(9_007_199_254_740_993n);
  });
});

describe('parseAmount', () => {
  it.each([
    ['5', 5_000_000n],
    ['5.00', 5_000_000n],
    ['0.125', 125_000n],
    ['0.000001', 1n],
    ['0.01', 10_000n],
    ['1000000000', ONE_BILLION_USDC_MICRO],
    ['1000000000.000000', ONE_BILLION_USDC_MICRO],
    ['999999999.999999', ONE_BILLION_USDC_MICRO - 1n],
  ])('accepts %j', (text, micro) => {
    expect(parseAmount(text)).toBe(micro);
  });

  it('accepts a leading zero in the whole part ("01.5" is the decimal 1.5)', () => {
    // The contract only asks for a decimal string with at most 6 fractional digits; the parser reads
    // digits, so a leading zero is harmless and means the same amount.
    expect(parseAmount('01.5')).toBe(1_500_000n);
    expect(parseAmount('00.01')).toBe(10_000n);
  });

  it.each([
    ['0', 'not > 0'],
    ['0.0', 'not > 0'],
    ['0.000000', 'not > 0'],
    ['0.0000001', 'more than 6 decimals'],
    ['1.1234567', 'more than 6 decimals'],
    ['1000000000.000001', 'over 1e9 USDC'],
    ['1000000001', 'over 1e9 USDC'],
    ['9999999999', 'over 1e9 USDC'],
    ['99999999999', 'over 1e9 USDC (11 digits)'],
    ['1e3', 'exponent'],
    ['-1', 'negative'],
    ['-0.01', 'negative'],
    [' ', 'blank'],
    ['', 'empty'],
    ['1,000', 'thousands separator'],
    ['abc', 'not a number'],
    ['.', 'a point alone'],
    ['5.', 'dangling point'],
    ['Infinity', 'not a decimal'],
  ])('rejects %j (%s) with invalid_amount', (text) => {
    expectInvalidAmount(text);
  });

  it.each([
    [5, 'number'],
    [0.01, 'number'],
    [5n, 'bigint'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{}, 'object'],
    [['5'], 'array'],
    [true, 'boolean'],
  ])('rejects a non-string %s (%s) with invalid_amount', (value, _kind) => {
    expectInvalidAmount(value);
  });

  it('names the field in the message', () => {
    const error = expectInvalidAmount('nope', 'dailyBudget');
    expect(error.message).toContain('dailyBudget');
    expect(expectInvalidAmount('nope').message).toContain('amount');
  });
});

describe('formatUsdc', () => {
  it.each([
    [5_000_000n, '5.00'],
    [125_000n, '0.125'],
    [1n, '0.000001'],
    [0n, '0.00'],
    [100_000n, '0.10'],
    [10_000n, '0.01'],
    [1_500_000n, '1.50'],
    [1_230_000n, '1.23'],
    [1_234_500n, '1.2345'],
    [12_345_678n, '12.345678'],
    [10n, '0.00001'],
    [ONE_BILLION_USDC_MICRO, '1000000000.00'],
    [ONE_BILLION_USDC_MICRO - 1n, '999999999.999999'],
    // Beyond the accepted range the formatter still does exact integer arithmetic.
    [123_456_789_012_345_678_901_234_567_890n, '123456789012345678901234.56789'],
    [9_007_199_254_740_993n, '9007199254.740993'],
  ])('formats %s micro-USDC as %j', (micro, text) => {
    expect(formatUsdc(micro)).toBe(text);
  });

  it.each([
    [-5_000_000n, '-5.00'],
    [-1n, '-0.000001'],
    [-125_000n, '-0.125'],
    [-1_234_500n, '-1.2345'],
  ])('formats negative %s as %j', (micro, text) => {
    expect(formatUsdc(micro)).toBe(text);
  });

  it('always has at least 2 and at most 6 fractional digits, no trailing zero past the second', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), (micro) => {
        const text = formatUsdc(micro);
        const match = /^(-?)(\d+)\.(\d{2,6})$/.exec(text);
        expect(match, text).not.toBeNull();
        const fraction = match![3]!;
        if (fraction.length > 2) expect(fraction.endsWith('0'), text).toBe(false);
        expect(match![2]!.length === 1 || !match![2]!.startsWith('0'), text).toBe(true);
        expect(match![1] === '-', text).toBe(micro < 0n);
      }),
    );
  });

  it('whole amounts end in ".00"', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), (whole) => {
        expect(formatUsdc(whole * MICRO_PER_USDC)).toBe(`${whole}.00`);
      }),
    );
  });
});

describe('parseAmount ∘ formatUsdc', () => {
  it('round-trips every micro amount in [1, 1e15]', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), (micro) => {
        expect(parseAmount(formatUsdc(micro))).toBe(micro);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips the edges of the range', () => {
    for (const micro of [1n, 9n, 10n, 99n, 100n, 999_999n, 1_000_000n, 1_000_001n, 10n ** 15n - 1n, 10n ** 15n]) {
      expect(parseAmount(formatUsdc(micro))).toBe(micro);
    }
  });

  it('rejects the formatted form of anything outside (0, 1e9 USDC]', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: -(10n ** 15n), max: 0n }), fc.bigInt({ min: 10n ** 15n + 1n, max: 10n ** 18n })), (micro) => {
        expectInvalidAmount(formatUsdc(micro));
      }),
    );
  });

  it('tryParseUsdc(formatUsdc(x)) === x for every non-negative amount with at most 10 whole digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 16n - 1n }), (micro) => {
        expect(tryParseUsdc(formatUsdc(micro))).toBe(micro);
      }),
    );
  });
});

describe('groupThousands (screens only; the wire keeps plain decimals)', () => {
  it('groups the whole part and leaves the fraction alone', async () => {
    const { groupThousands } = await import('../../../../server/wire/money.js');
    expect(['0.01', '999.99', '1000.00', '1234567.000001', '1000000000', '12'].map(groupThousands)).toEqual([
      '0.01',
      '999.99',
      '1,000.00',
      '1,234,567.000001',
      '1,000,000,000',
      '12',
    ]);
  });
});
