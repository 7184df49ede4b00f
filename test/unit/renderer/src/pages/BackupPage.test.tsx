// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
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
