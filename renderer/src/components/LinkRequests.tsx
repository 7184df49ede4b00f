import { useEffect, useState } from 'react';
import type { WaitingLinkSession } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { shortTime } from '../lib/time.js';
import { ErrorNote } from './ErrorNote.js';

/** Who asks, as the terminal described itself (the owner compares the code with the terminal). */
const asker = (session: WaitingLinkSession): string => {
  const { name, user, hostname } = session.client as { name?: string; user?: string; hostname?: string };
  return `${name ?? 'A terminal'}${user ? ` (user ${user})` : ''}${hostname ? ` on ${hostname}` : ''}`;
};

/**
 * Terminals waiting to be linked (`coffer link`): anyone on this machine may ask, so the owner sees
 * every request with the code its terminal shows, and clears the ones they did not start.
 */
export function LinkRequests() {
  const { client, dashboard } = useDashboard();
  const [sessions, setSessions] = useState<WaitingLinkSession[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = () =>
    client?.linkRequests().then(
      (r) => setSessions(r.sessions),
      (e: Error) => setError(e.message),
    );
  // Requests come and go without other events: read them again at every refresh.
  useEffect(() => {
    void load();
  }, [client, dashboard]);
  const clear = async (ids?: string[]) => {
    if (!client) return;
    setBusy(true);
    try {
      await client.clearLinkRequests(ids);
      setError(null);
      await load();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  if (sessions.length === 0) return <ErrorNote error={error} />;
  return (
    <section className="card" aria-labelledby="link-requests-title">
      <div className="section-head">
        <h2 id="link-requests-title">Terminals asking to link ({sessions.length})</h2>
        <button type="button" className="button" disabled={busy} onClick={() => clear()}>
          Clear all
        </button>
      </div>
      <p className="muted">
        Each was started by <code>coffer link</code> on this machine and waits for you to open the link it printed. Clear the ones you did
        not start: their terminals are told there is nothing to wait for.
      </p>
      <ErrorNote error={error} />
      <ul className="approvals">
        {sessions.map((session) => (
          <li key={session.id} className="approval" data-testid="link-request">
            <div>
              <strong>{asker(session)}</strong> · code <code>{session.code}</code>
              <div className="muted">
                asked {shortTime(session.createdAt)} ·{' '}
                {session.lastPolledAt ? `last seen ${shortTime(session.lastPolledAt)}` : 'never seen since'}
                {session.opened ? ' · you opened its page' : ''}
              </div>
            </div>
            <div className="actions">
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() => clear([session.id])}
                aria-label={`Clear the request with code ${session.code}`}
              >
                Clear
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
