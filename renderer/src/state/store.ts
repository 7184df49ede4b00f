import { create } from 'zustand';
import { browserTimeZone } from '../lib/time-zone.js';
import type { DashboardState } from './dashboard-state.js';
import { refreshFromServer, loseConnection, settingsChangedHere } from './refresh.js';
import { closeSession, openSession } from './session.js';
import { withWarning } from './warnings.js';

export type { Connection, Status } from './dashboard-state.js';
export { rememberDestination } from './session.js';
export { warningOf, type Warning } from './warnings.js';

/**
 * What the dashboard shows, all of it owned by the server: the store only caches the last answers
 * and refreshes them. Actions call the client, then refresh; their errors are shown where they happen.
 * Signing in and out is session.ts's, reading the server refresh.ts's.
 */
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
  reads: 0,
  connection: 'live',
  warnings: [],

  noteWarning(warning) {
    set({ warnings: withWarning(get().warnings, warning) });
  },

  dismissWarnings() {
    set({ warnings: [] });
  },

  settingsChanged: (settings) => settingsChangedHere(set, settings),

  lostConnection: () => loseConnection(set),
  signOut: () => closeSession(set),
  init: () => openSession(set, get),
  refresh: () => refreshFromServer(set, get),
}));

/**
 * The owner's time zone, where calendar budgets begin and a day a policy names ends (GET /v1/settings);
 * this browser's own only until the server's first answer.
 */
export const useTimeZone = (): string => useDashboard((s) => s.settings?.timeZone ?? browserTimeZone());

/**
 * Whether the overview says the Base rail is off here (`treasury.baseNetwork` null). A Base account
 * is filed for every wallet all the same, so this, not a wallet's address, says whether to show Base.
 * False until the overview is read.
 */
export const useBaseOff = (): boolean => useDashboard((s) => s.dashboard !== null && s.dashboard.treasury.baseNetwork === null);

/**
 * An agent by the name its owner gave it, live or archived, as every page names it; its id where the
 * dashboard lists it nowhere (not read yet, or gone).
 */
export const useAgentName = (agentId: string): string =>
  useDashboard(
    (s) =>
      (s.dashboard?.agents.find((a) => a.agentId === agentId) ?? s.dashboard?.archivedAgents.find((a) => a.agentId === agentId))
        ?.displayName ?? agentId,
  );
