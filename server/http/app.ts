import express, { type Express } from 'express';
import type { Engine } from '../core/engine.js';
import { CofferError } from '../core/errors.js';
import { errorHandler, notFound, sendError } from './errors.js';
import { localOnly } from './guards.js';
import { principalOf } from './principal.js';
import { DashboardSessions, SESSION_COOKIE } from './sessions.js';
import { agentRoutes } from './routes/agents.js';
import { paymentRoutes } from './routes/payments.js';
import { generationRoutes } from './routes/generation.js';
import { registryRoutes } from './routes/registry.js';
import { treasuryRoutes } from './routes/treasury.js';
import type { RouteDeps } from './routes/route-deps.js';

export interface HttpAppOptions {
  engine: Engine;
  sessions: DashboardSessions;
  version: string;
  /** The port actually listened on (the Host guard needs it; with --port 0 it is known late). */
  port: () => number;
  isShuttingDown: () => boolean;
  log: (message: string) => void;
}

export function createHttpApp(options: HttpAppOptions): Express {
  const { engine, sessions } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(localOnly(options.port));
  app.use((_req, res, next) => {
    if (options.isShuttingDown()) return sendError(res, new CofferError('shutting_down', 'Coffer is shutting down'));
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Every body is read as JSON whatever its Content-Type (curl -d sends form encoding by default).
  app.use(express.json({ limit: '64kb', type: () => true, strict: true }));

  const deps: RouteDeps = { engine, principal: (req) => principalOf(req, engine, sessions) };
  const v1 = express.Router();
  v1.get('/health', (_req, res) => {
    res.json({ ok: true, network: engine.network, version: options.version, usdcMint: engine.ctx.chain.usdcMint });
  });
  v1.use(agentRoutes(deps));
  v1.use(paymentRoutes(deps));
  v1.use(generationRoutes(deps));
  v1.use(treasuryRoutes(deps));
  v1.use(registryRoutes(deps));
  v1.use(notFound);
  app.use('/v1', v1);

  app.get('/login', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const session = sessions.redeemLoginToken(token);
    if (session === null) {
      res.status(410).type('html').send(page('This login link has expired', 'Each login link works once and for ten minutes. Run <code>coffer open</code> or restart <code>coffer serve</code> for a new one.'));
      return;
    }
    res.cookie(SESSION_COOKIE, session.sessionId, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: session.maxAgeSeconds * 1000,
    });
    res.redirect(303, '/');
  });
  app.get('/', (_req, res) => {
    res.type('html').send(page('Coffer is running', `The /v1 API answers on this address (network: ${engine.network}).`));
  });
  app.use(notFound);
  app.use(errorHandler(options.log));
  return app;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"></head>` +
  `<body style="font:16px system-ui;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${title}</h1><p>${body}</p></body></html>`;
