import type { Request, Response } from 'express';
import type { Principal } from '../../core/auth.js';
import type { Engine } from '../../core/engine.js';
import type { DashboardSessions } from '../sessions.js';
import type { HeldRequests } from '../held-requests.js';

export interface RouteDeps {
  engine: Engine;
  /** Authenticates the request (owner query + bearer key or dashboard session). */
  principal: (req: Request) => Principal;
  /** The same, for the link-session endpoints: `owner` may be left out (the key or session names it). */
  credential: (req: Request) => Principal;
  /** Dashboard sign-ins: an event stream ends at its session's sign-out. */
  sessions: Pick<DashboardSessions, 'onSignOut'>;
  /** Open event streams, ended when the server stops (they would otherwise hold it open). */
  streams: Set<Response>;
  /** What each agent's key holds open (event streams, waits for a decision), bounded. */
  held: HeldRequests;
}
