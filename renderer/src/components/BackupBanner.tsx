import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';

/** Until the recovery phrase was written down, every page says the treasury is not backed up. */
export function BackupBanner() {
  const backup = useDashboard((s) => s.dashboard?.backup);
  if (backup?.recoveryPhrase !== 'not_confirmed') return null;
  return (
    <div className="banner warning" role="note" data-testid="backup-banner">
      <strong>Not backed up</strong>: if this computer is lost, so is every wallet's money.{' '}
      <a href={hrefFor({ page: 'backup' })}>Write down your recovery phrase</a>
    </div>
  );
}
