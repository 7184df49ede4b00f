import express, { type Express, type Response, type Router } from 'express';
import type { Engine } from '../core/engine.js';
import { CofferError } from '../wire/errors.js';
import type { Health } from '../wire/answers/session.js';
import { errorHandler, notFound, sendError } from './errors.js';
import { localOnly, noOptions } from './guards.js';
import { jsonBody } from './json-body.js';
import { bodiesOnlyFromKnownCallers } from './bodies-from-known-callers.js';
import { writesTakeNoQuery } from './validate.js';
import { principalOf } from './principal.js';
import { DashboardSessions } from './sessions.js';
import { dashboardRoutes, loginLinkRoute, sessionRoutes } from './dashboard.js';
import { agentRoutes } from './routes/agents.js';
import { paymentRoutes } from './routes/payments.js';
import { generationRoutes } from './routes/generation.js';
import { registryRoutes } from './routes/registry.js';
import { bazaarRoutes } from './routes/bazaar.js';
import { approvalRoutes } from './routes/approvals.js';
import { linkSessionRoutes } from './routes/link-sessions.js';
import { eventRoutes } from './routes/events.js';
import { treasuryRoutes } from './routes/treasury.js';
import { backupRoutes } from './routes/backup.js';
import { settingsRoutes } from './routes/settings.js';
import type { RouteDeps } from './routes/route-deps.js';
import { HeldRequests } from './held-requests.js';

export interface HttpAppOptions {
  engine: Engine;
  sessions: DashboardSessions;
  version: string;
  /** The port actually listened on (the Host guard needs it; with --port 0 it is known late). */
  port: () => number;
  isShuttingDown: () => boolean;
  streams: Set<Response>;
  log: (message: string) => void;
  /**
   * What the data dir's rail serves beside /v1 (the embedded chain: its JSON-RPC at POST /rpc, which
   * reads its own body, and its test images); null on a remote network.
   */
  railRoutes: Router | null;
}

export function createHttpApp(options: HttpAppOptions): Express {
  const { engine, sessions } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(localOnly(options.port));
  app.use(noOptions);
  app.use((_req, res, next) => {
    if (options.isShuttingDown()) return sendError(res, new CofferError('shutting_down', 'Coffer is shutting down'));
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  if (options.railRoutes !== null) app.use(options.railRoutes);
  app.use(bodiesOnlyFromKnownCallers(engine, sessions));
  app.use('/v1', jsonBody());

  const deps: RouteDeps = {
    engine,
    principal: (req) => principalOf(req, engine, sessions),
    credential: (req) => principalOf(req, engine, sessions, true),
    sessions,
    streams: options.streams,
    held: new HeldRequests(),
  };
  const v1 = express.Router();
  v1.use(writesTakeNoQuery);
  // Paying is the hot path: its routes are matched first (no other route shares their paths).
  v1.use(paymentRoutes(deps));
  v1.post(
    '/session/login-link',
    loginLinkRoute(
      deps.principal,
      sessions,
      () => `http://127.0.0.1:${options.port()}`,
      () => engine.ctx.clock.now(),
    ),
  );
  v1.use(sessionRoutes(engine, sessions));
  v1.get('/health', (_req, res) => {
    const base = engine.ctx.base ?? null;
    res.json({
      ok: true,
      network: engine.network,
      version: options.version,
      usdcMint: engine.ctx.chain.usdc,
      base: base === null ? null : { network: base.network, chainId: base.chainId ?? 0, usdc: base.usdc },
    } satisfies Health);
  });
  v1.use(agentRoutes(deps));
  v1.use(generationRoutes(deps));
  v1.use(treasuryRoutes(deps));
  v1.use(backupRoutes(deps));
  v1.use(settingsRoutes(deps));
  v1.use(registryRoutes(deps));
  v1.use(bazaarRoutes(deps));
  v1.use(approvalRoutes(deps));
  v1.use(linkSessionRoutes(deps));
  v1.use(eventRoutes(deps));
  v1.use(notFound);
  app.use('/v1', v1);

  app.use(dashboardRoutes(engine.network));
  app.use(notFound);
  app.use(errorHandler(options.log));
  return app;
}
