import type { Request } from 'express';
import { CofferError } from '../wire/errors.js';
import type { Principal } from '../core/auth.js';
import type { Engine } from '../core/engine.js';
import { SESSION_TOKEN_PREFIX, type DashboardSessions } from './sessions.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/** The bearer token of a request, '' for a malformed Authorization header, null for none. */
export const bearerOf = (req: Request): string | null => {
  const authorization = req.headers.authorization;
  return authorization === undefined ? null : (BEARER.exec(authorization)?.[1] ?? '');
};

/** A dashboard session token that signs nobody in any more. */
export const sessionEnded = () =>
  new CofferError(
    'unauthorized',
    "this dashboard sign-in has expired or ended: sign in again (run coffer open, or use the tray's Open dashboard)",
  );

/**
 * The caller of an endpoint that takes `owner`: a bearer key (owner or agent), or a dashboard session
 * token (`cof_ses_...`) in the same header. Nothing the browser attaches by itself (a cookie) signs a
 * request in, so a page on another site, or a program on another local port, has nothing to replay;
 * and a cross-site page cannot set this header without a CORS preflight this server never grants.
 */
export function principalOf(
  req: Request,
  engine: Engine,
  sessions: DashboardSessions,
  /** `owner` may be left out: the key or session names it (the spec's link-session endpoints). */
  ownerFromCredential = false,
): Principal {
  const authenticate = ownerFromCredential ? engine.authenticateCredential : engine.authenticate;
  const bearer = bearerOf(req);
  if (bearer !== null && bearer.startsWith(SESSION_TOKEN_PREFIX)) {
    const session = sessions.sessionOf(bearer);
    if (session === null) throw sessionEnded();
    return authenticate(req.query.owner, null, session);
  }
  return authenticate(req.query.owner, bearer);
}
