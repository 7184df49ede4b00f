import type { openEventStream } from '../api/event-stream.js';
import { warningOf, type Warning } from '../state/warnings.js';

/**
 * The dashboard refreshes when the server's event stream says something happened; this slower poll
 * is only the safety net if the stream drops.
 */
export const FALLBACK_REFRESH_MS = 15_000;
/** How long after a live event the dashboard refreshes: a burst of events is one refresh (the scale bench refreshes at this pace). */
export const LIVE_REFRESH_DELAY_MS = 150;
/** How soon a dropped event stream is opened again. */
export const STREAM_RETRY_MS = 2_000;
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

/** What following the server needs: its event stream, and the store's actions it drives. */
export interface Follow {
  open: typeof openEventStream;
  eventsUrl: () => string;
  refresh: () => Promise<void>;
  lostConnection: () => void;
  noteWarning: (warning: Warning) => void;
}

/**
 * Keeps the dashboard's figures live: every payment, refusal, approval, kill or deposit on the event
 * stream triggers one refresh (bursts coalesce), a dropped stream is opened again, and a slow poll
 * covers the time it is down. Returns the function that stops all of it.
 */
export function followServer({ open, eventsUrl, refresh, lostConnection, noteWarning }: Follow): () => void {
  const timer = setInterval(() => void refresh(), FALLBACK_REFRESH_MS);
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
    close = open(
      eventsUrl(),
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
}
