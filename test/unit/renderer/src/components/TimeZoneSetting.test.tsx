// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { TimeZoneSetting } from '../../../../../renderer/src/components/TimeZoneSetting.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { CofferApiError } from '../../../../../renderer/src/api/client.js';
import type { Settings } from '../../../../../renderer/src/api/types.js';

const KIRITIMATI = 'Pacific/Kiritimati';
const FRESH_ONLY =
  "this moves money or lets an agent spend more, which needs a sign-in from the last 10 minutes: sign in again (run coffer open, or use the tray's Open dashboard) and try again";

const updateSettings = vi.fn<(body: { timeZone: string | null }) => Promise<Settings>>();
const refresh = vi.fn(async () => undefined);

const inZone = (timeZone: string, timeZoneFrom: Settings['timeZoneFrom'] = 'owner') => {
  useDashboard.setState({ settings: { timeZone, timeZoneFrom, preferredRail: null } });
};

beforeEach(() => {
  updateSettings.mockReset();
  useDashboard.setState({
    client: { updateSettings } as never,
    refresh,
    settings: { timeZone: 'UTC', timeZoneFrom: 'machine', preferredRail: null },
  });
});
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, settings: null });
});

describe('the time zone setting', () => {
  it('says the zone in force and that it is the computer’s; a zone searched and picked is saved and then said as the owner’s', async () => {
    updateSettings.mockImplementation(async ({ timeZone }) => ({ timeZone: timeZone!, timeZoneFrom: 'owner', preferredRail: null }));
    render(<TimeZoneSetting />);
    expect(screen.getByTestId('time-zone').textContent).toBe("UTC · this computer's");
    fireEvent.click(screen.getByRole('button', { name: 'Change the time zone' }));
    expect(screen.getByLabelText<HTMLInputElement>(/Follow this computer \(UTC\)/).checked).toBe(true);
    fireEvent.click(screen.getByLabelText('Choose a zone'));
    fireEvent.change(screen.getByLabelText('Search time zones'), { target: { value: 'kiri' } });
    const list = screen.getByLabelText<HTMLSelectElement>('Time zone');
    expect([...list.options].map((option) => option.textContent)).toEqual(['Pacific/Kiritimati (UTC+14:00)']);
    expect(list.value).toBe(KIRITIMATI);
    fireEvent.click(screen.getByRole('button', { name: 'Save time zone' }));
    await waitFor(() => expect(screen.getByTestId('time-zone').textContent).toBe('Pacific/Kiritimati UTC+14:00 · set by you'));
    expect(updateSettings).toHaveBeenCalledWith({ timeZone: KIRITIMATI });
    expect(useDashboard.getState().settings).toEqual({ timeZone: KIRITIMATI, timeZoneFrom: 'owner', preferredRail: null });
    expect(refresh).toHaveBeenCalled();
    expect(screen.queryByRole('form', { name: 'Time zone setting' })).toBeNull();
  });

  it('the server’s refusal is said next to the field, in its words, and nothing changes', async () => {
    updateSettings.mockRejectedValue(new CofferApiError(403, 'confirmation_required', FRESH_ONLY));
    render(<TimeZoneSetting />);
    fireEvent.click(screen.getByRole('button', { name: 'Change the time zone' }));
    fireEvent.click(screen.getByLabelText('Choose a zone'));
    fireEvent.change(screen.getByLabelText('Search time zones'), { target: { value: 'new york' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save time zone' }));
    expect((await screen.findByRole('alert')).textContent).toBe(FRESH_ONLY);
    expect(screen.getByRole('alert').id).toBe('time-zone-error');
    expect(screen.getByLabelText('Time zone').getAttribute('aria-describedby')).toBe('time-zone-error');
    expect(updateSettings).toHaveBeenCalledWith({ timeZone: 'America/New_York' });
    expect(useDashboard.getState().settings).toEqual({ timeZone: 'UTC', timeZoneFrom: 'machine', preferredRail: null });
  });

  it('a search that finds nothing saves nothing and says so; Follow this computer sends null', async () => {
    inZone(KIRITIMATI);
    updateSettings.mockResolvedValue({ timeZone: 'UTC', timeZoneFrom: 'machine', preferredRail: null });
    render(<TimeZoneSetting />);
    expect(screen.getByTestId('time-zone').textContent).toContain('set by you');
    fireEvent.click(screen.getByRole('button', { name: 'Change the time zone' }));
    // The zone in force is the one picked at first.
    expect(screen.getByLabelText<HTMLSelectElement>('Time zone').value).toBe(KIRITIMATI);
    fireEvent.change(screen.getByLabelText('Search time zones'), { target: { value: 'Atlantis' } });
    expect(screen.getByText('No time zone matches “Atlantis”.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save time zone' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Time zone: pick one from the list, or choose Follow this computer');
    expect(updateSettings).not.toHaveBeenCalled();
    fireEvent.click(screen.getByLabelText('Follow this computer'));
    fireEvent.click(screen.getByRole('button', { name: 'Save time zone' }));
    await waitFor(() => expect(updateSettings).toHaveBeenCalledWith({ timeZone: null }));
    await waitFor(() => expect(screen.getByTestId('time-zone').textContent).toContain("this computer's"));
  });
});
