// @vitest-environment jsdom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AgentPage } from '../../../../../renderer/src/pages/AgentPage.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { CofferApiError } from '../../../../../renderer/src/api/client.js';
import { withModalDialogs } from '../../../../fixtures/jsdom-page.js';
import { dateTime, shortTime } from '../../../../../renderer/src/lib/time.js';

const WALLET = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const BASE_ACCOUNT = '0x52908400098527886E0F7030069857D2E4169EE7';
const policy = { dailyBudget: '10.00', maxPerPayment: '5.00', cooldownSeconds: 0, allowedServices: [] };
const agentWith = (balance: string) => ({
  agentId: 'alpha',
  displayName: 'Alpha',
  status: 'active',
  statusReason: null,
  walletAddress: WALLET,
  wallets: { sol: WALLET, base: BASE_ACCOUNT },
  balance,
  balances: { sol: balance, base: '1.50' },
  spent24h: '0.00',
  lifetimeSpent: '0.00',
  lifetimePayments: 0,
  policy,
  tightestBudget: null,
});
const dashboardWith = (balance: string, baseNetwork: string | null = 'sim') =>
  ({ agents: [agentWith(balance)], archivedAgents: [], treasury: { amount: '100000000', baseNetwork } }) as never;

const client = {
  spendHistory: vi.fn(),
  searchServices: vi.fn(),
  policy: vi.fn(),
  tasks: vi.fn(),
  allocate: vi.fn(),
  returnFunds: vi.fn(),
  replaceKey: vi.fn(),
  policyWhatIf: vi.fn(),
  allocations: vi.fn(),
};
/** The dashboard read again: the agent's balance as the server has it now. */
let balanceNow = '5.00';
const refresh = vi.fn(async () => {
  useDashboard.setState((s) => ({ dashboard: dashboardWith(balanceNow), reads: s.reads + 1 }));
});

beforeAll(withModalDialogs);
beforeEach(() => {
  for (const mock of Object.values(client)) mock.mockReset();
  refresh.mockClear();
  balanceNow = '5.00';
  client.spendHistory.mockResolvedValue({ payments: [] });
  client.searchServices.mockResolvedValue({ results: [] });
  client.policy.mockResolvedValue({ agentId: 'alpha', policy, spent24h: '0.00', budgets: [] });
  client.tasks.mockResolvedValue({ tasks: [] });
  client.allocations.mockResolvedValue({ allocations: [] });
  useDashboard.setState({
    client: client as never,
    refresh,
    pendingApprovals: [],
    dashboard: dashboardWith('5.00'),
    settings: { timeZone: 'UTC', timeZoneFrom: 'owner', preferredRail: null },
  });
});
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, dashboard: null, settings: null });
});

const returnField = () => screen.getByLabelText<HTMLInputElement>('Return to the treasury');

describe("the agent's wallets", () => {
  it('shows its Solana wallet and its account on Base, and what each holds', () => {
    render(<AgentPage agentId="alpha" />);
    expect(screen.getByTestId('wallet-address').textContent).toBe(WALLET);
    expect(screen.getByTestId('wallet-address-base').textContent).toBe(BASE_ACCOUNT);
    expect(screen.getByTestId('agent-facts-base').textContent).toMatch(/^On Base: 1\.50\s*USDC$/);
  });

  it('says its balance on Base is unknown, not zero, where the rail is open and its node did not answer', () => {
    const agent = { ...agentWith('5.00'), balances: { sol: '5.00', base: null } };
    const treasury = { amount: '100000000', baseNetwork: 'base-sepolia' };
    useDashboard.setState({ dashboard: { agents: [agent], archivedAgents: [], treasury } as never });
    render(<AgentPage agentId="alpha" />);
    expect(screen.getByTestId('wallet-address-base').textContent).toBe(BASE_ACCOUNT);
    expect(screen.getByTestId('agent-facts-base').textContent).toBe('On Base: balance unknown now');
  });
});

