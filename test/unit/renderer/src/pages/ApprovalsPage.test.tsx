// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { ApprovalsPage } from '../../../../../renderer/src/pages/ApprovalsPage.js';
import { PaymentStatus } from '../../../../../renderer/src/components/PaymentStatus.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { CofferApiError } from '../../../../../renderer/src/api/client.js';
import { dateTime } from '../../../../../renderer/src/lib/time.js';
import type { Approval, PolicyResponse } from '../../../../../renderer/src/api/types.js';

const RECIPIENT = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const KIRITIMATI = 'Pacific/Kiritimati';

/** Held half an hour ago, as POST /pay answered it (202) and GET /v1/approvals lists it. */
const held: Approval = {
  approvalId: 'apr_1',
  status: 'pending',
  kind: 'payment',
  agentId: 'alpha',
  targetAgentId: 'alpha',
  request: {
    service: 'forecast-api',
    amount: '4.00',
    recipient: RECIPIENT,
    description: 'a week of forecasts',
    reason: { code: 'ask_above', message: "4.00 USDC is above 2.00 USDC: above that, the policy waits for the owner's yes" },
  },
  paymentId: 'pay_1',
  createdAt: new Date(Date.now() - 1_800_000).toISOString(),
  expiresAt: '2026-11-24T09:30:00.000Z',
  decidedAt: null,
} as Approval;

/** GET policy now: the held 4.00 USDC already counts. */
const policyNow: PolicyResponse = {
  agentId: 'alpha',
  policy: { dailyBudget: '10.00', maxPerPayment: '5.00', cooldownSeconds: 0, allowedServices: [], askAbove: '2.00' },
  spent24h: '4.25',
  budgets: [
    { amount: '20.00', window: '30d', spent: '6.00', remaining: '14.00', resetsAt: null },
    { count: 5, window: '24h', recipient: RECIPIENT, made: 2, remaining: 3, resetsAt: null },
    { amount: '1.00', window: '24h', service: 'demo-weather', spent: '0.00', remaining: '1.00', resetsAt: null },
  ],
};

const client = {
  approvals: vi.fn(),
  policy: vi.fn(),
  approve: vi.fn(),
  deny: vi.fn(),
  linkRequests: vi.fn(),
};
const refresh = vi.fn(async () => undefined);

beforeEach(() => {
  for (const mock of Object.values(client)) mock.mockReset();
  refresh.mockClear();
  client.approvals.mockResolvedValue({ approvals: [held] });
  client.policy.mockResolvedValue(policyNow);
  client.linkRequests.mockResolvedValue({ sessions: [] });
  useDashboard.setState({
    client: client as never,
    refresh,
    pendingApprovals: [held],
    dashboard: null,
    settings: { timeZone: KIRITIMATI, timeZoneFrom: 'owner' },
  });
});
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, pendingApprovals: [], settings: null });
});

