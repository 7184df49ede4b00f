import { useEffect, useState } from 'react';
import { useDashboard, warningOf } from './state/store.js';
import { hrefFor, titleFor, useRoute, type Route } from './lib/route.js';
import { SuspendedBanner } from './components/SuspendedBanner.js';
import { BackupBanner } from './components/BackupBanner.js';
import { WarningsBanner } from './components/WarningsBanner.js';
import { BackupPage } from './pages/BackupPage.js';
import { Money } from './components/Money.js';
import { Overview } from './pages/Overview.js';
import { AgentPage } from './pages/AgentPage.js';
import { ActivityPage } from './pages/ActivityPage.js';
import { RegistryPage } from './pages/RegistryPage.js';
import { ApprovalsPage } from './pages/ApprovalsPage.js';
import { LinkPage } from './pages/LinkPage.js';
import { openEventStream } from './api/event-stream.js';
import { OFFLINE_MESSAGE } from './api/client.js';
import { networkChip } from '../../server/wire/network-words.js';

/**
 * The dashboard refreshes when the server's event stream says something happened; this slower poll
 * is only the safety net if the stream drops.
 */
const FALLBACK_REFRESH_MS = 15_000;
/** How long after a live event the dashboard refreshes: a burst of events is one refresh (the scale bench refreshes at this pace). */
const LIVE_REFRESH_DELAY_MS = 150;
/** How soon a dropped event stream is opened again. */
const STREAM_RETRY_MS = 2_000;
const LIVE_EVENTS = new Set([
  'payment',
  'payment_refused',
  'allocation',
  'return',
  'refund',
  'agent',
  'approval',
  'deposit',
  'policy',
  'task',
  'warning',
]);

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
  { route: { page: 'approvals' }, label: 'Approvals' },
  { route: { page: 'registry' }, label: 'Registry' },
];

export function App() {
  const {
    status,
    signInProblem,
    signedOut,
    dashboard,
    refreshError,
    connection,
    init,
    refresh,
    lostConnection,
    noteWarning,
    client,
    pendingApprovals,
    signOut,
  } = useDashboard();
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const route = useRoute();
  const [theme, toggleTheme] = useTheme();

  useEffect(() => {
    void init();
  }, [init]);
  const agentName = route.page === 'agent' ? dashboard?.agents.find((a) => a.agentId === route.agentId)?.displayName : undefined;
  useEffect(() => {
    document.title = status === 'signed-out' ? 'Sign in · Coffer' : titleFor(route, agentName);
  }, [route, agentName, status]);
  useEffect(() => {
    if (status !== 'ready' || !client) return;
    const timer = setInterval(() => void refresh(), FALLBACK_REFRESH_MS);
    // Live: every payment, refusal, approval, kill or deposit triggers one refresh (bursts coalesce).
    let pending: ReturnType<typeof setTimeout> | null = null;
    let reconnect: ReturnType<typeof setTimeout> | null = null;
    const onEvent = (type: string, data: unknown) => {
      if (!LIVE_EVENTS.has(type)) return;
      // A warning's words are shown as they came (the row's mark and figures follow from the refresh).
      const warning = type === 'warning' ? warningOf(data) : null;
      if (warning) noteWarning(warning);
      pending ??= setTimeout(() => {
        pending = null;
        void refresh();
      }, LIVE_REFRESH_DELAY_MS);
    };
    let close = () => {};
    const connect = () => {
      close = openEventStream(
        client.eventsUrl(),
        onEvent,
        () => {
          // The stream dropped (a restart, a sleep): the figures on screen are stale until a refresh
          // works again (which also notices a sign-out); reconnect.
          lostConnection();
          void refresh();
          reconnect = setTimeout(connect, STREAM_RETRY_MS);
        },
        // Open again: what changed meanwhile was not announced on it, so read everything once.
        () => void refresh(),
      );
    };
    connect();
    return () => {
      clearInterval(timer);
      close();
      if (pending) clearTimeout(pending);
      if (reconnect) clearTimeout(reconnect);
    };
  }, [status, client, refresh, lostConnection, noteWarning]);

  if (status === 'loading') return <p className="loading">Loading…</p>;
  if (status === 'signed-out') {
    return (
      <main className="signed-out">
        <h1>Sign in to Coffer</h1>
        {signedOut && <p role="status">Signed out: this tab's session no longer works, here or anywhere it was copied.</p>}
        {signInProblem && (
          <p className="error-note" role="alert">
            {signInProblem}
          </p>
        )}
        <p>
          Run <code>coffer open</code> in a terminal (or use the tray app's “Open dashboard”): it opens this page signed in. A login link
          works once, for ten minutes, and signs in this tab only.
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
              {target.page === 'approvals' && pendingApprovals.length > 0 && (
                <span className="badge" aria-label={`${pendingApprovals.length} waiting`}>
                  {pendingApprovals.length}
                </span>
              )}
            </a>
          ))}
        </nav>
        {dashboard && (
          <span className={connection === 'reconnecting' ? 'top-balance stale' : 'top-balance'} title="Treasury balance">
            <Money micro={dashboard.treasury.amount} />{' '}
            <span className={`network ${dashboard.treasury.network}`}>{networkChip(dashboard.treasury.network)}</span>
          </span>
        )}
        <button
          type="button"
          className="button small ghost"
          onClick={toggleTheme}
          aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
        >
          {theme === 'dark' ? 'Light' : 'Dark'}
        </button>
        <button
          type="button"
          className="button small ghost"
          onClick={() => void signOut().catch((error: Error) => setSignOutError(error.message))}
        >
          Sign out
        </button>
      </header>
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
      {/* While the server does not answer, the page is greyed and inert: no switch looks live. */}
      <main id="main" className={connection === 'reconnecting' ? 'stale' : undefined} inert={connection === 'reconnecting'}>
        {route.page === 'overview' && <Overview />}
        {/* Keyed by agent: nothing of one agent's page (its history, its images) lingers on another's. */}
        {route.page === 'agent' && <AgentPage key={route.agentId} agentId={route.agentId} />}
        {route.page === 'activity' && <ActivityPage />}
        {route.page === 'registry' && <RegistryPage />}
        {route.page === 'approvals' && <ApprovalsPage />}
        {route.page === 'backup' && <BackupPage />}
        {route.page === 'link' && <LinkPage token={route.token} />}
        {route.page === 'not-found' && (
          <section className="card" aria-labelledby="not-found-title">
            <h2 id="not-found-title">Nothing here</h2>
            <p>
              There is no page at <code>#/{route.path}</code>. <a href={hrefFor({ page: 'overview' })}>Back to the overview</a>.
            </p>
          </section>
        )}
      </main>
    </>
  );
}
