import { formatUsdc, readableUsdc, tryParseUsdc } from '../../../server/wire/money.js';

export { formatUsdc, readableUsdc, tryParseUsdc };

/** A wire amount ("1027.50") as the header and every figure show it ("1,027.50"), for sentences. */
export const readableAmount = (text: string): string => readableUsdc(tryParseUsdc(text) ?? 0n);

/** Share of a budget used, 0..1, computed on integers. */
export function usedShare(spent: string, budget: string): number {
  const s = tryParseUsdc(spent) ?? 0n;
  const b = tryParseUsdc(budget) ?? 0n;
  if (b === 0n) return 0;
  return Number((s * 10_000n) / b) / 10_000;
}
