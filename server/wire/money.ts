import { CofferError } from './errors.js';

/**
 * USDC amounts: integer micro-USDC (6 decimals) inside, decimal strings at the edges.
 * Never a float: parsing is done on the string's digits.
 */
export const USDC_DECIMALS = 6;
export const MICRO_PER_USDC = 1_000_000n;
/** Largest amount accepted anywhere: 1,000,000,000 USDC. */
export const MAX_AMOUNT_MICRO = 1_000_000_000n * MICRO_PER_USDC;

const DECIMAL_PATTERN = /^(\d{0,10})(?:\.(\d{1,6}))?$/;

/** Parses a decimal USDC string ("5", "5.00", "0.125", ".01") into micro-USDC; null when malformed. */
export function tryParseUsdc(text: string): bigint | null {
  const match = DECIMAL_PATTERN.exec(text);
  // Digits on at least one side of the point: "" and "." are no amount.
  if (!match || (match[1] === '' && match[2] === undefined)) return null;
  const whole = BigInt(match[1] ?? '0');
  const fraction = BigInt((match[2] ?? '').padEnd(USDC_DECIMALS, '0'));
  return whole * MICRO_PER_USDC + fraction;
}

/** A payment or allocation amount: > 0, at most 6 decimals, at most 1e9 USDC. */
export function parseAmount(text: unknown, field = 'amount'): bigint {
  const micro = typeof text === 'string' ? tryParseUsdc(text) : null;
  if (micro === null || micro <= 0n || micro > MAX_AMOUNT_MICRO) {
    throw new CofferError(
      'invalid_amount',
      `${field} must be a decimal string of USDC greater than 0, with at most 6 decimals and at most 1000000000 (got ${describe(text)})`,
    );
  }
  return micro;
}

const describe = (value: unknown): string =>
  typeof value === 'string'
    ? JSON.stringify(value.slice(0, 40))
    : typeof value === 'object' && value !== null
      ? 'an object'
      : String(value);

/** Formats micro-USDC with at least 2 and at most 6 fractional digits: 5000000n -> "5.00", 125000n -> "0.125". */
export function formatUsdc(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const whole = abs / MICRO_PER_USDC;
  let fraction = (abs % MICRO_PER_USDC).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/**
 * An amount as a person reads it: a decimal string with thousands separators in its whole part
 * ("1,000,000.50"). Only screens group: the wire keeps plain decimals.
 */
export function groupThousands(decimal: string): string {
  const [whole = '', fraction] = decimal.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** Micro-USDC as a person reads it ("1,000,000.50"): formatted, then grouped. */
export const readableUsdc = (micro: bigint): string => groupThousands(formatUsdc(micro));
