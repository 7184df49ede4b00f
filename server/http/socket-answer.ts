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

/** Node's answer now being written on a connection (its `_httpMessage`; later ones wait their turn). */
type ConnectionWithAnswer = Duplex & {
  _httpMessage?: (NodeJS.EventEmitter & { writableFinished: boolean; req?: { complete: boolean } }) | null;
};

/**
 * Runs `then` once the answers to requests pipelined before this point are written, in order.
 * Security invariant: a refusal must not end the connection under them: a request pipelined just
 * before a broken one or a CONNECT was carried out and its answer lost (helper 188: a key replaced
 * and handed to nobody). Node writes those answers one at a time, the next once one finishes.
 * An answer to a request that never came whole is not waited for: the refusal is about that very
 * request, and ending the connection under it is what keeps its cut-off body from running as none.
 */
export function afterAnswersUnderWay(socket: Duplex, then: () => void): void {
  const answer = (socket as ConnectionWithAnswer)._httpMessage;
  if (answer === undefined || answer === null || answer.writableFinished || answer.req?.complete === false) return then();
  const onFinish = () => {
    answer.off('close', onClose);
    afterAnswersUnderWay(socket, then);
  };
  // Closed unfinished: the connection went with it, and there is nobody left to answer.
  const onClose = () => {
    answer.off('finish', onFinish);
    socket.destroy();
  };
  answer.once('finish', onFinish);
  answer.once('close', onClose);
}

/**
 * endSocketInJson, once the answers to requests pipelined before are written (afterAnswersUnderWay):
 * what every refusal of a socket Node handed over says (a request it rejected, a CONNECT, an upgrade).
 * Helper 194: a refused WebSocket upgrade after a `POST .../key` ended the connection under its answer.
 */
export function endSocketInJsonAfterAnswers(socket: Duplex, status: number, body: { error: string; code: string }): void {
  socket.on('error', () => socket.destroy());
  afterAnswersUnderWay(socket, () => (socket.writable ? endSocketInJson(socket, status, body) : socket.destroy()));
}
