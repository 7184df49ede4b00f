// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { ApprovalsPage } from '../../../../../renderer/src/pages/ApprovalsPage.js';
import { PaymentStatus } from '../../../../../renderer/src/components/PaymentStatus.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { CofferApiError } from '../../../../../renderer/src/api/client.js';
import { dateTime } from '../../../../../renderer/src/lib/time.js';
import type { Approval, PolicyResponse, PolicyWhatIf } from '../../../../../renderer/src/api/types.js';

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
  held24h: '0.00',
  pending24h: '0.00',
  timeZone: 'UTC',
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
  policyWhatIf: vi.fn(),
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
    settings: { timeZone: KIRITIMATI, timeZoneFrom: 'owner', preferredRail: null },
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
    expect(card.textContent).toContain('alpha asks to pay 4.00 USDC on Solana to forecast-api');
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

  it('names the agent as the owner named it, as the overview and Activity do, linked to its page', async () => {
    useDashboard.setState({ dashboard: { agents: [{ agentId: 'alpha', displayName: 'Research assistant' }] } as never });
    render(<ApprovalsPage />);
    const card = screen.getByTestId('approval');
    expect(card.textContent).toContain('Research assistant asks to pay 4.00 USDC on Solana to forecast-api');
    expect(card.getAttribute('aria-label')).toBe('Research assistant asks to pay 4.00 USDC on Solana');
    expect(within(card).getByRole('link', { name: 'Research assistant' }).getAttribute('href')).toBe('#/agents/alpha');
    await within(card).findAllByTestId('held-budget');
    useDashboard.setState({ dashboard: null });
  });

  it('a payment held on Base says so', async () => {
    useDashboard.setState({ pendingApprovals: [{ ...held, request: { ...held.request, rail: 'base' } }] });
    render(<ApprovalsPage />);
    expect(screen.getByTestId('approval').textContent).toContain('alpha asks to pay 4.00 USDC on Base to forecast-api');
    await screen.findAllByTestId('held-budget');
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
    expect((await screen.findByTestId('decision-said')).textContent).toBe(
      'Paid 4.00 USDC on Solana to forecast-api for alpha (payment pay_1).',
    );
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
    expect(said.textContent).toBe(
      'Approved, but not paid (4.00 USDC on Solana to forecast-api for alpha): this payment would pass the daily budget',
    );
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
    expect((await screen.findByTestId('decision-said')).textContent).toBe(
      'Denied: 4.00 USDC on Solana to forecast-api for alpha, nothing was paid.',
    );
    expect(client.approve).not.toHaveBeenCalled();
  });

  it('a decided policy request keeps the values it was asked against', async () => {
    const asked = {
      ...held,
      approvalId: 'apr_p',
      kind: 'policy',
      request: { dailyBudget: '100' },
      before: { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] },
      status: 'denied',
      decidedAt: new Date().toISOString(),
    } as unknown as Approval;
    client.approvals.mockResolvedValue({ approvals: [asked] });
    useDashboard.setState({ pendingApprovals: [] });
    render(<ApprovalsPage />);
    const [row] = await screen.findAllByTestId('decided-approval');
    expect(row!.textContent).toContain('daily budget 10.00 → 100.00 USDC (10×)');
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
        ['Withdrawn (the agent was stopped, or stopped waiting): nothing was paid', 'withdrawn'],
      ].map(([outcome, pill]) => ['alpha', `Pay 4.00 USDC on Solana to forecast-api (93ug…Dnrx)${outcome}`, pill, expect.any(String)]),
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

/** alpha asks to raise its daily budget and lower its max per payment: waits for the owner (202). */
const asked: Approval = {
  approvalId: 'apr_9',
  status: 'pending',
  kind: 'policy',
  agentId: 'alpha',
  targetAgentId: 'alpha',
  request: { dailyBudget: '50', maxPerPayment: '0.02' },
  createdAt: new Date(Date.now() - 600_000).toISOString(),
  expiresAt: '2026-11-24T09:30:00.000Z',
  decidedAt: null,
} as Approval;

