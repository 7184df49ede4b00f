import { useEffect, useState } from 'react';
import { useDashboard } from './state/store.js';
import { hrefFor, useRoute, type Route } from './lib/route.js';
import { SuspendedBanner } from './components/SuspendedBanner.js';
import { Money } from './components/Money.js';
import { Overview } from './pages/Overview.js';
import { AgentPage } from './pages/AgentPage.js';
import { ActivityPage } from './pages/ActivityPage.js';
import { RegistryPage } from './pages/RegistryPage.js';

/** How often the dashboard asks the server again (activity, balances, statuses). */
const REFRESH_MS = 2000;

type Theme = 'light' | 'dark';

function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => {
    const saved = localStorage.getItem('coffer-theme');
    if (saved === 'light' || saved === 'dark') return saved;
    return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  });
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('coffer-theme', theme);
  }, [theme]);
  return [theme, () => setTheme((t) => (t === 'dark' ? 'light' : 'dark'))];
}

const NAV: { route: Route; label: string }[] = [
  { route: { page: 'overview' }, label: 'Overview' },
  { route: { page: 'activity' }, label: 'Activity' },
  { route: { page: 'registry' }, label: 'Registry' },
];

export function App() {
  const { status, dashboard, refreshError, init, refresh } = useDashboard();
  const route = useRoute();
  const [theme, toggleTheme] = useTheme();

  useEffect(() => {
    void init();
  }, [init]);
  useEffect(() => {
    if (status !== 'ready') return;
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [status, refresh]);

  if (status === 'loading') return <p className="loading">Loading…</p>;
  if (status === 'signed-out') {
    return (
      <main className="signed-out">
        <h1>Sign in to Coffer</h1>
        <p>
          Open the one-time login link that <code>coffer serve</code> printed when it started (or the tray app's “Open dashboard”). A
          link works once, for ten minutes; restart <code>coffer serve</code> for a new one.
        </p>
      </main>
    );
  }

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <a className="brand" href={hrefFor({ page: 'overview' })}>
          Coffer
        </a>
        <nav aria-label="Main">
          {NAV.map(({ route: target, label }) => (
            <a key={label} href={hrefFor(target)} aria-current={route.page === target.page ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        {dashboard && (
          <span className="top-balance" title="Treasury balance">
            <Money micro={dashboard.treasury.amount} /> <span className={`network ${dashboard.treasury.network}`}>{dashboard.treasury.network}</span>
          </span>
        )}
        <button type="button" className="button small ghost" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>
          {theme === 'dark' ? 'Light' : 'Dark'}
        </button>
      </header>
      <SuspendedBanner />
      {refreshError && (
        <div className="banner error" role="alert">
          Could not refresh: {refreshError}
        </div>
      )}
      <main id="main">
        {route.page === 'overview' && <Overview />}
        {route.page === 'agent' && <AgentPage agentId={route.agentId} />}
        {route.page === 'activity' && <ActivityPage />}
        {route.page === 'registry' && <RegistryPage />}
      </main>
    </>
  );
}
