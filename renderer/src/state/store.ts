import { create } from 'zustand';
import { CofferApiError, createClient, fetchSession, signIn, signOut as signOutOfServer, type Client } from '../api/client.js';
import { forgetSessionToken, keepSessionToken, sessionToken } from '../api/credential.js';
import type { Approval, Dashboard, Deposit, Session, Settings } from '../api/types.js';
import { browserTimeZone } from '../lib/time-zone.js';

export type Status = 'loading' | 'signed-out' | 'ready';
/** Whether the figures on screen are the server's current ones, or the last before it stopped answering. */
export type Connection = 'live' | 'reconnecting';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A warning the server sent on its event stream while this tab was open: a budget past one of the
 * owner's shares, or a policy ending within a day. Its words live only in the event (the figures
 * behind it are read through /v1), so the tab keeps the few latest until the owner dismisses them.
 */
export interface Warning {
  agentId: string;
  about: 'budget' | 'expiry';
  message: string;
  at: string;
}
/** How many warnings are kept on screen: the latest, newest first. */
const WARNINGS_KEPT = 3;

/** A `warning` event's data, checked (it crossed the wire), or null. */
export function warningOf(data: unknown): Warning | null {
  if (typeof data !== 'object' || data === null) return null;
  const { agentId, about, message, at } = data as Record<string, unknown>;
  if (typeof agentId !== 'string' || typeof message !== 'string' || (about !== 'budget' && about !== 'expiry')) return null;
  return { agentId, about, message, at: typeof at === 'string' ? at : new Date().toISOString() };
}

/**
 * A login URL's one-time token, when the page was opened by one (`/login?token=...`), and where to go
 * after signing in: the address's own `#/...` route, or `next=#/...` (the desktop window's).
 */
function loginInAddress(): { token: string; next: string } | null {
  if (location.pathname !== '/login') return null;
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  if (!token) return null;
  const next = [location.hash, params.get('next') ?? ''].find((route) => route.startsWith('#/')) ?? '';
  return { token, next };
}

/**
 * Where a signed-out tab was going (a link request from `coffer link`, an agent's page), or where a
 * tab whose sign-in is too old for what it asked stands (SignInAgain): kept for ten minutes, so the
 * tab that then signs in (`coffer open` opens a new one) lands there.
 */
const NEXT_KEY = 'coffer.next';
const NEXT_TTL_MS = 10 * 60 * 1000;

// window.localStorage, not the bare global: Node 24 has a localStorage of its own (Web Storage, kept
// nowhere without --localstorage-file), which a test's DOM does not replace.
export function rememberDestination(): void {
  if (!location.hash.startsWith('#/') || location.hash === '#/') return;
  window.localStorage.setItem(NEXT_KEY, JSON.stringify({ hash: location.hash, at: Date.now() }));
}

function takeDestination(): string {
  const saved = window.localStorage.getItem(NEXT_KEY);
  window.localStorage.removeItem(NEXT_KEY);
  try {
    const { hash, at } = JSON.parse(saved ?? 'null') as { hash: string; at: number };
    return typeof hash === 'string' && hash.startsWith('#/') && Date.now() - at < NEXT_TTL_MS ? hash : '';
  } catch {
    return '';
  }
}

/** What a spent login link says on the signed-out page (which then says how to get a new one). */
const LINK_PROBLEMS: Record<string, string> = {
  link_used: 'This login link was already used: each one works once.',
  link_expired: 'This login link has expired: each one works for ten minutes.',
};

interface DashboardState {
  status: Status;
  /** Why signing in did not work (a used or expired login link), for the signed-out page. */
  signInProblem: string | null;
  /** The owner signed this tab out (rather than never having signed in). */
  signedOut: boolean;
  session: Session | null;
  client: Client | null;
  dashboard: Dashboard | null;
  deposits: Deposit[];
  /** Requests from agents waiting for the owner. */
  pendingApprovals: Approval[];
  /** The owner's settings (their time zone), read with the rest at every refresh; null until the first answer. */
  settings: Settings | null;
  /** What POST /v1/settings answered (the settings now), shown at once. */
  settingsChanged(settings: Settings): void;
  /** A refresh that failed (the server's message); cleared by the next one that works. */
  refreshError: string | null;
  connection: Connection;
  /** Warnings from the event stream, newest first (see Warning). */
  warnings: Warning[];
  noteWarning(warning: Warning): void;
  dismissWarnings(): void;
  init(): Promise<void>;
  refresh(): Promise<void>;
  /** The server stopped answering (its event stream ended): what is on screen is stale until a refresh works. */
  lostConnection(): void;
  /** Signs this tab out: the server forgets the session, the tab its token. */
  signOut(): Promise<void>;
}

