import { CofferApiError } from '../api/client.js';
import { forgetSessionToken, sessionToken } from '../api/credential.js';
import type { GetState, SetState } from './dashboard-state.js';
import type { Settings } from '../api/types.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** How many times the connection was lost: a refresh tells whether it was lost while it waited. */
let losses = 0;
/**
 * Refreshes sent, and the newest whose answer is on screen. Refreshes overlap (each burst of
 * events, each action's own, the fallback poll while the event stream is down): an answer to an
 * older one that comes after a newer one's would take the screen back (a policy editor would then
 * start again from the old policy, losing what the owner typed since), so it changes nothing.
 */
let sent = 0;
let shown = 0;
/**
 * The last refresh sent before this tab changed its settings itself (which sends no event): answers
 * up to it carry the settings from before the change, and leave the ones on screen.
 */
let settingsSetAfter = 0;

/** The store's `settingsChanged`: the server's answer to this tab's change of its settings, on screen now. */
export function settingsChangedHere(set: SetState, settings: Settings): void {
  settingsSetAfter = sent;
  set({ settings });
}

/** The store's `lostConnection`: what is on screen is stale until a refresh sent from now on works. */
export function loseConnection(set: SetState): void {
  losses += 1;
  set({ connection: 'reconnecting' });
}

/**
 * The store's `refresh`: everything the dashboard shows read again (all of it the server's; the store
 * only caches the last answers). A 401 signs the tab out, unless the tab signed in again since it
 * was sent; no answer at all marks the figures stale.
 */
export async function refreshFromServer(set: SetState, get: GetState): Promise<void> {
  const client = get().client;
  if (!client) return;
  const lossesBefore = losses;
  const ticket = (sent += 1);
  // The session it is sent with: a 401 says that one ended, not one signed in since.
  const token = sessionToken();
  try {
    const [dashboard, { deposits }, { approvals }, settings] = await Promise.all([
      client.dashboard(),
      client.deposits(),
      client.approvals('pending'),
      // Changing it sends no event: another tab's change is read here, at the latest by the fallback poll.
      client.settings(),
    ]);
    if (ticket < shown) return;
    shown = ticket;
    // An answer equal to the last one changes nothing on screen: keep the old objects, so nothing
    // re-renders (the overview can hold hundreds of agents, and refreshes at each burst of events).
    const state = get();
    set({
      dashboard: same(state.dashboard, dashboard) ? state.dashboard : dashboard,
      deposits: same(state.deposits, deposits) ? state.deposits : deposits,
      pendingApprovals: same(state.pendingApprovals, approvals) ? state.pendingApprovals : approvals,
      settings: ticket <= settingsSetAfter || same(state.settings, settings) ? state.settings : settings,
      refreshError: null,
      reads: state.reads + 1,
      // A server stopping answers the requests it already holds: an answer to one sent before the
      // connection was lost does not say it is back (a refresh sent since, or the stream reopening, does).
      connection: losses === lossesBefore ? 'live' : state.connection,
    });
  } catch (error) {
    if (error instanceof CofferApiError && error.status === 401) {
      // Forgetting the token of a session signed in since would sign that one out.
      if (sessionToken() !== token) return;
      forgetSessionToken();
      set({ status: 'signed-out' });
    } else if (ticket < shown) return;
    else if (error instanceof CofferApiError && error.status === 0) set({ connection: 'reconnecting' });
    else set({ refreshError: (error as Error).message });
  }
}