/** That request tried on alpha's last 30 days: 3 of its 412 payments over the new max, 1 held. */
const refusing: PolicyWhatIf = {
  agentId: 'alpha',
  from: '2026-10-24T12:00:00.000Z',
  to: '2026-11-23T12:00:00.000Z',
  payments: 412,
  wouldRefuse: {
    payments: 3,
    amount: '0.85',
    byCode: { max_per_payment_exceeded: 3 },
    examples: [
      {
        paymentId: 'pay_a',
        at: '2026-10-25T09:14:02.118Z',
        service: 'forecast-api',
        amount: '0.25',
        rail: 'sol',
        code: 'max_per_payment_exceeded',
        message: 'this payment is above the max per payment',
      },
    ],
  },
  wouldHold: { payments: 1, amount: '0.01', byCode: { new_recipient: 1 }, examples: [] },
} as PolicyWhatIf;

const none = (whatIf: PolicyWhatIf): PolicyWhatIf => ({
  ...whatIf,
  wouldRefuse: { payments: 0, amount: '0.00', byCode: {}, examples: [] },
  wouldHold: { payments: 0, amount: '0.00', byCode: {}, examples: [] },
});

describe('an agent’s request to change its policy, tried on its last 30 days', () => {
  beforeEach(() => {
    client.approvals.mockResolvedValue({ approvals: [asked] });
    client.policyWhatIf.mockResolvedValue(refusing);
    useDashboard.setState({ pendingApprovals: [asked] });
  });

  it('asks the what-if of the request as it waits, once, and says it under the request’s words', async () => {
    render(<ApprovalsPage />);
    const card = screen.getByTestId('approval');
    const whatIf = await within(card).findByRole('group', { name: 'Tried on the last 30 days' });
    await waitFor(() => expect(whatIf.getAttribute('aria-busy')).toBe('false'));
    expect(client.policyWhatIf).toHaveBeenCalledTimes(1);
    expect(client.policyWhatIf).toHaveBeenCalledWith('alpha', { dailyBudget: '50', maxPerPayment: '0.02' });
    expect(whatIf.textContent).toContain(
      'Over the last 30 days (412 payments) this would have refused 3 (0.85 USDC): 3 over the max per payment.',
    );
    expect(within(whatIf).getByTestId('what-if-held').textContent).toBe(
      '1 of those it let through (0.01 USDC) would have waited for your yes: 1 to a new recipient.',
    );
    const examples = within(whatIf).getAllByTestId('what-if-example');
    expect(examples.map((e) => e.textContent)).toEqual([
      `${dateTime('2026-10-25T09:14:02.118Z', KIRITIMATI)} · forecast-api · 0.25 USDC on Solana · this payment is above the max per payment`,
    ]);
    // Under the request's words, on the card.
    expect(card.textContent!.indexOf('alpha asks: ')).toBeLessThan(card.textContent!.indexOf('Tried on the last 30 days'));
  });

  it('is not asked again when the page refreshes with the same request, only for another one', async () => {
    render(<ApprovalsPage />);
    await screen.findByText(/this would have refused 3/);
    // A refresh hands the page the same approvals as new objects.
    act(() => useDashboard.setState({ pendingApprovals: [structuredClone(asked)] }));
    act(() => useDashboard.setState({ pendingApprovals: [structuredClone(asked)], dashboard: null }));
    // A sign-in made again (another tab, a reconnect) hands the store a new client: nothing is asked again.
    const again = { ...client, policyWhatIf: vi.fn() };
    act(() => useDashboard.setState({ client: again as never }));
    await screen.findByText(/this would have refused 3/);
    expect(client.policyWhatIf).toHaveBeenCalledTimes(1);
    expect(again.policyWhatIf).not.toHaveBeenCalled();
    act(() => useDashboard.setState({ client: client as never }));
    const another = { ...asked, approvalId: 'apr_10', request: { askAbove: null } } as Approval;
    client.policyWhatIf.mockResolvedValueOnce(none(refusing));
    act(() => useDashboard.setState({ pendingApprovals: [another, structuredClone(asked)] }));
    expect(await screen.findByText('It would have refused none of its 412 payments and held none.')).toBeTruthy();
    expect(client.policyWhatIf).toHaveBeenCalledTimes(2);
    expect(client.policyWhatIf).toHaveBeenLastCalledWith('alpha', { askAbove: null });
  });

  it('says plainly when it changes nothing', async () => {
    client.policyWhatIf.mockResolvedValue(none(refusing));
    render(<ApprovalsPage />);
    const whatIf = await screen.findByRole('group', { name: 'Tried on the last 30 days' });
    await waitFor(() =>
      expect(whatIf.textContent).toBe('Tried on the last 30 daysIt would have refused none of its 412 payments and held none.'),
    );
    expect(within(whatIf).queryByTestId('what-if-example')).toBeNull();
  });

  it('says so when the agent made no payments to try it on', async () => {
    client.policyWhatIf.mockResolvedValue({ ...none(refusing), payments: 0 });
    render(<ApprovalsPage />);
    expect(await screen.findByText('The agent made no payments in the last 30 days: nothing to try this change on.')).toBeTruthy();
  });

  it('says the server’s error in words when the request can no longer be tried', async () => {
    const words =
      'Ask above (4.00 USDC) is above the max per payment (3.00 USDC), so no payment would ever be asked: set it at or below the max per payment, or none';
    client.policyWhatIf.mockRejectedValue(new CofferApiError(400, 'invalid_policy', words));
    render(<ApprovalsPage />);
    const error = await screen.findByTestId('what-if-error');
    expect(error.textContent).toBe(`Could not try this request on the last 30 days: ${words}`);
    // The owner may still decide it.
    expect(screen.getByRole('button', { name: 'Approve' }).hasAttribute('disabled')).toBe(false);
  });

  it('a held payment’s card asks no what-if', async () => {
    useDashboard.setState({ pendingApprovals: [held, asked] });
    render(<ApprovalsPage />);
    const cards = screen.getAllByTestId('approval');
    await within(cards[0]!).findAllByTestId('held-budget');
    await within(cards[1]!).findByText(/this would have refused 3/);
    expect(within(cards[0]!).queryByTestId('approval-what-if')).toBeNull();
    expect(client.policyWhatIf).toHaveBeenCalledTimes(1);
    expect(client.policyWhatIf).toHaveBeenCalledWith('alpha', asked.request);
  });
});

