// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { SpendChart } from '../../../renderer/src/components/SpendChart.js';
import type { SpendRecord } from '../../../renderer/src/api/types.js';

afterEach(cleanup);

const now = Date.parse('2026-11-22T12:00:00Z');
const payment = (amount: string, status: string, minutesAgo: number) =>
  ({ id: `pay_${amount}_${status}`, service: 's', serviceId: 's', amount, currency: 'USDC', status, timestamp: new Date(now - minutesAgo * 60_000).toISOString(), description: '', recipient: 'r', txSignature: null }) as SpendRecord;

describe('SpendChart', () => {
  it('counts what was spent in the last 24 h: not failed, refunded or older payments', () => {
    render(
      <SpendChart
        now={now}
        payments={[payment('0.25', 'confirmed', 30), payment('0.50', 'pending', 90), payment('4.00', 'refunded', 10), payment('8.00', 'failed', 10), payment('16.00', 'confirmed', 25 * 60)]}
      />,
    );
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe('Spent 0.75 USDC in the last 24 hours, by hour');
  });
});
