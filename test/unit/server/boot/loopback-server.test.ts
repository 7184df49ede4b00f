import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeServer, listenOnLoopback } from '../../../../server/boot/loopback-server.js';

/**
 * The loopback listener (server/boot/loopback-server.ts): what Node refuses before the app sees it is
 * answered in JSON with a code, as the app answers, and says why (helper 176: a request that ran out
 * of time was told "malformed HTTP request").
 */
let server: Server | null = null;
afterEach(async () => {
  if (server !== null) await closeServer(server, 100);
  server = null;
});

/** Sends raw bytes and reads the whole answer, until the server closes the connection. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

const app = (_req: unknown, res: { end: (body: string) => void }) => res.end('ok');

/** A refusal answered before the app: its status line, never cached, and its JSON body. */
function expectJsonRefusal(answer: string, status: string, json: { error: string; code: string }) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  expect(head.startsWith(`HTTP/1.1 ${status}\r\n`)).toBe(true);
  expect(head).toMatch(/\r\nCache-Control: no-store\r\n/i);
  expect(JSON.parse(body)).toEqual(json);
}

describe('requests Node refuses', () => {
  it('headers that never end are 408, said in JSON as running out of time, not as malformed', async () => {
    const listening = await listenOnLoopback(app as never, 0, { requestTimeoutMs: 60_000, headersTimeoutMs: 300, checkEveryMs: 50 });
    server = listening.server;
    const answer = await rawExchange(listening.port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expectJsonRefusal(answer, '408 Request Timeout', {
      error: 'the request did not arrive in time: its headers are taken for 0.3 s, the whole request for 60 s',
      code: 'request_timeout',
    });
  });

  it('broken HTTP is 400 invalid_request in JSON, not cached', async () => {
    const listening = await listenOnLoopback(app as never, 0, { requestTimeoutMs: 60_000 });
    server = listening.server;
    const answer = await rawExchange(listening.port, 'NOT HTTP AT ALL\r\n\r\n');
    expectJsonRefusal(answer, '400 Bad Request', { error: 'malformed HTTP request', code: 'invalid_request' });
  });

  it('a CONNECT answered 404 in JSON, its client resetting the connection after, leaves the server up (helper 186: it exited)', async () => {
    const listening = await listenOnLoopback(app as never, 0, { requestTimeoutMs: 60_000 });
    server = listening.server;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(listening.port, '127.0.0.1', () =>
        socket.write('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example\r\n\r\n'),
      );
      socket.once('data', (chunk) => {
        socket.resetAndDestroy();
        resolve(chunk.toString('utf8'));
      });
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(answer).toContain('"code":"not_found"');
    // Reset while answering: given time to reach the server, which still answers.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rawExchange(listening.port, 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 /,
    );
  });

  // Helper 188: a request pipelined before a broken one (or a CONNECT) was carried out while its answer
  // was lost (a key replaced and handed to nobody): the refusal ended the socket under it.
  const slowApp = (req: { url?: string }, res: { end: (body: string) => void }) =>
    setTimeout(() => res.end(`answered ${req.url ?? ''}`), 150);
  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

  it('the requests pipelined before broken HTTP are answered, in order, before its 400', async () => {
    const listening = await listenOnLoopback(slowApp as never, 0, { requestTimeoutMs: 60_000 });
    server = listening.server;
    const answer = await rawExchange(listening.port, get('/first') + get('/second') + 'NOT HTTP AT ALL\r\n\r\n');
    const first = answer.indexOf('answered /first');
    const second = answer.indexOf('answered /second');
    const refusal = answer.indexOf('HTTP/1.1 400 Bad Request');
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(refusal).toBeGreaterThan(second);
    expect(answer.slice(refusal)).toContain('{"error":"malformed HTTP request","code":"invalid_request"}');
  });

  it('a request pipelined before a CONNECT is answered before its 404', async () => {
    const listening = await listenOnLoopback(slowApp as never, 0, { requestTimeoutMs: 60_000 });
    server = listening.server;
    const answer = await rawExchange(listening.port, get('/first') + 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example\r\n\r\n');
    const first = answer.indexOf('answered /first');
    const refusal = answer.indexOf('HTTP/1.1 404 Not Found');
    expect(first).toBeGreaterThan(0);
    expect(refusal).toBeGreaterThan(first);
    expect(answer.slice(refusal)).toContain('"code":"not_found"');
  });

  it('an Expect the server does not know is 417 in JSON with a code, not a bare status (helper 188)', async () => {
    const listening = await listenOnLoopback(app as never, 0, { requestTimeoutMs: 60_000 });
    server = listening.server;
    const answer = await rawExchange(
      listening.port,
      'POST /v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: foo\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expectJsonRefusal(answer, '417 Expectation Failed', {
      error: 'the request expects "foo"; Coffer takes only "Expect: 100-continue"',
      code: 'invalid_request',
    });
  });
});

describe('requests pipelined behind one that waits', () => {
  // Helper 195: carried out one at a time, the requests behind a slow one (an event stream, an
  // approval waited for) wrote nothing, so Node's own brake (it stops reading a connection whose
  // answers pile up) never held: a client could queue 200,000 on one connection (600 MB), and closing
  // it stalled every other client for tens of seconds as they were thrown away.
  it('stops reading the connection while more than a few wait, and reads on as they are answered', async () => {
    let answerFirst: (() => void) | null = null;
    const waitingApp = (req: { url?: string }, res: { end: (body: string) => void }) => {
      if (req.url === '/first') answerFirst = () => res.end('first');
      else res.end('ok');
    };
    const listening = await listenOnLoopback(waitingApp as never, 0, { requestTimeoutMs: 60_000 });
    server = listening.server;
    let parsed = 0;
    server.on('request', () => (parsed += 1));
    const socket = connect(listening.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answers = '';
    socket.on('data', (chunk) => (answers += chunk.toString('latin1')));
    // 20,000 requests of about 1 KiB behind one that waits: some 20 MB, more than the sockets buffer.
    const queued = 20_000;
    const padded = `GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'p'.repeat(1000)}\r\n\r\n`;
    socket.write(`GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    let sent = 0;
    while (sent < queued) {
      const batch = Math.min(100, queued - sent);
      sent += batch;
      if (!socket.write(padded.repeat(batch))) {
        // The server stopped reading: the write is not taken within a second.
        const drained = await Promise.race([
          new Promise((resolve) => socket.once('drain', () => resolve(true))),
          new Promise((resolve) => setTimeout(() => resolve(false), 1000)),
        ]);
        if (!drained) break;
      }
    }
    expect(sent).toBeLessThan(queued);
    expect(parsed).toBeLessThan(1_000);
    // Answered in turn, the rest are read and answered: all of them, in order.
    answerFirst!();
    await vi.waitFor(() => expect(answers.split('HTTP/1.1 200').length - 1).toBe(1 + sent), { timeout: 30_000 });
    expect(answers.indexOf('first')).toBeLessThan(answers.indexOf('ok'));
    socket.destroy();
  }, 60_000);
});
