import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';

/**
 * Until the treasury is backed up (the server's `backedUp`: the recovery phrase written down, or where
 * no phrase brings it back, before phrases or on sim, a backup file holding every wallet), every page says so.
 */
export function BackupBanner() {
  const backup = useDashboard((s) => s.dashboard?.backup);
  if (!backup || backup.backedUp) return null;
  return (
    <div className="banner warning" role="note" data-testid="backup-banner">
      <strong>Not backed up</strong>: if this computer is lost, so is every wallet's money.{' '}
      <a href={hrefFor({ page: 'backup' })}>
        {backup.recoveryPhrase === 'none' || !backup.phraseRestores ? 'Make an encrypted backup file' : 'Write down your recovery phrase'}
      </a>
    </div>
  );
}