describe('what moved between the treasury and the agent', () => {
  const move = (id: string, fields: Record<string, unknown>) => ({
    id,
    kind: 'allocation',
    agentId: 'alpha',
    rail: 'sol',
    amount: '1.00',
    currency: 'USDC',
    status: 'confirmed',
    errorCode: null,
    txSignature: `tx-${id}`,
    timestamp: '2026-11-30T10:00:00.000Z',
    settledAt: '2026-11-30T10:00:01.000Z',
    ...fields,
  });

  it('lists its allocations and returns, newest first, each on its rail and where it stands', async () => {
    client.allocations.mockResolvedValue({
      allocations: [
        move('m3', { kind: 'return', amount: '0.25', status: 'pending', timestamp: '2026-11-30T12:00:00.000Z' }),
        move('m2', { rail: 'base', amount: '0.50', status: 'failed', errorCode: 'insufficient_funds', txSignature: null }),
        move('m1', {}),
      ],
    });
    render(<AgentPage agentId="alpha" />);
    const rows = await screen.findAllByTestId('funds-move');
    expect(client.allocations).toHaveBeenCalledWith({ agentId: 'alpha', limit: 10 });
    expect(rows.map((row) => row.textContent)).toEqual([
      `${shortTime('2026-11-30T12:00:00.000Z', new Date(), 'UTC')}Returned0.25 USDCSolana USDCPending on chain`,
      `${shortTime('2026-11-30T10:00:00.000Z', new Date(), 'UTC')}Allocated0.50 USDCBase USDCFailed (insufficient_funds): nothing moved`,
      `${shortTime('2026-11-30T10:00:00.000Z', new Date(), 'UTC')}Allocated1.00 USDCSolana USDCConfirmed`,
    ]);
  });

  it('reads them again once a move changes its balance; none yet, it says so', async () => {
    render(<AgentPage agentId="alpha" />);
    // The section shows before its moves are read: waited for until they are (a slow run found it empty).
    await waitFor(() => expect(screen.getByTestId('funds-moves').textContent).toContain('Nothing yet.'));
    client.allocations.mockResolvedValue({ allocations: [move('m1', { amount: '3.00' })] });
    balanceNow = '8.00';
    client.allocate.mockResolvedValue({ amount: '3.00', balance: '8.00' });
    fireEvent.change(screen.getByLabelText('Allocate from the treasury'), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: 'Allocate' }));
    await waitFor(() => expect(screen.getAllByTestId('funds-move')).toHaveLength(1));
    expect(client.allocations).toHaveBeenCalledTimes(2);
  });

  it('a pending move that fails, nothing moved, says so at the next refresh though no balance changed', async () => {
    client.allocations.mockResolvedValue({ allocations: [move('m1', { status: 'pending', txSignature: null, settledAt: null })] });
    render(<AgentPage agentId="alpha" />);
    await waitFor(() => expect(screen.getByTestId('funds-move').textContent).toContain('Pending on chain'));
    client.allocations.mockResolvedValue({
      allocations: [move('m1', { status: 'failed', errorCode: 'transaction_dropped', txSignature: null })],
    });
    await act(() => useDashboard.getState().refresh());
    await waitFor(() => expect(screen.getByTestId('funds-move').textContent).toContain('Failed (transaction_dropped): nothing moved'));
  });
});

