import { readableUsdc, tryParseUsdc } from '../lib/money.js';

/**
 * A USDC amount as the server gave it (a decimal string, 2 to 6 decimals): never rounded, never
 * through a float, its thousands grouped. Tabular figures keep columns aligned.
 */
export function Money({ value, micro, unit = true, className }: { value?: string; micro?: string; unit?: boolean; className?: string }) {
  const text = micro !== undefined ? readableUsdc(BigInt(micro)) : value !== undefined ? readableUsdc(tryParseUsdc(value) ?? 0n) : '—';
  return (
    <span className={`money${className ? ` ${className}` : ''}`}>
      {text}
      {unit && <span className="unit"> USDC</span>}
    </span>
  );
}
