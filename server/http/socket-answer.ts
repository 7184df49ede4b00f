import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * An answer written on a socket Node handed over with its request (a CONNECT, an upgrade, a request it
 * rejected), in JSON with a code as the app answers, never cached, and the connection closed.
 * Security invariant: such a socket has no error listener left of Node's, so a client resetting it
 * threw in the server and ended the process (helpers 186, 187): one is added first.
 */
export function endSocketInJson(socket: Duplex, status: number, body: { error: string; code: string }): void {
  socket.on('error', () => socket.destroy());
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${json}`,
  );
}
