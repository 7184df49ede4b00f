import type { RequestHandler } from 'express';
import { CofferError, isCofferError } from '../wire/errors.js';
import type { Engine } from '../core/engine.js';
import { sendError } from './errors.js';
import { declaredTooLarge, stopsPastTheLimit } from './json-body.js';
import { bearerOf, sessionEnded } from './principal.js';
import { SESSION_TOKEN_PREFIX, type DashboardSessions } from './sessions.js';

/**
 * The endpoints that take a body from someone with no key: a login link's token traded for a session,
 * a terminal asking to be linked. Matched as the router matches them (any case, one trailing slash).
 */
const SIGNS_NOBODY_IN = new Set(['/v1/session', '/v1/link-sessions']);

/**
 * What those two bodies may hold: a token of 200 characters, or three names of 80 to 120, each
 * character escaped six bytes long at most. Past it, 413 before more is read.
 */
const SIGN_IN_BODY_LIMIT_BYTES = 4 * 1024;

/**
 * Security invariant: a body is read only where a route takes one from this caller. Sent without a
 * credential this Coffer knows (an API key, a dashboard session) to /v1, or to any path outside /v1
 * (where no route takes a body), it is refused before a byte of it is read and the connection closed
 * with the answer; the two endpoints that sign nobody in read at most 4 KiB. Read first, 64 KiB a
 * connection could be held by anyone who can reach the port (helper 201: 4,000 connections each
 * sending 60 KB and then nothing took `coffer serve` from 214 to 488 MB; helper 206: the same through
 * a path outside /v1, or /v1/session). Only the credential is judged here: every route judges it
 * again with the owner it names. A request with no body is left to its route, in its own order.
 */
export function bodiesOnlyFromKnownCallers(engine: Engine, sessions: DashboardSessions): RequestHandler {
  const signInLimit = [declaredTooLarge(SIGN_IN_BODY_LIMIT_BYTES), stopsPastTheLimit(SIGN_IN_BODY_LIMIT_BYTES)] as const;
  return (req, res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody || req.method === 'GET' || req.method === 'HEAD') return next();
    const path = req.path.toLowerCase().replace(/(.)\/$/, '$1');
    if (req.method === 'POST' && SIGNS_NOBODY_IN.has(path)) {
      return signInLimit[0](req, res, () => signInLimit[1](req, res, next));
    }
    const refusal = path.startsWith('/v1/')
      ? credentialRefusal(bearerOf(req), engine, sessions)
      : notAnEndpoint(req.method, req.originalUrl);
    if (refusal === null) return next();
    res.setHeader('Connection', 'close');
    sendError(res, refusal);
  };
}

/** A body sent outside /v1: no route there takes one (the dashboard's are reads). */
const notAnEndpoint = (method: string, url: string) =>
  new CofferError('not_found', `no such endpoint: ${method} ${url.split('?')[0]!.slice(0, 200)}`);

/** Why a bearer signs nobody in, or null where it is a live key or session. */
function credentialRefusal(bearer: string | null, engine: Engine, sessions: DashboardSessions): CofferError | null {
  if (bearer !== null && bearer.startsWith(SESSION_TOKEN_PREFIX)) return sessions.sessionOf(bearer) === null ? sessionEnded() : null;
  try {
    engine.authenticateCredential(undefined, bearer);
    return null;
  } catch (error) {
    if (isCofferError(error)) return error;
    throw error;
  }
}
