import { OFFLINE_MESSAGE } from '../api/client.js';
import type { Route } from '../lib/route.js';
import { useDashboard } from '../state/store.js';
import { BackupBanner } from './BackupBanner.js';
import { SuspendedBanner } from './SuspendedBanner.js';
import { WarningsBanner } from './WarningsBanner.js';

/**
 * The banners above every page: a sign-out that failed; then, while the server does not answer, only
 * that; otherwise stopped agents, warnings, a missing backup (not on the backup page itself) and a
 * refresh that failed.
 */
export function StatusBanners({ route, signOutError }: { route: Route; signOutError: string | null }) {
  const connection = useDashboard((s) => s.connection);
  const refreshError = useDashboard((s) => s.refreshError);
  return (
    <>
      {signOutError && (
        <div className="banner error" role="alert">
          Could not sign out: {signOutError}
        </div>
      )}
      {connection === 'reconnecting' ? (
        <div className="banner offline" role="alert" data-testid="connection-banner">
          <strong>Disconnected, reconnecting…</strong> {OFFLINE_MESSAGE} The figures below are the last ones it sent; nothing can be changed
          until it answers.
        </div>
      ) : (
        <>
          <SuspendedBanner />
          <WarningsBanner />
          {route.page !== 'backup' && <BackupBanner />}
          {refreshError && (
            <div className="banner error" role="alert">
              Could not refresh: {refreshError}
            </div>
          )}
        </>
      )}
    </>
  );
}
