import { tryParseUsdc, formatUsdc, readableUsdc } from '../lib/money.js';
import type { SpendRecord } from '../api/types.js';

const HOURS = 24;
const HOUR_MS = 3_600_000;

/** A round top for the amount axis, at or above the highest bar: 1, 2 or 5 times a power of ten (micro-USDC). */
export function axisTop(max: bigint): bigint {
  if (max <= 0n) return 0n;
  for (let scale = 1n; ; scale *= 10n) for (const step of [1n, 2n, 5n]) if (step * scale >= max) return step * scale;
}

/**
 * Spending over the last 24 hours, one bar per hour (confirmed and pending payments: a failed or
 * refunded one spent nothing, as the daily budget counts it), with an amount axis. The bars are SVG
 * stretched to the width; the axis labels are HTML text, so they stay legible on a phone.
 */
export function SpendChart({ payments, now = Date.now() }: { payments: SpendRecord[]; now?: number }) {
  const buckets = Array.from({ length: HOURS }, () => 0n);
  const start = now - HOURS * HOUR_MS;
  for (const payment of payments) {
    if (payment.status === 'failed' || payment.status === 'refunded') continue;
    const at = new Date(payment.timestamp).getTime();
    if (at <= start || at > now) continue;
    const index = Math.min(HOURS - 1, Math.floor((at - start) / HOUR_MS));
    buckets[index] = (buckets[index] ?? 0n) + (tryParseUsdc(payment.amount) ?? 0n);
  }
  const max = buckets.reduce((a, b) => (b > a ? b : a), 0n);
  const total = buckets.reduce((a, b) => a + b, 0n);
  const top = axisTop(max);
  const height = 100;
  if (total === 0n) {
    return (
      <figure className="chart empty-chart">
        <p className="empty">No spending in the last 24 h: each hour's payments will show here as a bar.</p>
      </figure>
    );
  }
  return (
    <figure className="chart">
      <div className="chart-grid">
        <div className="y-axis" aria-hidden="true">
          <span>{readableUsdc(top)}</span>
          <span>{readableUsdc(top / 2n)}</span>
          <span>0</span>
        </div>
        <svg
          viewBox={`0 0 ${HOURS * 10} ${height}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`Spent ${formatUsdc(total)} USDC in the last 24 hours, by hour`}
        >
          <line className="grid-line" x1={0} y1={height / 2} x2={HOURS * 10} y2={height / 2} vectorEffect="non-scaling-stroke" />
          {buckets.map((value, i) => {
            const h = Math.max(value > 0n ? 1.5 : 0, Number((value * BigInt(height)) / top));
            return (
              <rect key={i} className="bar" x={i * 10 + 1} y={height - h} width={8} height={h}>
                <title>{`${new Date(start + (i + 1) * HOUR_MS).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}: ${readableUsdc(value)} USDC`}</title>
              </rect>
            );
          })}
          <line className="axis" x1={0} y1={height} x2={HOURS * 10} y2={height} vectorEffect="non-scaling-stroke" />
        </svg>
        <div className="x-axis" aria-hidden="true">
          <span>24 h ago</span>
          <span>12 h ago</span>
          <span>now</span>
        </div>
      </div>
      <figcaption>
        {readableUsdc(total)} USDC in the last 24 h, peak hour {readableUsdc(max)} USDC (axis in USDC)
      </figcaption>
    </figure>
  );
}
