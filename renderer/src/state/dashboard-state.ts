import type { StoreApi } from 'zustand';
import type { Client } from '../api/client.js';
import type { Approval, Dashboard, Deposit, Session, Settings } from '../api/types.js';
import type { Warning } from './warnings.js';

export type Status = 'loading' | 'signed-out' | 'ready';
/** Whether the figures on screen are the server's current ones, or the last before it stopped answering. */
export type Connection = 'live' | 'reconnecting';

export interface DashboardState {
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
  /**
   * How many refreshes have landed. A part that reads an answer of its own (an agent's moves) reads it
   * again at each, as the rest is read: a pending move that fails changes no figure the refresh reads.
   */
  reads: number;
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

/** The store's own setState and getState, as its actions take them. */
export type SetState = StoreApi<DashboardState>['setState'];
export type GetState = StoreApi<DashboardState>['getState'];
