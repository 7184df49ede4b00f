import { useEffect, useState } from 'react';
import { useDashboard } from './state/store.js';
import { useRoute } from './lib/route.js';
import { useDocumentTitle } from './lib/use-document-title.js';
import { usePageTop } from './lib/use-page-top.js';
import { useLiveRefresh } from './lib/use-live-refresh.js';
import { useTheme } from './lib/use-theme.js';
import { StatusBanners } from './components/StatusBanners.js';
import { TopBar } from './components/TopBar.js';
import { RoutedPage } from './pages/RoutedPage.js';
import { SignedOutPage } from './pages/SignedOutPage.js';

/** The dashboard: signed in, the bar, the banners and the page the address names, its figures live; else the sign-in page. */
export function App() {
  // The whole store, not a part: every refresh renders the dashboard again, which keeps what its pages
  // work out from the clock (an end passed, a budget's window, today's times) current.
  const { status, connection, init } = useDashboard();
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const route = useRoute();
  const [theme, toggleTheme] = useTheme();
  useEffect(() => {
    void init();
  }, [init]);
  useDocumentTitle(route);
  usePageTop(route);
  useLiveRefresh();

  if (status === 'loading') return <p className="loading">Loading…</p>;
  if (status === 'signed-out') return <SignedOutPage />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <TopBar route={route} theme={theme} onToggleTheme={toggleTheme} onSignOutError={setSignOutError} />
      <StatusBanners route={route} signOutError={signOutError} />
      {/* While the server does not answer, the page is greyed and inert: no switch looks live. */}
      <main id="main" className={connection === 'reconnecting' ? 'stale' : undefined} inert={connection === 'reconnecting'}>
        <RoutedPage route={route} />
      </main>
    </>
  );
}
