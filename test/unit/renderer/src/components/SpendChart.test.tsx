// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { SpendChart } from '../../../../../renderer/src/components/SpendChart.js';
import type { SpendRecord } from '../../../../../renderer/src/api/types.js';

afterEach(cleanup);

const now = Date.parse('2026-11-22T12:00:00Z');
const payment = (amount: string, status: string, minutesAgo: number) =>
  ({
    id: `pay_${amount}_${status}`,
    service: 's',
    serviceId: 's',
    amount,
    currency: 'USDC',
    status,
    timestamp: new Date(now - minutesAgo * 60_000).toISOString(),
    description: '',
    recipient: 'r',
    txSignature: null,
  }) as SpendRecord;

describe('SpendChart', () => {
  it('counts what was spent in the last 24 h: not failed, refunded or older payments', () => {
    render(
      <SpendChart
        now={now}
        payments={[
          payment('0.25', 'confirmed', 30),
          payment('0.50', 'pending', 90),
          payment('4.00', 'refunded', 10),
          payment('8.00', 'failed', 10),
          payment('16.00', 'confirmed', 25 * 60),
        ]}
      />,
    );
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe('Spent 0.75 USDC in the last 24 hours, by hour');
  });
});

describe('SpendChart, held payments', () => {
  it('draws what waits for the owner apart from what was paid, on the same bar, and says how much of the total it is', () => {
    const approved = { ...payment('2.00', 'held', 20), id: 'pay_approved', approvedAt: new Date(now - 10 * 60_000).toISOString() };
    const { container } = render(
      <SpendChart
        now={now}
        payments={[payment('0.25', 'confirmed', 30), payment('0.50', 'held', 40), approved, payment('1.00', 'held', 25 * 60)]}
      />,
    );
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe(
      'Spent 2.75 USDC in the last 24 hours, by hour (0.50 of it held for your yes, not paid)',
    );
    expect(container.querySelector('figcaption')?.textContent).toContain('0.50 of it held for your yes, not paid');
    // The last hour's bar: 2.25 paid or approved, and 0.50 held on top of it, each with its own title.
    const held = [...container.querySelectorAll('rect.held-bar')];
    expect(held).toHaveLength(1);
    expect(held[0]!.querySelector('title')?.textContent).toMatch(/: 0\.50 USDC held for your yes, not paid$/);
    const paid = [...container.querySelectorAll('rect.bar')].filter((bar) => Number(bar.getAttribute('height')) > 0);
    expect(paid).toHaveLength(1);
    expect(paid[0]!.querySelector('title')?.textContent).toMatch(/: 2\.25 USDC$/);
    expect(Number(held[0]!.getAttribute('y')) + Number(held[0]!.getAttribute('height'))).toBeCloseTo(Number(paid[0]!.getAttribute('y')));
    cleanup();
    // Nothing held, nothing said of it.
    const { container: plain } = render(<SpendChart now={now} payments={[payment('0.25', 'confirmed', 30)]} />);
    expect(plain.querySelectorAll('rect.held-bar')).toHaveLength(0);
    expect(plain.querySelector('figcaption')?.textContent).not.toContain('held');
  });
});

describe('SpendChart axes', () => {
  it('has an amount axis with a round top at or above the peak hour, and says so when nothing was spent', () => {
    const { container } = render(
      <SpendChart now={now} payments={[payment('1234.5', 'confirmed', 30), payment('0.01', 'confirmed', 300)]} />,
    );
    expect([...container.querySelectorAll('.y-axis span')].map((span) => span.textContent)).toEqual(['2,000.00', '1,000.00', '0']);
    expect(container.querySelector('figcaption')?.textContent).toContain('peak hour 1,234.50 USDC');
    cleanup();
    render(<SpendChart now={now} payments={[payment('8.00', 'failed', 10)]} />);
    expect(screen.getByText(/No spending in the last 24 h/)).toBeTruthy();
    expect(screen.queryByRole('img')).toBeNull();
  });

  it('rounds the axis top up to 1, 2 or 5 times a power of ten', async () => {
    const { axisTop } = await import('../../../../../renderer/src/components/SpendChart.js');
    expect([1n, 2n, 3n, 7n, 10n, 11n, 450_000n, 1_234_500_000n].map(axisTop)).toEqual([
      1n,
      2n,
      5n,
      10n,
      10n,
      20n,
      500_000n,
      2_000_000_000n,
    ]);
    expect(axisTop(0n)).toBe(0n);
  });
});
