import type { Request } from 'express';
import { CofferError } from '../core/errors.js';
import type { Principal } from '../core/auth.js';
import type { Engine } from '../core/engine.js';
import { DashboardSessions, SESSION_COOKIE, readCookie } from './sessions.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * The caller of an endpoint that takes `owner`: a bearer key (owner or agent), or the dashboard's
 * session cookie. Cookie-authenticated writes must carry `X-Requested-With: coffer`, a header a
 * cross-site page cannot send without a CORS preflight that this server never grants (CSRF guard).
 */
export function principalOf(
  req: Request,
  engine: Engine,
  sessions: DashboardSessions,
  /** `owner` may be left out: the key or session names it (the spec's link-session endpoints). */
  ownerFromCredential = false,
): Principal {
  const authenticate = ownerFromCredential ? engine.authenticateCredential : engine.authenticate;
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization);
    return authenticate(req.query.owner, match?.[1] ?? '');
  }
  const sessionId = readCookie(req.headers.cookie, SESSION_COOKIE);
  const sessionOwner = sessionId === null ? null : sessions.ownerOf(sessionId);
  if (sessionOwner === null) return authenticate(req.query.owner, null);
  const principal = authenticate(req.query.owner, null, sessionOwner);
  if (req.method !== 'GET' && req.headers['x-requested-with'] !== 'coffer') {
    throw new CofferError('unauthorized', 'dashboard writes must send X-Requested-With: coffer');
  }
  return principal;
}
