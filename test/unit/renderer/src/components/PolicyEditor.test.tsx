// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { PolicyEditor } from '../../../../../renderer/src/components/PolicyEditor.js';

afterEach(cleanup);

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
    expect(onSave).toHaveBeenCalledWith({ dailyBudget: '4.5', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: ['web-search'] });
    expect((await screen.findByRole('alert')).textContent).toContain('loosening needs the owner');
    expect(screen.getByText(/Only these \(1 picked\)/)).toBeTruthy();
  });
});
