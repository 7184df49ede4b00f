// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { PolicyEditor } from '../../../../../renderer/src/components/PolicyEditor.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { withModalDialogs } from '../../../../fixtures/jsdom-page.js';

afterEach(cleanup);
beforeAll(withModalDialogs);

const policy = { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] as string[] };
const services = [
  { id: 'demo-weather', name: 'Coffer demo weather' },
  { id: 'web-search', name: 'Web search' },
] as never[];

describe('PolicyEditor', () => {
  it('shows field errors and does not save an invalid policy', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    fireEvent.change(screen.getByLabelText('Daily budget (USDC, rolling 24 h)'), { target: { value: '2' } });
    fireEvent.change(screen.getByLabelText('Max per payment (USDC)'), { target: { value: '0' } });
    fireEvent.change(screen.getByLabelText('Cooldown between payments (seconds, 0 = none)'), { target: { value: 'later' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(await screen.findByText('Cooldown must be a whole number of seconds')).toBeTruthy();
    expect(screen.getByLabelText('Max per payment (USDC)').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Daily budget (USDC, rolling 24 h)').getAttribute('aria-invalid')).not.toBe('true');
    expect(onSave).not.toHaveBeenCalled();
  });

  it('a max per payment above the daily budget is saved, and said never to bind (helper 181: saved without a word)', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    const max = screen.getByLabelText('Max per payment (USDC)');
    expect(max.getAttribute('aria-describedby')).toBeNull();
    fireEvent.change(max, { target: { value: '25' } });
    const note = 'Above the daily budget: no payment can be larger than 10.00, what 24 hours allow';
    expect(screen.getByText(note)).toBeTruthy();
    expect(document.getElementById(max.getAttribute('aria-describedby') ?? '')?.textContent).toBe(note);
    expect(max.getAttribute('aria-invalid')).not.toBe('true');
    fireEvent.change(screen.getByLabelText('Daily budget (USDC, rolling 24 h)'), { target: { value: '30' } });
    expect(screen.queryByText(/Above the daily budget/)).toBeNull();
    fireEvent.change(screen.getByLabelText('Daily budget (USDC, rolling 24 h)'), { target: { value: '10' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    // 25 times the max it was: confirmed first, as any such loosening.
    fireEvent.click(await screen.findByRole('button', { name: 'Save anyway' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledWith({ maxPerPayment: '25' }));
  });

  it('saves a valid policy with the picked services, and shows the server’s refusal if it still refuses', async () => {
    const onSave = vi.fn(async () => {
      throw new Error('an agent can only tighten its own policy; loosening needs the owner');
    });
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    fireEvent.change(screen.getByLabelText('Daily budget (USDC, rolling 24 h)'), { target: { value: '4.5' } });
    fireEvent.click(screen.getByLabelText(/Only these/));
    fireEvent.click(screen.getByLabelText(/Web search/));
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    // Only what changed is sent.
    expect(onSave).toHaveBeenCalledWith({ dailyBudget: '4.5', allowedServices: ['web-search'] });
    expect((await screen.findByRole('alert')).textContent).toContain('loosening needs the owner');
    expect(screen.getByText(/Only these \(1 picked\)/)).toBeTruthy();
  });

  it('holds the fields while a save runs: an edit then would be lost to the saved policy read back after it', async () => {
    let finish: () => void = () => {};
    const onSave = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const { rerender } = render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    fireEvent.click(screen.getByLabelText(/Only these/));
    fireEvent.click(screen.getByLabelText(/Web search/));
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    const box = () => screen.getByLabelText(/Web search/) as HTMLInputElement;
    const daily = () => screen.getByLabelText('Daily budget (USDC, rolling 24 h)') as HTMLInputElement;
    expect(box().matches(':disabled')).toBe(true);
    expect(daily().matches(':disabled')).toBe(true);
    // The save's own refresh brings the saved policy back, then the save ends: the fields are the owner's again.
    rerender(<PolicyEditor policy={{ ...policy, allowedServices: ['web-search'] }} services={services} onSave={onSave} />);
    finish();
    await waitFor(() => expect(box().matches(':disabled')).toBe(false));
    expect(box().checked).toBe(true);
    fireEvent.click(box());
    expect(box().checked).toBe(false);
  });

  it('adds a budget from a preset and one by hand, refuses a bad row under that row, then saves the whole list', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    fireEvent.click(screen.getByRole('button', { name: '+ 50 USDC a month' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add a budget' }));
    fireEvent.change(screen.getByLabelText('Budget 2: at most'), { target: { value: '3' } });
    fireEvent.change(screen.getByLabelText('Budget 2: unit'), { target: { value: 'payments' } });
    fireEvent.change(screen.getByLabelText('Budget 2: window'), { target: { value: 'hour' } });
    fireEvent.change(screen.getByLabelText('Budget 2: for'), { target: { value: 'service' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(await screen.findByText('Budgets, item 2, service is required')).toBeTruthy();
    expect(screen.getByLabelText('Budget 2: service').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Budget 1: at most').getAttribute('aria-invalid')).toBe('false');
    expect(onSave).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('Budget 2: service'), { target: { value: 'demo-weather' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    expect(onSave).toHaveBeenCalledWith({
      budgets: [
        { amount: '50', window: 'month' },
        { count: 3, window: 'hour', service: 'demo-weather' },
      ],
    });
  });

  it('saving nothing new says so and sends nothing; an end, another warning share and a breaker are sent, with no question (they tighten)', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect((await screen.findByRole('status')).textContent).toContain('Nothing changed');
    fireEvent.click(screen.getByLabelText('At the end of a day'));
    fireEvent.change(screen.getByLabelText('Ends after this day'), { target: { value: '2999-12-31' } });
    fireEvent.change(screen.getByLabelText(/^Warn me at/), { target: { value: '50, 80, 95' } });
    fireEvent.click(screen.getByLabelText('Stop after refused payments'));
    fireEvent.change(screen.getByLabelText('Refused payments'), { target: { value: '4' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    expect(onSave).toHaveBeenCalledWith({
      expiresAt: '2999-12-31',
      warnAt: [50, 80, 95],
      breaker: { refusals: { count: 4, minutes: 10 } },
    });
  });

  it('“Ask me above” and the new-recipient box: sent as typed and ticked, refused next to the field above the max per payment', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    const askAbove = screen.getByLabelText('Ask me above (USDC)');
    expect((askAbove as HTMLInputElement).value).toBe('');
    expect(askAbove.getAttribute('aria-describedby')).toBe('askAbove-hint');
    expect(screen.getByText(/Payments above it wait for your yes/).textContent).toContain('0: every payment; empty: never');
    fireEvent.change(askAbove, { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(
      await screen.findByText(
        'Ask above (2.00 USDC) is above the max per payment (1.00 USDC), so no payment would ever be asked: set it at or below the max per payment, or none',
      ),
    ).toBeTruthy();
    expect(askAbove.getAttribute('aria-invalid')).toBe('true');
    expect(askAbove.getAttribute('aria-describedby')).toBe('askAbove-hint askAbove-error');
    expect(onSave).not.toHaveBeenCalled();
    fireEvent.change(askAbove, { target: { value: '0.5' } });
    fireEvent.click(screen.getByLabelText('Ask before the first payment to a new recipient'));
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    // Asking more often tightens: saved with no question.
    expect(onSave).toHaveBeenCalledWith({ askAbove: '0.5', askNewRecipient: true });
  });

  it('a policy that asks reads back in the fields; asking less often is confirmed first, naming it', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={{ ...policy, askAbove: '0.50', askNewRecipient: true }} services={services} onSave={onSave} />);
    expect(screen.getByLabelText<HTMLInputElement>('Ask me above (USDC)').value).toBe('0.50');
    expect(screen.getByLabelText<HTMLInputElement>('Ask before the first payment to a new recipient').checked).toBe(true);
    fireEvent.change(screen.getByLabelText('Ask me above (USDC)'), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(await screen.findByText('Ask me above 0.50 USDC → never: no payment waits for its amount.')).toBeTruthy();
    expect(onSave).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Save anyway' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledWith({ askAbove: null }));
  });

  it('asks before removing a budget, naming it; Cancel saves nothing', async () => {
    const onSave = vi.fn(async () => undefined);
    const budgeted = { ...policy, budgets: [{ amount: '50.00', window: 'month' as const }] };
    render(<PolicyEditor policy={budgeted} services={services} onSave={onSave} />);
    fireEvent.click(screen.getByRole('button', { name: 'Remove budget 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(await screen.findByText('Budget 50.00 USDC a month → removed.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onSave).not.toHaveBeenCalled();
  });

  describe('try on the last 30 days', () => {
    const KIRITIMATI = 'Pacific/Kiritimati';
    const answer = {
      agentId: 'bot',
      from: '2026-10-24T12:00:00.000Z',
      to: '2026-11-23T12:00:00.000Z',
      payments: 412,
      wouldRefuse: {
        payments: 37,
        amount: '4.20',
        byCode: { budget_exceeded: 31, max_per_payment_exceeded: 6 },
        examples: [
          {
            paymentId: 'pay_1',
            at: '2026-10-25T09:14:02.118Z',
            service: 'demo-weather',
            amount: '0.01',
            rail: 'base' as const,
            code: 'budget_exceeded',
            message: 'this payment would pass the budget of 2 payments a day',
          },
        ],
      },
      wouldHold: { payments: 0, amount: '0.00', byCode: {}, examples: [] },
    };
    afterEach(() => useDashboard.setState({ settings: null }));

    it('tries exactly what Save would send, once the typing rests, and says what it would have refused, times in the owner’s zone', async () => {
      useDashboard.setState({ settings: { timeZone: KIRITIMATI, timeZoneFrom: 'owner', preferredRail: null } });
      const tryUpdate = vi.fn(async (_update: unknown) => answer);
      const onSave = vi.fn(async () => undefined);
      render(<PolicyEditor policy={policy} services={services} onSave={onSave} tryUpdate={tryUpdate} />);
      const daily = screen.getByLabelText('Daily budget (USDC, rolling 24 h)');
      // Typed as a person types: a short gap between keys.
      fireEvent.change(daily, { target: { value: '4' } });
      await new Promise((resolve) => setTimeout(resolve, 150));
      fireEvent.change(daily, { target: { value: '4.5' } });
      const preview = await screen.findByTestId('policy-what-if');
      await waitFor(() => expect(preview.textContent).toContain('this would have refused 37'), { timeout: 2000 });
      expect(preview.textContent).toContain(
        'Over the last 30 days (412 payments) this would have refused 37 (4.20 USDC): 31 over a budget, 6 over the max per payment.',
      );
      // One request for the pause, not one per keystroke, with the very update Save sends.
      expect(tryUpdate).toHaveBeenCalledTimes(1);
      expect(tryUpdate).toHaveBeenCalledWith({ dailyBudget: '4.5' });
      const example = screen.getByTestId('what-if-example');
      // 09:14 UTC is 23:14 the same day at Kiritimati (UTC+14), not the machine's reading.
      const kiritimati = new Date(answer.wouldRefuse.examples[0]!.at).toLocaleString(undefined, {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: KIRITIMATI,
      });
      expect(example.textContent).toContain(kiritimati);
      expect(example.textContent).toMatch(/Oct 25, 2026.*11:14/);
      expect(example.textContent).toContain('demo-weather');
      expect(example.textContent).toContain('0.01 USDC on Base');
      expect(example.textContent).toContain('the budget of 2 payments a day');
      fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
      await waitFor(() => expect(onSave).toHaveBeenCalledWith(tryUpdate.mock.calls[0]![0]));
    });

    it('a change that asks first is tried too, and says how many of the payments would have waited for your yes', async () => {
      const tryUpdate = vi.fn(async (_update: unknown) => ({
        ...answer,
        wouldRefuse: { payments: 0, amount: '0.00', byCode: {}, examples: [] },
        wouldHold: { payments: 3, amount: '15.00', byCode: { ask_above: 2, new_recipient: 1 }, examples: [] },
      }));
      render(<PolicyEditor policy={policy} services={services} onSave={vi.fn()} tryUpdate={tryUpdate} />);
      fireEvent.change(screen.getByLabelText('Ask me above (USDC)'), { target: { value: '0.5' } });
      const held = await screen.findByTestId('what-if-held', undefined, { timeout: 2000 });
      expect(tryUpdate).toHaveBeenCalledWith({ askAbove: '0.5' });
      expect(held.textContent).toBe(
        '3 of those it let through (15.00 USDC) would have waited for your yes: 2 above the ask-above amount, 1 to a new recipient.',
      );
    });

    it('tries nothing while the change is invalid or there is none, says none, and says an error plainly', async () => {
      const tryUpdate = vi.fn(async (_update: unknown) => ({
        ...answer,
        wouldRefuse: { payments: 0, amount: '0.00', byCode: {}, examples: [] },
      }));
      render(<PolicyEditor policy={policy} services={services} onSave={vi.fn()} tryUpdate={tryUpdate} />);
      const daily = screen.getByLabelText('Daily budget (USDC, rolling 24 h)');
      fireEvent.change(daily, { target: { value: 'lots' } });
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(tryUpdate).not.toHaveBeenCalled();
      expect(screen.queryByTestId('policy-what-if')).toBeNull();
      fireEvent.change(daily, { target: { value: '10.00' } });
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(tryUpdate).not.toHaveBeenCalled();
      fireEvent.change(daily, { target: { value: '9' } });
      expect(
        await screen.findByText('Over the last 30 days this would have refused none of the 412 payments.', undefined, { timeout: 2000 }),
      ).toBeTruthy();
      tryUpdate.mockRejectedValueOnce(new Error('Coffer is not answering: start it again (coffer serve, or the tray app).'));
      fireEvent.change(daily, { target: { value: '8' } });
      expect(
        await screen.findByText(/Could not try this change on the last 30 days: Coffer is not answering/, undefined, { timeout: 2000 }),
      ).toBeTruthy();
      expect(tryUpdate).toHaveBeenLastCalledWith({ dailyBudget: '8' });
    });
  });
});

describe('Only these: recipient addresses and example listings', () => {
  const ADDRESS = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
  const OTHER = 'Ed8p4bYvd4Yq2QGfVcZs7s3YrBDn1rZDbqo1tFhoUeH3';

  it('adds a recipient address, validated as the server validates it, shown with the services and removable', async () => {
    const onSave = vi.fn(async () => undefined);
    render(<PolicyEditor policy={policy} services={services} onSave={onSave} />);
    fireEvent.click(screen.getByLabelText(/Only these/));
    const field = screen.getByLabelText('Or a recipient address (every payment to it is allowed)');
    fireEvent.change(field, { target: { value: 'not-an-address' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add the address' }));
    expect(
      screen.getByText('not-an-address is not an address: a Solana one (base58, 32 bytes) or a Base one (0x and 40 hex digits)'),
    ).toBeTruthy();
    expect(field.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(field, { target: { value: ` ${ADDRESS} ` } });
    fireEvent.click(screen.getByRole('button', { name: 'Add the address' }));
    expect(screen.getByTestId(`allowed-address-${ADDRESS}`).textContent).toContain(ADDRESS);
    expect((field as HTMLInputElement).value).toBe('');
    expect(screen.getByText(/Only these \(1 picked\)/)).toBeTruthy();
    fireEvent.change(field, { target: { value: OTHER } });
    fireEvent.keyDown(field, { key: 'Enter' });
    expect(screen.getByText(/Only these \(2 picked\)/)).toBeTruthy();
    // Added twice: said, not listed twice.
    fireEvent.change(field, { target: { value: ADDRESS } });
    fireEvent.click(screen.getByRole('button', { name: 'Add the address' }));
    expect(screen.getByText('This address is already allowed')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: `Remove ${OTHER}` }));
    expect(screen.queryByTestId(`allowed-address-${OTHER}`)).toBeNull();
    // A Base recipient too, typed in lower case, kept in its checksum spelling as the server keeps it (helper 192).
    const base = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    fireEvent.change(field, { target: { value: base.toLowerCase() } });
    fireEvent.click(screen.getByRole('button', { name: 'Add the address' }));
    expect(screen.getByTestId(`allowed-address-${base}`).textContent).toContain(base);
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledWith({ allowedServices: [ADDRESS, base] }));
  });

  it('an address the policy already allows is shown as one, not as a service missing from the registry', () => {
    render(<PolicyEditor policy={{ ...policy, allowedServices: ['web-search', ADDRESS] }} services={services} onSave={vi.fn()} />);
    expect(screen.getByTestId(`allowed-address-${ADDRESS}`)).toBeTruthy();
    expect(screen.queryByText(/not in the registry/)).toBeNull();
  });

  it('an example listing carries its Example badge, as in the registry', () => {
    const listed = [
      { id: 'web-search', name: 'Web search', endpoint: 'GET https://search.example/v1' },
      { id: 'demo-weather', name: 'Coffer demo weather', endpoint: 'GET http://127.0.0.1:4021/weather' },
    ] as never[];
    render(<PolicyEditor policy={{ ...policy, allowedServices: ['web-search'] }} services={listed} onSave={vi.fn()} />);
    expect(screen.getByLabelText(/Web search/).closest('label')?.textContent).toContain('Example');
    expect(screen.getByLabelText(/Coffer demo weather/).closest('label')?.textContent).not.toContain('Example');
  });
});