describe('a held payment in Approvals', () => {
  it('reads as a card: who pays what to whom, why, its budgets before → after, when it expires in the owner’s zone', async () => {
    render(<ApprovalsPage />);
    const card = screen.getByTestId('approval');
    expect(card.textContent).toContain('alpha asks to pay 4.00 USDC to forecast-api');
    expect(card.textContent).toContain("Why it waits: 4.00 USDC is above 2.00 USDC: above that, the policy waits for the owner's yes.");
    expect(card.textContent).toContain('“a week of forecasts”');
    expect(card.textContent).toContain(RECIPIENT);
    expect(within(card).getByTestId('approval-expires').textContent).toBe(dateTime(held.expiresAt, KIRITIMATI));
    const budgets = await within(card).findAllByTestId('held-budget');
    expect(client.policy).toHaveBeenCalledWith('alpha');
    expect(budgets.map((row) => row.textContent)).toEqual([
      '10.00 USDC in any 24 hours (daily budget)0.25 → 4.25 of 10.00 USDC',
      '20.00 USDC in any 30 days2.00 → 6.00 of 20.00 USDC',
      `5 payments in any 24 hours to ${RECIPIENT}1 → 2 of 5 payments`,
    ]);
  });

  it('an image says what it buys', async () => {
    const image = { kind: 'image', modelId: 'sdxl', resolution: '1k', prompt: 'a lighthouse at dusk' };
    useDashboard.setState({ pendingApprovals: [{ ...held, request: { ...held.request, purchase: image } }] });
    render(<ApprovalsPage />);
    expect(screen.getByTestId('approval').textContent).toContain('For an image: sdxl, 1k, “a lighthouse at dusk”');
    await screen.findAllByTestId('held-budget');
  });

  it('approved, it is paid and said so with its payment; the figures are read again', async () => {
    client.approve.mockResolvedValue({
      ...held,
      status: 'approved',
      decidedAt: new Date().toISOString(),
      result: { paymentId: 'pay_1', status: 'confirmed', amount: '4.00', txSignature: 'sig' },
    });
    render(<ApprovalsPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Approve and pay' }));
    expect((await screen.findByTestId('decision-said')).textContent).toBe('Paid 4.00 USDC to forecast-api for alpha (payment pay_1).');
    expect(client.approve).toHaveBeenCalledWith('apr_1');
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('approved but refused when paid (a budget passed since), it says so plainly', async () => {
    client.approve.mockResolvedValue({
      ...held,
      status: 'failed',
      error: 'this payment would pass the daily budget',
      errorCode: 'daily_budget_exceeded',
    });
    render(<ApprovalsPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Approve and pay' }));
    const said = await screen.findByTestId('decision-said');
    expect(said.textContent).toBe('Approved, but not paid (4.00 USDC to forecast-api for alpha): this payment would pass the daily budget');
    expect(said.getAttribute('role')).toBe('alert');
  });

  it('a sign-in too old to approve it (confirmation_required): the reason on its card, and it still waits', async () => {
    const words = 'this moves money or lets an agent spend more, which needs a sign-in from the last 10 minutes: sign in again';
    client.approve.mockRejectedValue(new CofferApiError(403, 'confirmation_required', words));
    render(<ApprovalsPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Approve and pay' }));
    const card = screen.getByTestId('approval');
    expect((await within(card).findByRole('alert')).textContent).toBe(words);
    expect(screen.queryByTestId('decision-said')).toBeNull();
    expect(refresh).not.toHaveBeenCalled();
    await waitFor(() => expect(within(card).getByRole('button', { name: 'Approve and pay' }).hasAttribute('disabled')).toBe(false));
  });

  it('denied: nothing is paid, and it says so', async () => {
    client.deny.mockResolvedValue({ ...held, status: 'denied', decidedAt: new Date().toISOString() });
    render(<ApprovalsPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    expect((await screen.findByTestId('decision-said')).textContent).toBe('Denied: 4.00 USDC to forecast-api for alpha, nothing was paid.');
    expect(client.approve).not.toHaveBeenCalled();
  });

  it('the history says how each decided payment ended', async () => {
    const decided = (extra: Partial<Approval>): Approval => ({ ...held, decidedAt: new Date().toISOString(), ...extra });
    client.approvals.mockResolvedValue({
      approvals: [
        decided({
          approvalId: 'apr_2',
          status: 'approved',
          result: { paymentId: 'pay_2', status: 'confirmed', amount: '4.00' },
        }),
        decided({
          approvalId: 'apr_7',
          status: 'approved',
          result: { paymentId: 'pay_7', protocol: 'x402', status: 'approved', amount: '4.00' },
        }),
        decided({ approvalId: 'apr_3', status: 'failed', error: 'this payment would pass the daily budget' }),
        decided({ approvalId: 'apr_4', status: 'denied' }),
        decided({ approvalId: 'apr_5', status: 'expired' }),
        decided({ approvalId: 'apr_6', status: 'withdrawn' }),
      ],
    });
    useDashboard.setState({ pendingApprovals: [] });
    render(<ApprovalsPage />);
    const rows = await screen.findAllByTestId('decided-approval');
    expect(
      rows.map((row) =>
        within(row)
          .getAllByRole('cell')
          .map((cell) => cell.textContent),
      ),
    ).toEqual(
      [
        ['Paid 4.00 USDC (payment pay_2)', 'paid'],
        ["Approved 4.00 USDC: the agent now buys it with the seller's fresh terms, paid once (payment pay_7)", 'approved'],
        ['Approved, but not paid: this payment would pass the daily budget', 'not paid'],
        ['You denied it: nothing was paid', 'denied'],
        ['Nobody answered in time: nothing was paid', 'expired'],
        ['The agent was stopped while it waited: nothing was paid', 'withdrawn (agent stopped)'],
      ].map(([outcome, pill]) => ['alpha', `Pay 4.00 USDC to forecast-api (93ug…Dnrx)${outcome}`, pill, expect.any(String)]),
    );
  });
});

describe('a held payment in a list of payments', () => {
  it('waits for the owner, no error: its pill leads to Approvals', () => {
    render(<PaymentStatus status="held" />);
    const link = screen.getByRole('link', { name: 'Waiting for you' });
    expect(link.getAttribute('href')).toBe('#/approvals');
    cleanup();
    render(<PaymentStatus status="failed" />);
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByText('Failed').className).toBe('pill failed');
  });
});
