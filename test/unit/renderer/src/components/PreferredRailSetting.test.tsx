// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { PreferredRailSetting } from '../../../../../renderer/src/components/PreferredRailSetting.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { CofferApiError } from '../../../../../renderer/src/api/client.js';
import type { Settings } from '../../../../../renderer/src/api/types.js';

const updateSettings = vi.fn<(body: { preferredRail?: 'sol' | 'base' | null }) => Promise<Settings>>();
const settings: Settings = { timeZone: 'UTC', timeZoneFrom: 'machine', preferredRail: null };

beforeEach(() => {
  updateSettings.mockReset();
  useDashboard.setState({ client: { updateSettings } as never, settings });
});
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, settings: null, dashboard: null });
});

describe('the preferred rail setting', () => {
  it('says none is preferred and what decides then; Base picked is saved alone and then said as the owner’s', async () => {
    updateSettings.mockImplementation(async ({ preferredRail }) => ({ ...settings, preferredRail: preferredRail ?? null }));
    render(<PreferredRailSetting />);
    expect(screen.getByTestId('preferred-rail').textContent).toBe('None preferred');
    expect(screen.getByText(/the agent pays from the wallet that holds the amount, Solana first/)).toBeTruthy();
    // What it is for, and what it is not: coffer pay is on the rail it names.
    expect(
      screen.getByText(/a payment asked for directly \(coffer pay, \/v1\/pay\) is on the rail it names, Solana unless told\.$/),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Change the preferred rail' }));
    expect(screen.getByLabelText<HTMLInputElement>('Where the funds are (Solana first)').checked).toBe(true);
    fireEvent.click(screen.getByLabelText('Base'));
    fireEvent.click(screen.getByRole('button', { name: 'Save preferred rail' }));
    await waitFor(() => expect(screen.getByTestId('preferred-rail').textContent).toBe('Base · set by you'));
    // Only the rail is sent: the time zone (and its fresh sign-in) is not touched.
    expect(updateSettings).toHaveBeenCalledWith({ preferredRail: 'base' });
    expect(useDashboard.getState().settings).toEqual({ ...settings, preferredRail: 'base' });
    expect(screen.getByText(/pays on Base when its wallet there holds the amount, else from the other/)).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Preferred rail setting' })).toBeNull();
  });

  it('sends nothing when the choice is unchanged, and says a refusal in the server’s words, changing nothing', async () => {
    render(<PreferredRailSetting />);
    fireEvent.click(screen.getByRole('button', { name: 'Change the preferred rail' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save preferred rail' }));
    expect(updateSettings).not.toHaveBeenCalled();

    updateSettings.mockRejectedValue(new CofferApiError(401, 'unauthorized', 'sign in again'));
    fireEvent.click(screen.getByRole('button', { name: 'Change the preferred rail' }));
    fireEvent.click(screen.getByLabelText('Solana'));
    fireEvent.click(screen.getByRole('button', { name: 'Save preferred rail' }));
    expect((await screen.findByRole('alert')).textContent).toBe('sign in again');
    expect(updateSettings).toHaveBeenCalledWith({ preferredRail: 'sol' });
    expect(useDashboard.getState().settings).toEqual(settings);
  });

  it('is not offered where the Base rail is off, unless a preference set before is there to be cleared', () => {
    // A Base account is filed for the treasury whether or not the rail is open: the rail's network says.
    const offBase = (baseNetwork: string | null) =>
      useDashboard.setState({
        dashboard: { treasury: { wallets: { sol: 'So1ana', base: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }, baseNetwork } } as never,
      });
    offBase(null);
    const { rerender } = render(<PreferredRailSetting />);
    expect(screen.queryByTestId('preferred-rail')).toBeNull();
    useDashboard.setState({ settings: { ...settings, preferredRail: 'base' } });
    rerender(<PreferredRailSetting />);
    expect(screen.getByTestId('preferred-rail').textContent).toBe('Base · set by you');
    // Set to Solana there: Base is no longer offered.
    useDashboard.setState({ settings: { ...settings, preferredRail: 'sol' } });
    rerender(<PreferredRailSetting />);
    fireEvent.click(screen.getByRole('button', { name: 'Change the preferred rail' }));
    expect(screen.getByLabelText('Solana')).toBeTruthy();
    expect(screen.queryByLabelText('Base')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    useDashboard.setState({ settings });
    offBase('sim');
    rerender(<PreferredRailSetting />);
    expect(screen.getByTestId('preferred-rail').textContent).toBe('None preferred');
  });
});
