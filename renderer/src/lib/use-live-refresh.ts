import { useEffect } from 'react';
import { openEventStream } from '../api/event-stream.js';
import { useDashboard } from '../state/store.js';
import { followServer } from './live-refresh.js';

/** While the dashboard is signed in and shown, its figures follow the server's event stream (followServer). */
export function useLiveRefresh(): void {
  const status = useDashboard((s) => s.status);
  const client = useDashboard((s) => s.client);
  const refresh = useDashboard((s) => s.refresh);
  const lostConnection = useDashboard((s) => s.lostConnection);
  const noteWarning = useDashboard((s) => s.noteWarning);
  useEffect(() => {
    if (status !== 'ready' || !client) return;
    return followServer({ open: openEventStream, eventsUrl: () => client.eventsUrl(), refresh, lostConnection, noteWarning });
  }, [status, client, refresh, lostConnection, noteWarning]);
}