describe('the Return field follows the agent’s balance', () => {
  it('after an allocation, it offers the new balance', async () => {
    render(<AgentPage agentId="alpha" />);
    expect(returnField().value).toBe('5.00');
    balanceNow = '8.00';
    client.allocate.mockResolvedValue({ amount: '3.00', balance: '8.00' });
    fireEvent.change(screen.getByLabelText('Allocate from the treasury'), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: 'Allocate' }));
    await screen.findByText('Moved 3.00 USDC on chain, on Solana; its Solana wallet now 8.00 USDC');
    expect(returnField().value).toBe('8.00');
  });

  it('a balance the page learns of otherwise (a payment, a refresh) too, unless the owner typed an amount', async () => {
    render(<AgentPage agentId="alpha" />);
    act(() => useDashboard.setState({ dashboard: dashboardWith('4.25') }));
    expect(returnField().value).toBe('4.25');
    fireEvent.change(returnField(), { target: { value: '1' } });
    act(() => useDashboard.setState({ dashboard: dashboardWith('4.00') }));
    expect(returnField().value).toBe('1');
  });

  it('emptied, it returns all of it, as the refusal of a return above the balance says ("leave the amount out")', async () => {
    render(<AgentPage agentId="alpha" />);
    balanceNow = '0.00';
    client.returnFunds.mockResolvedValue({ amount: '5.00', balance: '0.00' });
    fireEvent.change(returnField(), { target: { value: '' } });
    expect(returnField().placeholder).toBe('all of it');
    // The button says what an empty field does (helper 181: a blanked field returned 19.19 unsaid).
    expect(screen.queryByRole('button', { name: 'Return' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Return all of it' }));
    await screen.findByText('Returned 5.00 USDC to the treasury on chain, on Solana; its Solana wallet now 0.00 USDC');
    expect(client.returnFunds).toHaveBeenCalledWith('alpha', {});
  });

  it('after a return, it offers what is left', async () => {
    render(<AgentPage agentId="alpha" />);
    balanceNow = '3.00';
    client.returnFunds.mockResolvedValue({ amount: '2.00', balance: '3.00' });
    fireEvent.change(returnField(), { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByText('Returned 2.00 USDC to the treasury on chain, on Solana; its Solana wallet now 3.00 USDC');
    expect(returnField().value).toBe('3.00');
  });
});

describe("the agent page's times are the owner's time zone's, as its note says", () => {
  it("a payment shows when it was made there, not in the browser's zone", async () => {
    const at = '2026-11-27T11:27:00.000Z';
    client.spendHistory.mockResolvedValue({
      payments: [
        {
          id: 'pay_1',
          service: 'demo-weather',
          serviceId: 'demo-weather',
          amount: '0.01',
          currency: 'USDC',
          status: 'confirmed',
          timestamp: at,
          description: '',
          recipient: WALLET,
          txSignature: 'x',
          protocol: 'coffer',
          resource: null,
          rail: 'sol',
        },
      ],
    });
    useDashboard.setState({ settings: { timeZone: 'Pacific/Kiritimati', timeZoneFrom: 'owner', preferredRail: null } });
    render(<AgentPage agentId="alpha" />);
    const there = dateTime(at, 'Pacific/Kiritimati');
    expect(there).not.toBe(dateTime(at, 'UTC'));
    expect(await screen.findByText(there)).toBeTruthy();
  });
});

describe('funds on Base: the owner picks the rail the treasury moves USDC on', () => {
  it('allocates to its Base account and returns from it, the Return field offering what Base holds', async () => {
    render(<AgentPage agentId="alpha" />);
    fireEvent.click(screen.getByLabelText(/^Base USDC/));
    expect(returnField().value).toBe('1.50');
    client.allocate.mockResolvedValue({ amount: '3.00', balance: '4.50', rail: 'base' });
    fireEvent.change(screen.getByLabelText('Allocate from the treasury'), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: 'Allocate' }));
    await screen.findByText('Moved 3.00 USDC on chain, on Base; its Base account now 4.50 USDC');
    expect(client.allocate).toHaveBeenCalledWith('alpha', { amount: '3', rail: 'base' });
    client.returnFunds.mockResolvedValue({ amount: '1.50', balance: '0.00', rail: 'base' });
    fireEvent.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByText('Returned 1.50 USDC to the treasury on chain, on Base; its Base account now 0.00 USDC');
    expect(client.returnFunds).toHaveBeenCalledWith('alpha', { amount: '1.50', rail: 'base' });
  });

  it('a return that leaves less than a payment waiting for the yes on that rail says so: the yes would fail', async () => {
    useDashboard.setState({
      pendingApprovals: [
        {
          approvalId: 'apr_1',
          agentId: 'alpha',
          kind: 'payment',
          status: 'pending',
          request: { service: 'x', amount: '0.40', recipient: 'r', rail: 'base' },
        },
      ] as never,
    });
    render(<AgentPage agentId="alpha" />);
    fireEvent.click(screen.getByLabelText(/^Base USDC/));
    client.returnFunds.mockResolvedValue({ amount: '1.50', balance: '0.00', rail: 'base' });
    fireEvent.click(screen.getByRole('button', { name: 'Return' }));
    await screen.findByText(
      'Returned 1.50 USDC to the treasury on chain, on Base; its Base account now 0.00 USDC. 1 payment of alpha waits for your yes on Base (0.40 USDC), more than that: a yes fails unless you allocate 0.40 again, or deny it in Approvals.',
    );
  });

  it('Solana stays the default and sends no rail; with the Base rail off there is no choice', () => {
    render(<AgentPage agentId="alpha" />);
    expect(screen.getByLabelText<HTMLInputElement>(/^Solana USDC/).checked).toBe(true);
    cleanup();
    useDashboard.setState({ dashboard: dashboardWith('5.00', null) });
    render(<AgentPage agentId="alpha" />);
    expect(screen.queryByLabelText(/^Base USDC/)).toBeNull();
    expect(returnField().value).toBe('5.00');
  });
});

describe('a new key with a sign-in too old (confirmation_required)', () => {
  it('says so in a sentence, with the command to sign in again and a copy button', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    client.replaceKey.mockRejectedValue(
      new CofferApiError(
        403,
        'confirmation_required',
        "this creates a key or a login link, which needs a sign-in from the last 10 minutes: sign in again (run coffer open, or use the tray's Open dashboard) and try again",
      ),
    );
    location.hash = '#/agents/alpha';
    render(<AgentPage agentId="alpha" />);
    fireEvent.click(screen.getByRole('button', { name: 'Issue a new API key…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Issue a new key' }));
    const note = await screen.findByTestId('sign-in-again');
    expect(note.getAttribute('role')).toBe('alert');
    expect(note.textContent).toBe(
      'This needs a sign-in from the last 10 minutes. Sign in again: run coffer open in a terminal (it opens this page in a new tab, ' +
        "signed in afresh), or use the tray app's “Open dashboard”. Then issue the key there.Copy the command",
    );
    expect(within(note).getByText('coffer open').tagName).toBe('CODE');
    fireEvent.click(within(note).getByRole('button', { name: 'Copy the command' }));
    expect(writeText).toHaveBeenCalledWith('coffer open');
    // The tab `coffer open` opens lands on this agent's page.
    // (Remembered by an effect of the note: waited for, it may run just after the note shows.)
    await waitFor(() => expect(JSON.parse(window.localStorage.getItem('coffer.next') ?? 'null')).toMatchObject({ hash: '#/agents/alpha' }));
    // The dialog stays, to try again once signed in.
    expect(screen.getByRole('button', { name: 'Issue a new key' })).toBeTruthy();
  });
});

describe('its payments, read again as they change', () => {
  const payment = (status: string) => ({
    id: 'pay_1',
    service: 'forecast-api',
    amount: '4.00',
    status,
    timestamp: new Date().toISOString(),
  });
  const withHeld = (held24h: string) =>
    ({
      agents: [{ ...agentWith('5.00'), spent24h: '4.00', held24h }],
      archivedAgents: [],
      treasury: { amount: '100000000', baseNetwork: 'sim' },
    }) as never;

  it('a held payment paid on the yes (the same spent, held no more): its row no longer says it waits', async () => {
    client.spendHistory.mockResolvedValue({ payments: [payment('held')] });
    useDashboard.setState({ dashboard: withHeld('4.00') });
    render(<AgentPage agentId="alpha" />);
    await waitFor(() => expect(document.querySelectorAll('.pill.held')).toHaveLength(1));
    client.spendHistory.mockResolvedValue({ payments: [payment('pending')] });
    await act(async () => useDashboard.setState({ dashboard: withHeld('0.00') }));
    await waitFor(() => expect(client.spendHistory).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(document.querySelectorAll('.pill.held')).toHaveLength(0));
  });
});
