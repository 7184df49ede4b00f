import { tryParseUsdc, formatUsdc } from '../lib/money.js';
import type { SpendRecord } from '../api/types.js';

const HOURS = 24;

/**
 * Spending over the last 24 hours, one bar per hour (confirmed and pending payments: a failed or refunded
 * one spent nothing, as the daily budget counts it). Drawn as SVG
 * with attributes only, so it needs no inline styles; the totals are also in the table beside it.
 */
export function SpendChart({ payments, now = Date.now() }: { payments: SpendRecord[]; now?: number }) {
  const buckets = Array.from({ length: HOURS }, () => 0n);
  const start = now - HOURS * 3_600_000;
  for (const payment of payments) {
    if (payment.status === 'failed' || payment.status === 'refunded') continue;
    const at = new Date(payment.timestamp).getTime();
    if (at <= start || at > now) continue;
    const index = Math.min(HOURS - 1, Math.floor((at - start) / 3_600_000));
    buckets[index] = (buckets[index] ?? 0n) + (tryParseUsdc(payment.amount) ?? 0n);
  }
  const max = buckets.reduce((a, b) => (b > a ? b : a), 0n);
  const total = buckets.reduce((a, b) => a + b, 0n);
  const width = 960;
  const height = 120;
  const barWidth = width / HOURS;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height + 16}`} role="img" aria-label={`Spent ${formatUsdc(total)} USDC in the last 24 hours, by hour`}>
        {buckets.map((value, i) => {
          const h = max === 0n ? 0 : Math.max(value > 0n ? 2 : 0, Number((value * BigInt(height)) / max));
          return (
            <rect key={i} className="bar" x={i * barWidth + 1} y={height - h} width={barWidth - 2} height={h}>
              <title>{`${new Date(start + (i + 1) * 3_600_000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}: ${formatUsdc(value)} USDC`}</title>
            </rect>
          );
        })}
        <line className="axis" x1={0} y1={height} x2={width} y2={height} />
        <text className="axis-label" x={0} y={height + 13}>24 h ago</text>
        <text className="axis-label" x={width} y={height + 13} textAnchor="end">now</text>
      </svg>
      <figcaption>
        {formatUsdc(total)} USDC in the last 24 h{max > 0n ? `, peak hour ${formatUsdc(max)} USDC` : ''}
      </figcaption>
    </figure>
  );
}
