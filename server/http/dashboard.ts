import express, { Router, type Request, type RequestHandler } from 'express';
import { requireFreshSignIn, requireOwner, type Principal } from '../core/auth.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../core/engine.js';
import { CofferError } from '../wire/errors.js';
import { signInBodySchema } from '../wire/schemas.js';
import { sendError } from './errors.js';
import { packagePath } from '../package/package-files.js';
import { bearerOf } from './principal.js';
import { SESSION_TOKEN_PREFIX, type DashboardSessions } from './sessions.js';
import type { SignedIn } from '../store/sign-in-store.js';
import { noBody, parseWith, readTakesNoQuery } from './validate.js';
import type { LoginLink, Session, SessionStarted, SignedOut } from '../wire/answers/session.js';

/** The built dashboard (`npm run build`), wherever Coffer runs from. */
export const DASHBOARD_DIR = packagePath('renderer', 'dist');

/**
 * The dashboard page's headers: only this origin's scripts, styles and images (QR codes are data:
 * URLs), no framing, no referrer (the login URL's token never leaves in a Referer). Inline scripts and
 * styles are refused.
 */
export const pageHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

const sessionView = (engine: Engine, session: SignedIn): Session => ({
  owner: session.owner,
  network: engine.network,
  usdcMint: engine.ctx.chain.usdc,
  signedInAt: new Date(session.signedInAt).toISOString(),
  expiresAt: new Date(session.expiresAt).toISOString(),
});

/**
 * The dashboard's sign-in: `POST /v1/session {loginToken}` trades a login URL's one-time token for a
 * session token (410 when the link was used or has expired); `GET /v1/session` says who a session
 * token signs in as.
 */
export function sessionRoutes(engine: Engine, sessions: DashboardSessions): Router {
  const router = Router();
  router.post('/session', (req, res) => {
    const { loginToken } = parseWith(signInBodySchema, req.body);
    const redeemed = sessions.redeemLoginToken(loginToken);
    if (!redeemed.ok) {
      throw redeemed.reason === 'used'
        ? new CofferError(
            'link_used',
            "this login link was already used (each works once): for a new one, run coffer open, or use the tray's Open dashboard",
          )
        : new CofferError(
            'link_expired',
            "this login link has expired (each works for ten minutes): for a new one, run coffer open, or use the tray's Open dashboard",
          );
    }
    res.json({ sessionToken: redeemed.sessionToken, ...sessionView(engine, redeemed.session) } satisfies SessionStarted);
  });
  router.get('/session', readTakesNoQuery, (req, res) => {
    const bearer = bearerOf(req);
    const session = bearer?.startsWith(SESSION_TOKEN_PREFIX) ? sessions.sessionOf(bearer) : null;
    if (session === null) {
      sendError(res, new CofferError('unauthorized', "not signed in: run coffer open, or use the tray's Open dashboard"));
      return;
    }
    res.json(sessionView(engine, session));
  });
  // Sign-out: the session token in the header is dead at once, and its open event streams end.
  router.delete('/session', (req, res) => {
    const bearer = bearerOf(req);
    if (bearer === null || !bearer.startsWith(SESSION_TOKEN_PREFIX) || sessions.sessionOf(bearer) === null) {
      sendError(res, new CofferError('unauthorized', 'not signed in: there is no session to sign out of'));
      return;
    }
    noBody(req.body);
    sessions.signOut(bearer);
    res.json({ signedOut: true } satisfies SignedOut);
  });
  return router;
}

/**
 * POST /v1/session/login-link: a fresh one-time login URL for the owner, for `coffer open` and the
 * tray's "Open dashboard". The owner key may; a dashboard session only within ten minutes of signing
 * in (a session cannot renew itself forever); agent keys get 403 owner_only.
 */
export function loginLinkRoute(
  principalOf: (req: Request) => Principal,
  sessions: DashboardSessions,
  baseUrl: () => string,
  now: () => number,
): RequestHandler {
  return (req, res) => {
    const principal = principalOf(req);
    noBody(req.body);
    requireOwner(principal);
    requireFreshSignIn(principal, now());
    const mintedBy = principal.kind === 'owner' && principal.signedInAt !== undefined ? { signedInAt: principal.signedInAt } : null;
    res.json({
      url: `${baseUrl()}/login?token=${sessions.issueLoginToken(principal.owner, mintedBy)}`,
      expiresInSeconds: 600,
    } satisfies LoginLink);
  };
}

/**
 * The browser side: `/` and every other page path serve the built dashboard (renderer/dist).
 * `/login?token=` is the dashboard too: the page itself trades the token (a link preview or prefetch
 * that fetches the URL spends nothing), then drops it from the address bar.
 */
export function dashboardRoutes(network: string): Router {
  const router = Router();
  router.use(pageHeaders);
  // A link session's page: the dashboard shows who is asking (the token stays out of server logs after this).
  router.get('/link', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    res.redirect(303, `/#/link/${encodeURIComponent(token)}`);
  });
  if (existsSync(DASHBOARD_DIR)) {
    router.get('/login', (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.sendFile(join(DASHBOARD_DIR, 'index.html'));
    });
    // The dashboard routes by hash (#/agents/...), so only `/` and its files are pages; any other
    // path is a JSON 404 like the API's.
    router.use(express.static(DASHBOARD_DIR, { index: 'index.html', maxAge: '1h', setHeaders: noCacheForHtml }));
  } else {
    router.get(['/', '/login'], (_req, res) => {
      res
        .type('html')
        .send(
          page(
            'Coffer is running',
            `The /v1 API answers here (network: ${network}). The dashboard is not built: run <code>npm run build</code>.`,
          ),
        );
    });
  }
  return router;
}

export function noCacheForHtml(res: express.Response, path: string): void {
  if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-store');
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
  `<body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
