import type { RequestHandler } from 'express';
import { isCofferError, type CofferError } from '../wire/errors.js';
import type { Engine } from '../core/engine.js';
import { sendError } from './errors.js';
import { bearerOf, sessionEnded } from './principal.js';
import { SESSION_TOKEN_PREFIX, type DashboardSessions } from './sessions.js';

/**
 * The endpoints under /v1 that take a body from someone with no key: a login link's token traded for
 * a session, a terminal asking to be linked. Compared as the router matches (any case, a trailing slash).
 */
const SIGNS_NOBODY_IN = new Set(['/session', '/link-sessions']);

/**
 * Security invariant: a body sent to /v1 without a credential this Coffer knows (an API key, a
 * dashboard session) is refused before a byte of it is read, and the connection closed with the
 * answer: read first, 64 KiB a connection could be held by anyone who can reach the port (helper
 * 201: 4,000 connections each sending 60 KB and then nothing took `coffer serve` from 214 to 488 MB).
 * Only the credential is judged here, as every route then judges it again with the owner it names;
 * a request with no body is left to its route, whose refusal comes in its own order.
 */
export function credentialBeforeBody(engine: Engine, sessions: DashboardSessions): RequestHandler {
  return (req, res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody || req.method === 'GET' || req.method === 'HEAD') return next();
    if (SIGNS_NOBODY_IN.has(req.path.toLowerCase().replace(/\/+$/, ''))) return next();
    const refusal = credentialRefusal(bearerOf(req), engine, sessions);
    if (refusal === null) return next();
    res.setHeader('Connection', 'close');
    sendError(res, refusal);
  };
}

/** Why a bearer signs nobody in, or null where it is a live key or session. */
function credentialRefusal(bearer: string | null, engine: Engine, sessions: DashboardSessions): CofferError | null {
  if (bearer !== null && bearer.startsWith(SESSION_TOKEN_PREFIX)) {
    return sessions.sessionOf(bearer) === null ? sessionEnded() : null;
  }
  try {
    engine.authenticateCredential(undefined, bearer);
    return null;
  } catch (error) {
    if (isCofferError(error)) return error;
    throw error;
  }
}
