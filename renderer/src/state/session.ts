import { CofferApiError, createClient, fetchSession, signIn, signOut as signOutOfServer } from '../api/client.js';
import { forgetSessionToken, keepSessionToken, sessionToken } from '../api/credential.js';
import type { GetState, SetState } from './dashboard-state.js';

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

/** Signs in with the login link in the address, if the page was opened by one; throws what the server refused. */
async function signInFromAddress(): Promise<void> {
  const login = loginInAddress();
  if (login === null) return;
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

/** The store's `init`: signed in (by a login link, or a session kept), the first read of everything; else signed out, saying why. */
export async function openSession(set: SetState, get: GetState): Promise<void> {
  try {
    await signInFromAddress();
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
}

/** The store's `signOut`: the server forgets the session, the tab its token and everything it showed. */
export async function closeSession(set: SetState): Promise<void> {
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
}