describe('a request opened by its own link (#/approvals/<id>, as an MCP host shows the owner)', () => {
  afterEach(() => {
    window.location.hash = '';
  });

  it('marks that card among those waiting and brings it into view', async () => {
    const other = { ...held, approvalId: 'apr_2', paymentId: 'pay_2' } as Approval;
    useDashboard.setState({ pendingApprovals: [other, held] });
    const scrolled: string[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this.getAttribute('aria-current') ?? '');
    };
    window.location.hash = '#/approvals/apr_1';
    render(<ApprovalsPage />);
    const cards = screen.getAllByTestId('approval');
    expect(cards.map((card) => card.getAttribute('aria-current'))).toEqual([null, 'true']);
    expect(cards[1]!.className).toContain('focused');
    expect(scrolled).toEqual(['true']);
    expect(screen.queryByTestId('focus-ended')).toBeNull();
  });

  it('one no longer waiting says how it ended', async () => {
    const denied = { ...held, status: 'denied', decidedAt: '2026-11-24T08:00:00.000Z' } as Approval;
    client.approvals.mockResolvedValue({ approvals: [denied] });
    useDashboard.setState({ pendingApprovals: [] });
    window.location.hash = '#/approvals/apr_1';
    render(<ApprovalsPage />);
    const note = await screen.findByTestId('focus-ended');
    expect(note.textContent).toBe(`The request you opened no longer waits: denied, ${dateTime(denied.decidedAt!, KIRITIMATI)}.`);
  });

  it('one just asked, that the dashboard has not heard of yet, is not said to have ended', async () => {
    useDashboard.setState({ pendingApprovals: [] });
    window.location.hash = '#/approvals/apr_1';
    render(<ApprovalsPage />);
    await waitFor(() => expect(client.approvals).toHaveBeenCalled());
    await act(async () => undefined);
    expect(screen.queryByTestId('focus-ended')).toBeNull();
  });

  it('without a link, no card is marked', async () => {
    render(<ApprovalsPage />);
    expect(screen.getByTestId('approval').getAttribute('aria-current')).toBeNull();
    await waitFor(() => expect(client.approvals).toHaveBeenCalled());
    expect(screen.queryByTestId('focus-ended')).toBeNull();
  });
});