/**
 * What the dashboard shows, all of it owned by the server: the store only caches the last answers
 * and refreshes them. Actions call the client, then refresh; their errors are shown where they happen.
 */
/** How many times the connection was lost: a refresh tells whether it was lost while it waited. */
let losses = 0;

export const useDashboard = create<DashboardState>((set, get) => ({
  status: 'loading',
  signInProblem: null,
  signedOut: false,
  session: null,
  client: null,
  dashboard: null,
  deposits: [],
  pendingApprovals: [],
  settings: null,
  refreshError: null,
  connection: 'live',
  warnings: [],

  noteWarning(warning) {
    // The same words again (a reconnect, a second tab's echo) are not shown twice.
    const others = get().warnings.filter((w) => w.message !== warning.message);
    set({ warnings: [warning, ...others].slice(0, WARNINGS_KEPT) });
  },

  dismissWarnings() {
    set({ warnings: [] });
  },

  settingsChanged(settings) {
    set({ settings });
  },

  lostConnection() {
    losses += 1;
    set({ connection: 'reconnecting' });
  },

  async signOut() {
    // Already dead on the server (expired, signed out elsewhere) is signed out all the same.
    await signOutOfServer().catch((error: unknown) => {
      if (!(error instanceof CofferApiError && error.status === 401)) throw error;
    });
    forgetSessionToken();
    set({
      status: 'signed-out',
      signInProblem: null,
      signedOut: true,
      session: null,
      client: null,
      dashboard: null,
      settings: null,
      warnings: [],
    });
  },

  async init() {
    try {
      const login = loginInAddress();
      if (login !== null) {
        // The one-time token leaves the address bar at once (history, screenshots), used or not.
        history.replaceState(null, '', `/${login.next}`);
        try {
          keepSessionToken((await signIn(login.token)).sessionToken);
          // Signed in: on to where this browser was going when it was asked to sign in.
          const destination = login.next || takeDestination();
          if (destination) {
            history.replaceState(null, '', `/${destination}`);
            window.dispatchEvent(new HashChangeEvent('hashchange'));
          }
        } catch (error) {
          // A used or expired link in a tab that is signed in already changes nothing.
          if (!(error instanceof CofferApiError && error.status === 410) || sessionToken() === null) throw error;
        }
      }
      if (sessionToken() === null) {
        rememberDestination();
        set({ status: 'signed-out' });
        return;
      }
      const session = await fetchSession();
      set({ session, client: createClient(session.owner) });
      await get().refresh();
      set({ status: 'ready' });
    } catch (error) {
      if (error instanceof CofferApiError && (error.status === 401 || error.status === 410)) {
        if (error.status === 401) rememberDestination();
        forgetSessionToken();
        set({ status: 'signed-out', signInProblem: error.status === 410 ? (LINK_PROBLEMS[error.code] ?? error.message) : null });
      } else set({ status: 'ready', refreshError: (error as Error).message });
    }
  },

  async refresh() {
    const client = get().client;
    if (!client) return;
    const lossesBefore = losses;
    try {
      const [dashboard, { deposits }, { approvals }, settings] = await Promise.all([
        client.dashboard(),
        client.deposits(),
        client.approvals('pending'),
        // Changing it sends no event: another tab's change is read here, at the latest by the fallback poll.
        client.settings(),
      ]);
      // An answer equal to the last one changes nothing on screen: keep the old objects, so nothing
      // re-renders (the overview can hold hundreds of agents and refreshes every 2 s).
      const state = get();
      set({
        dashboard: same(state.dashboard, dashboard) ? state.dashboard : dashboard,
        deposits: same(state.deposits, deposits) ? state.deposits : deposits,
        pendingApprovals: same(state.pendingApprovals, approvals) ? state.pendingApprovals : approvals,
        settings: same(state.settings, settings) ? state.settings : settings,
        refreshError: null,
        // A server stopping answers the requests it already holds: an answer to one sent before the
        // connection was lost does not say it is back (a refresh sent since, or the stream reopening, does).
        connection: losses === lossesBefore ? 'live' : state.connection,
      });
    } catch (error) {
      if (error instanceof CofferApiError && error.status === 401) {
        forgetSessionToken();
        set({ status: 'signed-out' });
      } else if (error instanceof CofferApiError && error.status === 0) set({ connection: 'reconnecting' });
      else set({ refreshError: (error as Error).message });
    }
  },
}));

/**
 * The owner's time zone, where calendar budgets begin and a day a policy names ends (GET /v1/settings);
 * this browser's own only until the server's first answer.
 */
export const useTimeZone = (): string => useDashboard((s) => s.settings?.timeZone ?? browserTimeZone());
