import { formatUsdc, tryParseUsdc } from '../../../server/core/money.js';

export { formatUsdc, tryParseUsdc };

/** The treasury's integer micro-USDC amount as a decimal string (never through a float). */
export const microToUsdc = (micro: string): string => formatUsdc(BigInt(micro));

/** Share of a budget used, 0..1, computed on integers. */
export function usedShare(spent: string, budget: string): number {
  const s = tryParseUsdc(spent) ?? 0n;
  const b = tryParseUsdc(budget) ?? 0n;
  if (b === 0n) return 0;
  return Number((s * 10_000n) / b) / 10_000;
}
