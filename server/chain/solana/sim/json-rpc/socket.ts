import type { Server } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import type { SimRpcSubscriptions } from './subscriptions.js';
import { HTTP_STATUS } from '../../../../http/error-status.js';
import { loopbackRefusal } from '../../../../http/guards.js';
import { afterAnswersUnderWay, endSocketInJsonAfterAnswers } from '../../../../http/socket-answer.js';

/** The largest message a subscription client sends: a subscribe request is a few hundred bytes. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/**
 * The embedded chain's RPC subscriptions on WebSocket at `/rpc` (`ws://127.0.0.1:<port>/rpc`, the
 * URL of `POST /rpc` with its scheme changed, as kit's `createSolanaRpcSubscriptions` takes it),
 * behind the same loopback Host and Origin guard as every route: an upgrade that fails it, or asks
 * for another path, is refused before any WebSocket exists.
 */
export function serveSimRpcSubscriptions(server: Server, subscriptions: SimRpcSubscriptions, port: () => number): { close(): void } {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const refusal = path === '/rpc' ? loopbackRefusal(req, port()) : null;
    // Answered in JSON as every refusal is, on a socket that keeps no error listener of Node's
    // (helper 187: a client resetting a refused upgrade ended the server), once the answers to
    // requests pipelined before it are written (helper 194: a key replaced, its answer lost).
    if (refusal !== null) {
      return endSocketInJsonAfterAnswers(socket, HTTP_STATUS[refusal.code], { error: refusal.message, code: refusal.code });
    }
    if (path !== '/rpc') {
      const target = path.slice(0, 200);
      const error = `no such endpoint: a WebSocket at ${target} (only /rpc is one)`;
      return endSocketInJsonAfterAnswers(socket, 404, { error, code: 'not_found' });
    }
    // Taken over once the answers before it are written, as a refusal is: its 101 never cuts into them.
    socket.on('error', () => socket.destroy());
    afterAnswersUnderWay(socket, () => {
      if (!socket.writable) return socket.destroy();
      sockets.handleUpgrade(req, socket, head, (ws) => {
        const session = subscriptions.open((text) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(text);
        });
        ws.on('message', (data, isBinary) => session.receive(isBinary ? '' : data.toString('utf8')));
        ws.on('close', () => session.close());
        ws.on('error', () => ws.terminate());
      });
    });
  });
  return {
    // An upgraded socket is no HTTP connection: closing the server neither waits for nor ends it.
    close: () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
    },
  };
}
