// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { ActivityPage } from '../../../../../renderer/src/pages/ActivityPage.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { dateTime, shortTime } from '../../../../../renderer/src/lib/time.js';
import type { Activity, Refusal } from '../../../../../server/wire/answers/payments.js';

const AT = '2026-11-27T09:16:19.770Z';

const refusal = (rail: Refusal['rail'], message: string): Refusal => ({
  agent: 'alpha',
  service: 'demo-weather',
  venue: 'Coffer demo weather',
  amount: '0.45',
  currency: 'USDC',
  rail,
  code: 'max_per_payment_exceeded',
  message,
  timestamp: AT,
});

const denied: Activity = {
  id: 'pay_1',
  agent: 'alpha',
  venue: 'Coffer demo weather',
  amount: '2.00',
  rail: 'base',
  time: '09:16',
  status: 'failed',
  timestamp: AT,
  txSignature: null,
  protocol: 'coffer',
  resource: null,
  recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  errorCode: 'payment_denied',
};

/** The Activity page reads the dashboard's answer alone: the rest of it is left out here. */
function showing(recentActivity: Activity[], recentRefusals: Refusal[]) {
  useDashboard.setState({ dashboard: { agents: [], archivedAgents: [], recentActivity, recentRefusals } as never });
  render(<ActivityPage />);
}

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null });
});

describe('the Activity page', () => {
  it('a held payment the owner denied reads Denied, on Base', () => {
    showing([denied], []);
    const row = screen.getByTestId('activity-row');
    expect(within(row).getByText('Denied').getAttribute('title')).toBe('denied by the owner');
    expect(row.textContent).toContain('Base USDC');
  });

  it("says when in the owner's time zone, as the agent page does, not the browser's", () => {
    useDashboard.setState({ settings: { timeZone: 'Pacific/Kiritimati', timeZoneFrom: 'owner', preferredRail: null } });
    showing([denied], []);
    const when = within(screen.getByTestId('activity-row')).getAllByRole('cell')[0]!;
    expect(when.getAttribute('title')).toBe(dateTime(AT, 'Pacific/Kiritimati'));
    expect(when.textContent).toBe(shortTime(AT, new Date(), 'Pacific/Kiritimati'));
    useDashboard.setState({ settings: null });
  });

  it('each refusal says the rail it was asked on; one kept before Coffer kept rails says none', () => {
    showing([], [refusal('base', 'on base'), refusal('sol', 'on solana'), refusal(null, 'before rails')]);
    const rows = screen.getAllByTestId('refusal-row').map((row) => row.textContent);
    expect(rows[0]).toMatch(/Base USDC.*on base/);
    expect(rows[1]).toMatch(/Solana USDC.*on solana/);
    expect(rows[2]).toMatch(/—before rails/);
  });
});

describe('the Activity tables on a phone', () => {
  it('are a card per row, each cell named by its column (a narrow screen hides the heads, and the Status and Why columns fell off its edge)', () => {
    showing([denied], [refusal('sol', 'over the max per payment')]);
    for (const table of screen.getAllByRole('table')) {
      expect(table.classList.contains('cards-on-phone')).toBe(true);
      const heads = within(table)
        .getAllByRole('columnheader')
        .map((head) => head.textContent);
      const cells = table.querySelectorAll('tbody tr:first-child td');
      expect([...cells].map((cell) => cell.getAttribute('data-label'))).toEqual(heads);
    }
  });
});
