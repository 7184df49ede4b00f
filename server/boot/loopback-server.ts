import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { endSocketInJsonAfterAnswers } from '../http/socket-answer.js';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server on 127.0.0.1 only (Coffer's API moves money and is for this machine's processes):
 * requests Node rejects before the app sees them still get JSON (answerRejectedRequestsInJson),
 * headers must arrive within 20 s, and a port already taken is an error, never a reason to move.
 */
export async function listenOnLoopback(
  app: RequestListener,
  port: number,
  options: {
    requestTimeoutMs: number;
    /** How long the request line and headers may take (20 s). */
    headersTimeoutMs?: number;
    /** How often connections are looked at for those times (1 s; Node's own, 30 s, let headers take 50). */
    checkEveryMs?: number;
  },
): Promise<{ server: Server; port: number }> {
  const headersTimeoutMs = options.headersTimeoutMs ?? 20_000;
  // A request with no Host reaches the app, whose Host guard answers it in JSON (403 bad_host); Node's
  // own refusal is a bare 400 with no body.
  const server = createServer({ requireHostHeader: false, connectionsCheckingInterval: options.checkEveryMs ?? 1000 }, inTurn(app));
  answerRejectedRequestsInJson(server, { headersTimeoutMs, requestTimeoutMs: options.requestTimeoutMs });
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = options.requestTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} on 127.0.0.1 is already in use (use --port)`) : error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * One request at a time on a connection: one pipelined behind another is carried out once that one's
 * answer is written and the connection is its to answer on (Node hands it over then: the 'socket'
 * event). Security invariant: a request whose answer closes the connection (a 413 before its body was
 * read, a refusal) takes what was pipelined behind it with it, never run. Node runs pipelined requests
 * at once and writes their answers in turn, so one behind a body refused 413 was carried out and its
 * answer lost with the connection (helper 194: an allocation moved, unanswered).
 */
function inTurn(app: RequestListener): RequestListener {
  // How many requests wait for their turn on each connection, and on all of them. Security invariant:
  // past MOST_WAITING on one connection, or MOST_WAITING_IN_ALL on all, the connection asking for one
  // more is closed, and none of its own is carried out. Node stops reading a connection once its
  // answers pile up, but one waiting its turn has written none: behind a slow request (an event
  // stream, an approval waited for) one client queued 200,000 (600 MB), and closing that connection
  // stalled every other client for tens of seconds (helper 195). Pausing the connection instead left
  // the client's close unread behind the requests, which then ran with nobody to answer (helper 197).
  // Bounded per connection alone, 500 connections of 64 took the server from 220 to 751 MB.
  const waiting = new WeakMap<Duplex, number>();
  let waitingInAll = 0;
  return (req, res) => {
    if (res.socket !== null) return app(req, res);
    const connection = req.socket;
    const count = waiting.get(connection);
    if ((count ?? 0) >= MOST_WAITING || waitingInAll >= MOST_WAITING_IN_ALL) {
      connection.destroy();
      return;
    }
    // A closed connection's waiting requests never get their turn: what they held is given back then.
    if (count === undefined) connection.once('close', () => (waitingInAll -= waiting.get(connection) ?? 0));
    waiting.set(connection, (count ?? 0) + 1);
    waitingInAll += 1;
    res.once('socket', () => {
      waiting.set(connection, (waiting.get(connection) ?? 1) - 1);
      waitingInAll -= 1;
      app(req, res);
    });
  };
}

/**
 * How many requests may wait their turn behind one not yet answered on one connection, and on all
 * connections together. No client Coffer serves pipelines (browsers, undici, curl and the SDKs send
 * one at a time on a connection); at most 256 requests' headers (16 KiB each) wait in memory.
 */
const MOST_WAITING = 64;
const MOST_WAITING_IN_ALL = 256;

/**
 * Stops taking connections and resolves once the requests under way have been answered; connections
 * still open after `forceAfterMs` are closed. A connection is closed as soon as the request it was
 * serving is answered: kept alive, it waited for Node's keep-alive timeout (5 s), and a stop that
 * answered its waits for a decision at once took 4.8 s (helper 202).
 */
export function closeServer(server: Server, forceAfterMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), forceAfterMs);
    force.unref();
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    idle.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Requests Node rejects before the app sees them (headers over its 16 KiB, broken HTTP, a request
 * that took longer than its time) answered in JSON with a code, as the app answers, and never cached:
 * Node's own answer is a bare status with no body. A CONNECT, which Node hands to no app, is an
 * endpoint that does not exist, as any other unknown method (it was left with no answer at all); an
 * Expect other than 100-continue is a 417 in the same JSON.
 */
export function answerRejectedRequestsInJson(server: Server, times: { headersTimeoutMs: number; requestTimeoutMs: number }): void {
  // Node reports a broken connection again with each chunk that arrives after; it is refused once.
  const refused = new WeakSet<Duplex>();
  const refuse = (socket: Duplex, [status, body]: Refusal) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    endSocketInJsonAfterAnswers(socket, status, body);
  };
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    refuse(socket, refusalOf(error.code, times));
  });
  // Node answers an Expect it does not know with a bare 417 and no body.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expected = JSON.stringify(String(req.headers.expect ?? '').slice(0, 100));
    const json = JSON.stringify({
      error: `the request expects ${expected}; Coffer takes only "Expect: 100-continue"`,
      code: 'invalid_request',
    });
    res.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'Cache-Control': 'no-store',
      Connection: 'close',
    });
    res.end(json);
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const target = (req.url ?? '').slice(0, 200);
    refuse(socket, [404, { error: `no such endpoint: CONNECT ${target} (Coffer is not a proxy)`, code: 'not_found' }]);
  });
}

const seconds = (ms: number) => `${ms / 1000} s`;

type Refusal = [status: number, body: { error: string; code: string }];

function refusalOf(code: string | undefined, times: { headersTimeoutMs: number; requestTimeoutMs: number }): Refusal {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return [431, { error: 'the request line and headers are larger than 16 KiB', code: 'invalid_request' }];
  }
  // Headers or a body that never came whole: said as the time it took, not as broken HTTP (it was).
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [
      408,
      {
        error: `the request did not arrive in time: its headers are taken for ${seconds(times.headersTimeoutMs)}, the whole request for ${seconds(times.requestTimeoutMs)}`,
        code: 'request_timeout',
      },
    ];
  }
  return [400, { error: 'malformed HTTP request', code: 'invalid_request' }];
}
