// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { BackupPage } from '../../../../../renderer/src/pages/BackupPage.js';
import { BackupBanner } from '../../../../../renderer/src/components/BackupBanner.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import type { BackupStatus } from '../../../../../server/wire/answers/backup.js';
import { backupStatusWith as status } from '../../../../fixtures/backup-status.js';
const showing = (backup: BackupStatus) =>
  useDashboard.setState({
    client: {} as never,
    dashboard: { backup, agents: [], archivedAgents: [], treasury: { baseNetwork: 'base-sepolia' } } as never,
    settings: { timeZone: 'UTC', timeZoneFrom: 'owner', preferredRail: null },
  });

afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, dashboard: null, settings: null });
});

describe('the Back up page: what the recovery phrase brings back', () => {
  it('where a phrase restores the treasury: both rails and the wallet apps that read it; written down, backed up', () => {
    showing(status({}));
    render(<BackupPage />);
    expect(screen.getByText(/^One phrase of 24 words/).textContent).toContain(
      'restores the treasury and every agent wallet, on Solana and on Base: on a new computer, or in a wallet app (Phantom or Solflare for Solana, MetaMask for Base).',
    );
    cleanup();
    showing(status({ recoveryPhrase: 'confirmed', confirmedAt: '2026-12-01T10:00:00.000Z', backedUp: true }));
    render(<BackupPage />);
    expect(screen.getByRole('status').textContent).toBe(
      'Backed up on Dec 1, 2026, 10:00 AM: your recovery phrase restores the treasury and every agent wallet, on Solana and on Base.',
    );
  });

  it('on sim: the phrase holds the keys but no test money, so a file is what backs it up, and the banner leads there', () => {
    showing(status({ recoveryPhrase: 'confirmed', confirmedAt: '2026-12-01T10:00:00.000Z', phraseRestores: false }));
    render(
      <>
        <BackupBanner />
        <BackupPage />
      </>,
    );
    expect(screen.getAllByRole('status')[0]!.textContent).toBe('Written down on Dec 1, 2026, 10:00 AM.');
    expect(screen.getByTestId('phrase-on-sim').textContent).toContain('On sim, their test money lives in this data dir');
    expect(screen.getAllByRole('note').map((note) => note.textContent)).toEqual([
      "Not backed up: if this computer is lost, so is every wallet's money. Make an encrypted backup file",
      'Not backed up: on sim, only a backup file brings the test money back, and none was written yet.',
    ]);
  });
});

describe('the recovery phrase checked', () => {
  const words = Array.from({ length: 24 }, (_, i) => `word${i + 1}`);
  it('hides the words once the owner says they are written down, then asks three back; one left empty is named, nothing sent', async () => {
    const client = {
      revealRecoveryPhrase: vi.fn().mockResolvedValue({ words, confirm: [3, 18, 21] }),
      confirmRecoveryPhrase: vi.fn(),
    };
    showing(status({}));
    useDashboard.setState({ client: client as never });
    render(<BackupPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Show the recovery phrase' }));
    expect((await screen.findByRole('list', { name: 'Recovery phrase' })).textContent).toContain('word24');
    // Typed back while the words are on screen, a check would prove little.
    expect(screen.queryByLabelText(/^Word #/)).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'I have written it down' }));
    expect(screen.queryByRole('list', { name: 'Recovery phrase' })).toBeNull();
    expect(screen.getAllByLabelText(/^Word #/).map((input) => input.closest('label')!.textContent)).toEqual([
      'Word #3 ',
      'Word #18 ',
      'Word #21 ',
    ]);
    fireEvent.change(screen.getByLabelText(/^Word #3/), { target: { value: 'word3' } });
    fireEvent.click(screen.getByRole('button', { name: 'Check' }));
    expect(screen.getByRole('alert').textContent).toBe('Type word #18 and word #21 from your paper first.');
    expect(client.confirmRecoveryPhrase).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText(/^Word #3/), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Check' }));
    expect(screen.getByRole('alert').textContent).toBe('Type word #3, word #18 and word #21 from your paper first.');
    // The words can be shown again (the check's error let go), and hidden to be checked again.
    fireEvent.click(screen.getByRole('button', { name: 'Show the words again' }));
    expect(screen.getByRole('list', { name: 'Recovery phrase' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
