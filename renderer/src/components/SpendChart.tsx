import { tryParseUsdc, formatUsdc, readableUsdc } from '../lib/money.js';
import type { SpendRecord } from '../api/types.js';
import { heldOfItWords } from '../../../server/wire/policy/asks.js';
import { useTimeZone } from '../state/store.js';

const HOURS = 24;
const HOUR_MS = 3_600_000;

/** A bar's height for an amount: in proportion to the axis, and never too thin to see where there is one. */
const barHeight = (value: bigint, top: bigint, height: number) => Math.max(value > 0n ? 1.5 : 0, Number((value * BigInt(height)) / top));

/** A round top for the amount axis, at or above the highest bar: 1, 2 or 5 times a power of ten (micro-USDC). */
export function axisTop(max: bigint): bigint {
  if (max <= 0n) return 0n;
  for (let scale = 1n; ; scale *= 10n) for (const step of [1n, 2n, 5n]) if (step * scale >= max) return step * scale;
}

/** A held payment that waits for the owner's yes (the same as the agent row's `held24h` counts). */
const waitsForOwner = (payment: SpendRecord) => payment.status === 'held' && payment.approvedAt === undefined;

/**
 * Spending over the last 24 hours, one bar per hour (confirmed and pending payments: a failed or
 * refunded one spent nothing, as the daily budget counts it), with an amount axis. A payment held for
 * the owner's yes counts against the budget too, but nothing was paid: it is drawn apart, on top of
 * its hour's bar, and the total says how much of it that is. The bars are SVG stretched to the width;
 * the axis labels are HTML text, so they stay legible on a phone.
 */
export function SpendChart({ payments, now = Date.now() }: { payments: SpendRecord[]; now?: number }) {
  // Each bar's hour in the owner's zone, as every time on the page (the browser's was another).
  const timeZone = useTimeZone();
  const paid = Array.from({ length: HOURS }, () => 0n);
  const held = Array.from({ length: HOURS }, () => 0n);
  const start = now - HOURS * HOUR_MS;
  for (const payment of payments) {
    if (payment.status === 'failed' || payment.status === 'refunded') continue;
    const at = new Date(payment.timestamp).getTime();
    if (at <= start || at > now) continue;
    const index = Math.min(HOURS - 1, Math.floor((at - start) / HOUR_MS));
    const buckets = waitsForOwner(payment) ? held : paid;
    buckets[index] = (buckets[index] ?? 0n) + (tryParseUsdc(payment.amount) ?? 0n);
  }
  const hours = paid.map((value, i) => value + (held[i] ?? 0n));
  const max = hours.reduce((a, b) => (b > a ? b : a), 0n);
  const total = hours.reduce((a, b) => a + b, 0n);
  const heldTotal = held.reduce((a, b) => a + b, 0n);
  const heldOfIt = heldOfItWords(heldTotal, 'your', readableUsdc);
  const heldWords = heldOfIt === null ? '' : ` (${heldOfIt})`;
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
          aria-label={`Spent ${formatUsdc(total)} USDC in the last 24 hours, by hour${heldWords}`}
        >
          <line className="grid-line" x1={0} y1={height / 2} x2={HOURS * 10} y2={height / 2} vectorEffect="non-scaling-stroke" />
          {paid.map((value, i) => {
            const heldValue = held[i] ?? 0n;
            const h = barHeight(value, top, height);
            const heldH = barHeight(heldValue, top, height);
            const hour = new Date(start + (i + 1) * HOUR_MS).toLocaleTimeString(undefined, {
              hour: 'numeric',
              minute: '2-digit',
              timeZone,
            });
            return (
              <g key={i}>
                <rect className="bar" x={i * 10 + 1} y={height - h} width={8} height={h}>
                  <title>{`${hour}: ${readableUsdc(value)} USDC`}</title>
                </rect>
                {heldValue > 0n && (
                  <rect className="held-bar" x={i * 10 + 1} y={height - h - heldH} width={8} height={heldH}>
                    <title>{`${hour}: ${readableUsdc(heldValue)} USDC held for your yes, not paid`}</title>
                  </rect>
                )}
              </g>
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
        {readableUsdc(total)} USDC in the last 24 h{heldWords}, peak hour {readableUsdc(max)} USDC (axis in USDC)
      </figcaption>
    </figure>
  );
}
