// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { PolicyEditor } from '../../../../../renderer/src/components/PolicyEditor.js';

afterEach(cleanup);
// jsdom has no modal dialogs: opening one only marks it open.
beforeAll(() => {
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.open = false;
  };
});

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
});
