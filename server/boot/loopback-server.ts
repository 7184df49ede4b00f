import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server on 127.0.0.1 only (Coffer's API moves money and is for this machine's processes):
 * requests Node rejects before the app sees them still get JSON (answerRejectedRequestsInJson),
 * headers must arrive within 20 s, and a port already taken is an error, never a reason to move.
 */
export async function listenOnLoopback(
  app: RequestListener,
  port: number,
  options: { requestTimeoutMs: number },
): Promise<{ server: Server; port: number }> {
  // A request with no Host reaches the app, whose Host guard answers it in JSON (403 bad_host); Node's
  // own refusal is a bare 400 with no body.
  const server = createServer({ requireHostHeader: false }, app);
  answerRejectedRequestsInJson(server);
  server.headersTimeout = 20_000;
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
 * Stops taking connections and resolves once the requests under way have been answered; connections
 * still open after `forceAfterMs` are closed.
 */
export function closeServer(server: Server, forceAfterMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), forceAfterMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Requests Node rejects before the app sees them (headers over its 16 KiB, broken HTTP) answered in
 * JSON with a code, as the app answers: Node's own answer is a bare status with no body.
 */
export function answerRejectedRequestsInJson(server: Server): void {
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
}
