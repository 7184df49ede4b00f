// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { Overview } from '../../../../../renderer/src/pages/Overview.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { dashboardTreasury } from '../../../../fixtures/dashboard-treasury.js';
import { dateTime, shortTime } from '../../../../../renderer/src/lib/time.js';

const PAID_AT = '2026-12-01T18:18:00.000Z';
const ZONE = 'Pacific/Kiritimati';

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null, deposits: [], settings: null });
});

describe('the overview', () => {
  it("says an agent's last payment in the owner's time zone, as Recent payments does (helper 192: the browser's)", () => {
    const agent = {
      agentId: 'a1',
      displayName: 'a1',
      status: 'active',
      statusReason: null,
      walletAddress: 'W',
      balance: '1.00',
      balances: { sol: '1.00', base: '0.00' },
      policy: { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] },
      spent24h: '0.01',
      held24h: '0.00',
      lastPaymentAt: PAID_AT,
      tightestBudget: { budget: '5.00 USDC in any 24 hours', used: '0.01 USDC', percent: 0, warned: false },
    };
    useDashboard.setState({
      settings: { timeZone: ZONE, timeZoneFrom: 'owner', preferredRail: null },
      deposits: [],
      dashboard: {
        treasury: dashboardTreasury(null),
        spent24h: '0.01',
        held24h: '0.00',
        agents: [agent],
        archivedAgents: [],
        recentActivity: [],
        recentRefusals: [],
      } as never,
    });
    render(<Overview />);
    const cell = screen.getByTestId('last-payment');
    expect(cell.textContent).toBe(shortTime(PAID_AT, new Date(), ZONE));
    expect(cell.getAttribute('title')).toBe(dateTime(PAID_AT, ZONE));
    expect(cell.textContent).not.toBe(shortTime(PAID_AT, new Date(), 'UTC'));
  });
});
