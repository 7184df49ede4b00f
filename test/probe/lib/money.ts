/** USDC amounts as the API writes them (decimal strings) and as the probe adds them (micro-USDC bigints). */
export function micro(decimal: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(decimal.trim());
  if (!match) throw new Error(`not a USDC amount: ${JSON.stringify(decimal)}`);
  return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

/** At least 2 decimals, at most 6, like the server's own formatting. */
export function usdc(amount: bigint): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const whole = abs / 1_000_000n;
  let fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}
