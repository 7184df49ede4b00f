import type { Server } from 'node:http';
import { Router, type Response } from 'express';
import { createHttpApp } from '../http/app.js';
import { DashboardSessions } from '../http/sessions.js';
import { createSqliteSignInStore } from '../store/sign-in-store.js';
import type { OpenedCoffer } from './open-coffer.js';
import { closeServer, listenOnLoopback } from './loopback-server.js';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  sessions: DashboardSessions;
  loginUrl(): string;
  /** Stops taking requests, lets in-flight ones (payments included) finish, then resolves. */
  stop(): Promise<void>;
}

const FORCE_CLOSE_AFTER_MS = 15_000;

/** Listens on 127.0.0.1 only: the API moves money and is for this machine's processes. */
/** What the data dir's rails serve beside /v1: each embedded chain's JSON-RPC (Solana's at /rpc, Base's at /evm-rpc), its test images. */
function railRoutesOf(coffer: OpenedCoffer): Router | null {
  const routes = [coffer.embedded?.httpRoutes() ?? null, coffer.base?.httpRoutes ?? null].filter((route) => route !== null);
  return routes.length === 0 ? null : Router().use(...routes);
}

export async function startHttpServer(options: {
  coffer: OpenedCoffer;
  port: number;
  version: string;
  log: (message: string) => void;
}): Promise<RunningServer> {
  const { coffer } = options;
  const sessions = new DashboardSessions(() => coffer.engine.ctx.clock.now(), createSqliteSignInStore(coffer.db));
  let port = options.port;
  let shuttingDown = false;
  const streams = new Set<Response>();
  const app = createHttpApp({
    streams,
    engine: coffer.engine,
    sessions,
    version: options.version,
    port: () => port,
    isShuttingDown: () => shuttingDown,
    log: options.log,
    railRoutes: railRoutesOf(coffer),
  });
  const listening = await listenOnLoopback(app, options.port, { requestTimeoutMs: 120_000 });
  const { server } = listening;
  port = listening.port;
  // The embedded chain's RPC subscriptions, on WebSocket beside its POST /rpc.
  const sockets = coffer.embedded?.serveSubscriptions(server, () => port) ?? null;
  const url = `http://127.0.0.1:${port}`;
  coffer.setBaseUrl(url);

  return {
    url,
    port,
    server,
    sessions,
    loginUrl: () => `${url}/login?token=${sessions.issueLoginToken(coffer.owner)}`,
    stop: () => {
      shuttingDown = true;
      for (const stream of streams) stream.end();
      // A long poll would hold the stop for its minute: answered now, the agent asks again elsewhen.
      coffer.engine.endDecisionWaits();
      sockets?.close();
      return closeServer(server, FORCE_CLOSE_AFTER_MS);
    },
  };
}
