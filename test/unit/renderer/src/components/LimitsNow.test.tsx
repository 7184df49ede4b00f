// @vitest-environment jsdom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { LimitsNow } from '../../../../../renderer/src/components/LimitsNow.js';
import { PolicyEditor } from '../../../../../renderer/src/components/PolicyEditor.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { browserTimeZone, dayWords } from '../../../../../renderer/src/lib/time-zone.js';
import { dateTime } from '../../../../../renderer/src/lib/time.js';
import type { Settings } from '../../../../../renderer/src/api/types.js';
import { withModalDialogs } from '../../../../fixtures/jsdom-page.js';

const KIRITIMATI = 'Pacific/Kiritimati';
/** A zone other than this process's (the browser's here), for what is said only where they differ. */
const ELSEWHERE = browserTimeZone() === KIRITIMATI ? 'Pacific/Pago_Pago' : KIRITIMATI;

const policy = vi.fn();
const inZone = (timeZone: string, timeZoneFrom: Settings['timeZoneFrom'] = 'owner') => {
  useDashboard.setState({ settings: { timeZone, timeZoneFrom, preferredRail: null } });
};

beforeAll(withModalDialogs);
beforeEach(() => {
  policy.mockReset();
  useDashboard.setState({ client: { policy } as never });
});
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, settings: null });
});

describe('the agent page follows the owner’s time zone, not the browser’s', () => {
  /** The end of Mar 31, 2027 in Kiritimati (UTC+14), and the start of December there, as the server answers them. */
  const endOfMarch31 = '2027-03-31T10:00:00.000Z';
  const december = '2026-11-30T10:00:00.000Z';
  const answer = {
    policy: { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [], expiresAt: endOfMarch31 },
    spent24h: '0.00',
    budgets: [{ amount: '50.00', window: 'month', spent: '0.00', remaining: '50.00', resetsAt: december }],
  };

  it('Limits now: the reset and the end in the zone, the zone said once; read again when the zone changes', async () => {
    inZone(KIRITIMATI);
    policy.mockResolvedValue(answer);
    render(<LimitsNow agentId="bot" refreshKey="1" />);
    const row = await screen.findByTestId('budget-now');
    expect(row.textContent).toContain(dateTime(december, KIRITIMATI));
    expect(dateTime(december, KIRITIMATI)).toBe(dateTime('2026-12-01T00:00:00.000Z', 'UTC'));
    expect(screen.getByTestId('policy-end').textContent).toBe(`at the end of ${dayWords('2027-03-31')}`);
    if (browserTimeZone() !== KIRITIMATI) {
      expect(screen.getByTestId('limits-zone').textContent).toMatch(/^Times in Pacific\/Kiritimati: your time zone/);
    }
    expect(policy).toHaveBeenCalledTimes(1);
    inZone(browserTimeZone(), 'machine');
    await waitFor(() => expect(policy).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.queryByTestId('limits-zone')).toBeNull());
    expect(screen.getByTestId('budget-now').textContent).toContain(dateTime(december, browserTimeZone()));
  });

  it('Limits now says which payments wait for the owner’s yes, when the policy asks, and nothing of it when it does not', async () => {
    inZone(browserTimeZone(), 'machine');
    policy.mockResolvedValueOnce({ ...answer, policy: { ...answer.policy, askAbove: '2.00', askNewRecipient: true } });
    const { unmount } = render(<LimitsNow agentId="bot" refreshKey="1" />);
    expect((await screen.findByTestId('policy-asks')).textContent).toBe(
      'payments above 2.00 USDC and the first payment to a new recipient',
    );
    unmount();
    policy.mockResolvedValueOnce({ ...answer, policy: { ...answer.policy, askAbove: '0.00' } });
    const every = render(<LimitsNow agentId="bot" refreshKey="2" />);
    expect((await screen.findByTestId('policy-asks')).textContent).toBe('every payment');
    every.unmount();
    policy.mockResolvedValueOnce(answer);
    render(<LimitsNow agentId="bot" refreshKey="3" />);
    await screen.findByTestId('policy-breaker');
    expect(screen.queryByTestId('policy-asks')).toBeNull();
    expect(screen.queryByText('Waits for your yes')).toBeNull();
  });

  it("Limits now says apart what of the daily budget's use waits for the owner's yes, not paid", async () => {
    inZone(browserTimeZone(), 'machine');
    policy.mockResolvedValueOnce({ ...answer, spent24h: '3.00', held24h: '2.50' });
    const { unmount } = render(<LimitsNow agentId="bot" refreshKey="1" />);
    expect((await screen.findByTestId('held-note')).textContent).toBe('(2.50 USDC of it held for your yes, not paid)');
    unmount();
    policy.mockResolvedValueOnce({ ...answer, held24h: '0.00' });
    render(<LimitsNow agentId="bot" refreshKey="2" />);
    await screen.findByTestId('policy-breaker');
    expect(screen.queryByTestId('held-note')).toBeNull();
  });

  it('the policy editor reads the end there and refuses a day already over there', async () => {
    inZone(ELSEWHERE);
    const onSave = vi.fn(async () => undefined);
    const ending = { ...answer.policy, expiresAt: ELSEWHERE === KIRITIMATI ? endOfMarch31 : '2027-04-01T11:00:00.000Z' };
    render(<PolicyEditor policy={ending} services={[]} onSave={onSave} />);
    expect(screen.getByLabelText<HTMLInputElement>('At the end of a day').checked).toBe(true);
    expect(screen.getByLabelText<HTMLInputElement>('Ends after this day').value).toBe('2027-03-31');
    expect(screen.getByTestId('end-zone').textContent).toContain(`in ${ELSEWHERE}`);
    // Yesterday there is over, whatever the browser's zone.
    const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: ELSEWHERE }).format(Date.now() - 86_400_000);
    fireEvent.change(screen.getByLabelText('Ends after this day'), { target: { value: yesterday } });
    fireEvent.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(
      await screen.findByText(`Expires ${yesterday} is in the past; name a later day or time, or stop the agent with its kill switch`),
    ).toBeTruthy();
    expect(onSave).not.toHaveBeenCalled();
  });
});
