import { createServer, type Server } from 'node:http';
import type { Response } from 'express';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '../http/app.js';
import { DashboardSessions } from '../http/sessions.js';
import { createSqliteSignInStore } from '../store/sign-in-store.js';
import type { OpenedCoffer } from './open-coffer.js';
import { createSimRpc } from '../chain/sim-rpc.js';

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
    simRpc: coffer.simLedger === null ? null : createSimRpc(coffer.simLedger),
  });
  const server = createServer(app);
  // Requests Node rejects before express sees them (oversized headers, broken HTTP) still get JSON.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      tooLarge
        ? { error: 'the request line and headers are larger than 16 KiB', code: 'invalid_request' }
        : { error: 'malformed HTTP request', code: 'invalid_request' },
    );
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${options.port} on 127.0.0.1 is already in use (use --port)`) : error);
    server.once('error', onError);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  coffer.setBaseUrl(url);

  return {
    url,
    port,
    server,
    sessions,
    loginUrl: () => `${url}/login?token=${sessions.issueLoginToken(coffer.owner)}`,
    stop: () =>
      new Promise<void>((resolve) => {
        shuttingDown = true;
        const force = setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_AFTER_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        for (const stream of streams) stream.end();
        server.closeIdleConnections();
      }),
  };
}
