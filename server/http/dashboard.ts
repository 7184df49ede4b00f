import express, { Router, type Request, type RequestHandler } from 'express';
import { requireOwner, type Principal } from '../core/auth.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../core/engine.js';
import { CofferError } from '../core/errors.js';
import { sendError } from './errors.js';
import { DashboardSessions, SESSION_COOKIE, readCookie } from './sessions.js';

export const DASHBOARD_DIR = fileURLToPath(new URL('../../renderer/dist/', import.meta.url));

/**
 * The dashboard page's headers: only this origin's scripts, styles and images (QR codes are data:
 * URLs), no framing, no referrer. Inline scripts and styles are refused.
 */
const pageHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/** GET /v1/session: who the dashboard's cookie signs in as (the dashboard learns its owner here). */
export function sessionRoute(engine: Engine, sessions: DashboardSessions): RequestHandler {
  return (req, res) => {
    const sessionId = readCookie(req.headers.cookie, SESSION_COOKIE);
    const owner = sessionId === null ? null : sessions.ownerOf(sessionId);
    if (owner === null) {
      sendError(res, new CofferError('unauthorized', 'not signed in: open the login URL that coffer serve printed'));
      return;
    }
    res.json({ owner, network: engine.network, usdcMint: engine.ctx.chain.usdcMint });
  };
}

/**
 * POST /v1/session/login-link: a fresh one-time login URL for the owner (owner key or session), for
 * `coffer open` and the tray's "Open dashboard". Agent keys get 403 owner_only.
 */
export function loginLinkRoute(
  principalOf: (req: Request) => Principal,
  sessions: DashboardSessions,
  baseUrl: () => string,
): RequestHandler {
  return (req, res) => {
    const principal = principalOf(req);
    requireOwner(principal);
    res.json({ url: `${baseUrl()}/login?token=${sessions.issueLoginToken(principal.owner)}`, expiresInSeconds: 600 });
  };
}

/**
 * The browser side: `/login?token=` trades the one-time token for an HttpOnly, SameSite=Strict session
 * cookie; `/` and every other page path serve the built dashboard (renderer/dist).
 */
export function dashboardRoutes(sessions: DashboardSessions, network: string): Router {
  const router = Router();
  router.use(pageHeaders);
  router.get('/login', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const session = sessions.redeemLoginToken(token);
    if (session === null) {
      res
        .status(410)
        .type('html')
        .send(
          page(
            'This login link has expired',
            'Each login link works once, for ten minutes. Restart <code>coffer serve</code> (or use the tray app) for a new one.',
          ),
        );
      return;
    }
    res.cookie(SESSION_COOKIE, session.sessionId, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: session.maxAgeSeconds * 1000 });
    res.redirect(303, '/');
  });
  // A link session's page: the dashboard shows who is asking (the token stays out of server logs after this).
  router.get('/link', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    res.redirect(303, `/#/link/${encodeURIComponent(token)}`);
  });
  if (existsSync(DASHBOARD_DIR)) {
    // The dashboard routes by hash (#/agents/...), so only `/` and its files are pages; any other
    // path is a JSON 404 like the API's.
    router.use(express.static(DASHBOARD_DIR, { index: 'index.html', maxAge: '1h', setHeaders: noCacheForHtml }));
  } else {
    router.get('/', (_req, res) => {
      res.type('html').send(page('Coffer is running', `The /v1 API answers here (network: ${network}). The dashboard is not built: run <code>npm run build</code>.`));
    });
  }
  return router;
}

function noCacheForHtml(res: express.Response, path: string): void {
  if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-store');
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
  `<body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
