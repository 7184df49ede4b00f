import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployAgent, fundedAgent, type ApiResponse, ownerState, type TestCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { expectError } from '../helpers/expect-error.js';
import { Rng } from '../probe/lib/rng.js';

/** The HTTP edge: unknown routes, bad bodies, Host/Origin guards, and garbage that must change nothing. */

interface RawResponse {
  status: number;
  text: string;
  contentType: string;
  cacheControl: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: ApiResponse['body'];
}

/**
 * A request over node:http, so Host, Origin and the body bytes are exactly what the test says
 * (fetch would pick the Host itself). `host: null` sends the server's own 127.0.0.1:PORT.
 */
function raw(
  t: TestCoffer,
  method: string,
  path: string,
  options: { host?: string; headers?: Record<string, string | string[]>; body?: string | Buffer; key?: string | null } = {},
): Promise<RawResponse> {
  const port = t.server.port;
  const key = options.key === undefined ? t.ownerKey : options.key;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          host: options.host ?? `127.0.0.1:${port}`,
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            text,
            contentType: String(res.headers['content-type'] ?? ''),
            cacheControl: String(res.headers['cache-control'] ?? ''),
            json,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** API.md: every non-2xx is JSON `{error, code}`, never a stack trace, never HTML. */
function expectRawError(response: RawResponse, status: number, code: string): void {
  expect({ status: response.status, json: response.json }).toMatchObject({ status, json: { code } });
  expectCleanJsonError(response);
}

function expectCleanJsonError(response: RawResponse): void {
  expect(response.contentType).toMatch(/^application\/json/);
  // Every error is never cached, a guard's before any route among them (helper 176: bad_host, bad_origin, OPTIONS had none).
  expect(response.cacheControl).toBe('no-store');
  expect(response.json).toBeTypeOf('object');
  expect(Object.keys(response.json).sort()).toEqual(['code', 'error']);
  expect(typeof response.json.error).toBe('string');
  expect(response.json.code).toMatch(/^[a-z][a-z0-9_]*$/);
  expectNoLeak(response.text);
}

const STACK_FRAME = /\bat [^\n]*\(?[^\s()]+:\d+:\d+\)?|\n\s+at /;
const HTML = /<(!doctype|html|head|body|pre)\b/i;

function expectNoLeak(text: string): void {
  expect(text).not.toMatch(STACK_FRAME);
  expect(text).not.toMatch(HTML);
  expect(text).not.toMatch(/node_modules|\/server\/|\.ts:\d+/);
}

/** Deterministic pseudo-random bytes (the probes' seeded generator), so a failing burst can be replayed. */
function randomBytesFrom(seed: number, length: number): Buffer {
  // 0xff can never start a JSON text, so these bodies are never accidentally valid.
  return Buffer.from([0xff, ...new Rng(seed).bytes(length - 1)]);
}

/**
 * Bytes written to the server as they are (no client fills in a Host or a body), and what it answers
 * once it closes the connection: a request that never closes is a test that times out.
 */
function overSocket(port: number, head: string): Promise<RawResponse & { head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => {
      const [answerHead = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answerHead)?.[1] ?? 0);
      const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(answerHead)?.[1] ?? '';
      const cacheControl = /\r\ncache-control: ([^\r]*)/i.exec(answerHead)?.[1] ?? '';
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      socket.destroy();
      resolve({ status, text: body, contentType, cacheControl, json: json as ApiResponse['body'], head: answerHead });
    });
    socket.on('error', reject);
  });
}

/** `text` gzipped behind 16,000 empty deflate blocks: 80 KB as sent, `text` once inflated. */
function paddedGzip(text: string): Buffer {
  const bytes = Buffer.from(text);
  const deflated = Buffer.concat([Buffer.alloc(16_000 * 5, 0).map((_, i) => [0, 0, 0, 0xff, 0xff][i % 5]!), deflateRawSync(bytes)]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(bytes), 0);
  trailer.writeUInt32LE(bytes.length, 4);
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]), deflated, trailer]);
}

/** A body as chunked transfer coding sends it, in parts of 4 KiB, and its end. */
function chunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += 4096) {
    const part = body.subarray(at, at + 4096);
    parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'));
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]);
}

/** A raw connection whose answer so far is read while it stays open (a body sent in parts, answered before its end). */
async function rawConnection(port: number): Promise<{ socket: Socket; answer: () => string }> {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return { socket, answer: () => answer };
}

describe('HTTP errors and guards', () => {
  const t = useCoffer();
  beforeAll(async () => {
    await fundedAgent(t, 'bystander', '5', { dailyBudget: '10.00', maxPerPayment: '1.00' });
  });

  const snapshot = () => ownerState(t);

  describe('health', () => {
    it('GET /v1/health needs no auth and answers {ok: true, network: "sim", version}', async () => {
      const response = await t.api('GET', '/v1/health', { key: null });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ ok: true, network: 'sim' });
      expect(typeof response.body.version).toBe('string');
      expect(response.body.version.length).toBeGreaterThan(0);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/v1'],
      ['GET', '/v1/'],
      ['GET', '/v1/nope'],
      ['GET', '/v2/health'],
      ['GET', '/v1/agents/bystander'],
      ['GET', '/v1/agents/bystander/balance/extra'],
      ['GET', '/v1/agents/bystander/nothing-here'],
      ['POST', '/v1/nope'],
      ['DELETE', '/v1/agents'],
      ['DELETE', '/v1/agents/bystander'],
      ['PUT', '/v1/dashboard'],
      ['PATCH', '/v1/agents/bystander/policy'],
      ['GET', '/v1/agents/deploy'],
      ['GET', '/v1/kill-all'],
      ['GET', '/v1/agents/bystander/kill'],
      ['GET', '/v1/agents/bystander/pay'],
      ['POST', '/v1/agents/bystander/balance'],
      ['POST', '/v1/health'],
      ['POST', '/v1/models'],
      ['DELETE', '/v1/services/search'],
      // Not the router's automatic `Allow:` answer in plain text, on a path that exists or not.
      ['OPTIONS', '/v1/agents/bystander/pay'],
      ['OPTIONS', '/v1/health'],
      ['OPTIONS', '/v1/agents/deploy'],
      ['OPTIONS', '/v1/nope'],
    ])('%s %s is 404 not_found, as JSON', async (method, path) => {
      const before = await snapshot();
      const response = await raw(t, method, path.startsWith('/v1/') && path !== '/v1/' ? t.withOwner(path) : path);
      expectRawError(response, 404, 'not_found');
      // The path as sent, its /v1 kept (helper 175: "no such endpoint: GET /nope").
      expect((response.json as { error: string }).error).toBe(`no such endpoint: ${method} ${path}`);
      expect(await snapshot()).toEqual(before);
    });

    it('CONNECT, whatever it names, is 404 not_found in JSON: Coffer is no proxy (helper 176: no answer at all)', async () => {
      const port = t.server.port;
      for (const target of ['example.com:443', `127.0.0.1:${port}`]) {
        const answer = await overSocket(port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
        expectRawError(answer, 404, 'not_found');
        expect((answer.json as { error: string }).error).toBe(`no such endpoint: CONNECT ${target} (Coffer is not a proxy)`);
        expect(answer.cacheControl).toBe('no-store');
      }
    });
  });

  describe('bodies', () => {
    it.each([
      ['a cut-off object', '{"agentId": "x", '],
      ['single quotes', "{'agentId': 'x'}"],
      ['a trailing comma', '{"agentId": "x",}'],
      ['bare words', 'agentId=x&dailyBudget=5'],
      ['a lone brace', '{'],
      ['undefined', 'undefined'],
      ['NaN', '{"amount": NaN}'],
    ])('%s is 400 invalid_json', async (_label, body) => {
      const before = await snapshot();
      for (const path of ['/v1/agents/deploy', '/v1/agents/bystander/policy', '/v1/agents/bystander/allocate', '/v1/treasury/faucet']) {
        const response = await raw(t, 'POST', t.withOwner(path), { body, headers: { 'content-type': 'application/json' } });
        expectRawError(response, 400, 'invalid_json');
      }
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['an array', '[]', 'invalid_request'],
      ['another agent', '{"agentId":"other"}', 'invalid_request'],
      ['an unknown field', '{"force":true}', 'invalid_request'],
      // Strict JSON parsing refuses a bare scalar before any route, as for every other body.
      ['a string', '"hello"', 'invalid_json'],
      ['null', 'null', 'invalid_json'],
    ])('an endpoint that takes no body refuses %s (400) and changes nothing; none or {} is fine', async (_label, body, code) => {
      const before = await snapshot();
      for (const path of [
        '/v1/kill-all',
        '/v1/resume-all',
        '/v1/agents/bystander/archive',
        '/v1/agents/bystander/kill',
        '/v1/agents/bystander/resume',
        '/v1/agents/bystander/key',
        '/v1/session/login-link',
        '/v1/approvals/apr_none/approve',
        '/v1/approvals/apr_none/deny',
        '/v1/link-sessions/none/deny',
        '/v1/bazaar/refresh',
      ]) {
        const response = await raw(t, 'POST', t.withOwner(path), { body, headers: { 'content-type': 'application/json' } });
        expect({ path, status: response.status, code: response.json?.code }).toEqual({ path, status: 400, code });
        expectCleanJsonError(response);
      }
      expect(await snapshot()).toEqual(before);
      for (const empty of [undefined, '{}']) {
        const response = await raw(t, 'POST', t.withOwner('/v1/agents/bystander/kill'), {
          body: empty,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(200);
        expect((await raw(t, 'POST', t.withOwner('/v1/agents/bystander/resume'), { body: empty })).status).toBe(200);
      }
    });

    it.each([
      ['/v1/agents/bystander/allocate', { ammount: '1' }, 'ammount', 'amount'],
      ['/v1/treasury/faucet', { ammount: '1' }, 'ammount', 'amount'],
      ['/v1/agents/bystander/return', { ammount: '1' }, 'ammount', 'amount'],
      ['/v1/agents/deploy', { agentid: 'typo', dailyBudget: '1', maxPerPayment: '1' }, 'agentid', 'agentId'],
      ['/v1/agents/bystander/policy', { dailybudget: '1' }, 'dailybudget', 'dailyBudget'],
      ['/v1/agents/bystander/policy/what-if', { maxPerPaymnet: '1' }, 'maxPerPaymnet', 'maxPerPayment'],
      ['/v1/agents/bystander/rename', { displayname: 'x' }, 'displayname', 'displayName'],
      ['/v1/agents/bystander/pay', { service: 'demo-weather', amout: '0.01' }, 'amout', 'amount'],
      ['/v1/agents/bystander/generate', { promt: 'a cat', modelId: 'm', resolution: '1k' }, 'promt', 'prompt'],
      ['/v1/settings', { timezone: 'UTC' }, 'timezone', 'timeZone'],
      ['/v1/bazaar', { facilitater: null }, 'facilitater', 'facilitator'],
      ['/v1/link-sessions/clear', { id: [] }, 'id', 'ids'],
      ['/v1/backup/schedule', { foldr: '/tmp/x', passphrase: 'long enough passphrase' }, 'foldr', 'folder'],
      ['/v1/backup/file', { passphrse: 'long enough passphrase' }, 'passphrse', 'passphrase'],
      ['/v1/backup/phrase/confirm', { word: [] }, 'word', 'words'],
    ])(
      'POST %s names a mistyped field and what it meant, before the field it leaves missing; nothing changes',
      async (path, body, typo, meant) => {
        const before = await snapshot();
        const response = await raw(t, 'POST', t.withOwner(path), {
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
        expectRawError(response, 400, 'invalid_request');
        expect(response.json.error).toBe(`unknown field "${typo}" (did you mean "${meant}"?)`);
        expect(await snapshot()).toEqual(before);
      },
    );

    it("names a mistyped field inside a budget as the policy's problem (invalid_policy), where it is", async () => {
      const before = await snapshot();
      const body = JSON.stringify({ budgets: [{ ammount: '1', window: 'day' }] });
      const response = await raw(t, 'POST', t.withOwner('/v1/agents/bystander/policy'), {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expectRawError(response, 400, 'invalid_policy');
      expect(response.json.error).toBe('Budgets, item 1: unknown field "ammount" (did you mean "amount"?)');
      expect(await snapshot()).toEqual(before);
    });

    it('reads a body as JSON whatever its content type (400 invalid_json for form encoding)', async () => {
      const response = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: 'agentId=x&dailyBudget=5&maxPerPayment=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectRawError(response, 400, 'invalid_json');
    });

    it.each([
      ['an array', '[]'],
      ['an array of the right fields', '[{"agentId":"arr","dailyBudget":"1","maxPerPayment":"1"}]'],
      ['a number', '42'],
      ['a string', '"hello"'],
      ['null', 'null'],
      ['true', 'true'],
    ])('a JSON body that is %s is 400 and changes nothing', async (_label, body) => {
      const before = await snapshot();
      for (const path of [
        '/v1/agents/deploy',
        '/v1/agents/bystander/policy',
        '/v1/agents/bystander/allocate',
        '/v1/agents/bystander/rename',
        '/v1/agents/bystander/pay',
        '/v1/treasury/faucet',
      ]) {
        const response = await raw(t, 'POST', t.withOwner(path), { body, headers: { 'content-type': 'application/json' } });
        expect(response.status).toBe(400);
        expectCleanJsonError(response);
      }
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['null', 'null', 'null'],
      ['a number', '42', 'a number'],
      ['a string', '"hello"', 'a string'],
      ['true', 'true', 'true or false'],
    ])('a JSON body that is %s is told it must be an object, not that it is no JSON', async (_label, body, kind) => {
      const response = await raw(t, 'POST', t.withOwner('/v1/agents/bystander/pay'), {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expectRawError(response, 400, 'invalid_json');
      expect(response.json.error).toBe(`the request body must be a JSON object, not ${kind}`);
    });

    it('a body naming a field twice, at any depth, is 400 invalid_json by that name and changes nothing', async () => {
      const { apiKey } = await fundedAgent(t, 'twice-payer', '1', { dailyBudget: '5.00', maxPerPayment: '1.00' });
      const before = await snapshot();
      const recipient = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
      const pay = `/v1/agents/twice-payer/pay?owner=${t.owner}`;
      // The last "amount" won: a reader of the first (a log, a proxy) saw 0.01 where 0.5 was paid.
      const twice = await raw(t, 'POST', pay, {
        body: `{"service":"s","recipient":"${recipient}","amount":"0.01","amount":"0.5"}`,
        key: apiKey,
      });
      expectRawError(twice, 400, 'invalid_json');
      expect(twice.json.error).toBe('the request body names "amount" twice: JSON names a field once');
      // Escaped alike is the same name; in another object it is another field.
      const escaped = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: '{"agentId":"twice-new","maxPerPayment":"1","dailyBudget":"1","daily\\u0042udget":"2"}',
      });
      expectRawError(escaped, 400, 'invalid_json');
      expect(escaped.json.error).toBe('the request body names "dailyBudget" twice: JSON names a field once');
      // Cut off after the name given twice: not JSON, said so (helper 186).
      const cut = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), { body: '{"agentId":"twice-cut","agentId":"x"' });
      expectRawError(cut, 400, 'invalid_json');
      expect(cut.json.error).toBe('the request body is not valid JSON');
      expect(await snapshot()).toEqual(before);
      expect((await t.api('GET', `/v1/agents/twice-payer/spend-history?owner=${t.owner}`, { key: apiKey })).body.payments).toEqual([]);
      // In an object of its own, or as a value, the same name is another field: read, then judged.
      const nested = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: '{"agentId":"twice-nested","maxPerPayment":"1","dailyBudget":"1","displayName":{"dailyBudget":"1"}}',
      });
      expect(nested.json.code).toBe('invalid_request');
      const apart = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: '{"agentId":"twice-apart","maxPerPayment":"1","dailyBudget":"1","displayName":"dailyBudget"}',
      });
      expect(apart.status).toBe(200);
      expect(apart.json.agent.displayName).toBe('dailyBudget');
    });

    it('a body on GET is not read: a lone brace on GET /v1/health is answered as health (helper 176)', async () => {
      const response = await raw(t, 'GET', '/v1/health', { body: '{', key: null });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ ok: true });
    });

    it('a body that is not UTF-8, or said to be in another charset, is 400 invalid_request and pays nothing', async () => {
      const { apiKey } = await fundedAgent(t, 'utf8-payer', '1', { dailyBudget: '5.00', maxPerPayment: '1.00' });
      const before = await snapshot();
      const recipient = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
      const latin1 = Buffer.concat([
        Buffer.from('{"service":"caf'),
        Buffer.from([0xe9]),
        Buffer.from(`","recipient":"${recipient}","amount":"0.01"}`),
      ]);
      const path = `/v1/agents/utf8-payer/pay?owner=${t.owner}`;
      const notUtf8 = await raw(t, 'POST', path, { body: latin1, key: apiKey, headers: { 'content-type': 'application/json' } });
      expectRawError(notUtf8, 400, 'invalid_request');
      expect(notUtf8.json.error).toBe('the request body is not UTF-8');
      const utf16 = await raw(t, 'POST', path, {
        body: JSON.stringify({ service: 'x', recipient, amount: '0.01' }),
        key: apiKey,
        headers: { 'content-type': 'application/json; charset=utf-16' },
      });
      expectRawError(utf16, 400, 'invalid_request');
      expect(utf16.json.error).toBe('unsupported body charset: JSON is read as UTF-8');
      expect(await snapshot()).toEqual(before);
      expect((await t.api('GET', `/v1/agents/utf8-payer/spend-history?owner=${t.owner}`, { key: apiKey })).body.payments).toEqual([]);
    });

    it('a body cut off before its end is never run as no body: a return does not move everything, a kill stops nothing (helper 188)', async () => {
      await fundedAgent(t, 'cut-off', '1', { dailyBudget: '5.00', maxPerPayment: '1.00' });
      const before = await snapshot();
      const port = t.server.port;
      const head = (path: string, framing: string) =>
        `POST ${t.withOwner(path)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.ownerKey}\r\n` +
        `Content-Type: application/json\r\n${framing}\r\n`;
      /** Writes the bytes, then half-closes or resets, and waits for the server to have read them. */
      const cut = (bytes: string, end: 'close' | 'reset') =>
        new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(bytes, () => {
              if (end === 'close') socket.end();
              else socket.resetAndDestroy();
            });
          });
          socket.on('data', () => undefined);
          socket.on('error', () => undefined);
          socket.on('close', () => resolve());
        });
      const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
      // Five of its 17 bytes, then the client stops: half-closed, or reset.
      await cut(head('/v1/agents/cut-off/return', 'Content-Length: 17\r\n') + '{"amo', 'close');
      await cut(head('/v1/agents/cut-off/return', 'Content-Length: 17\r\n') + '{"amo', 'reset');
      // Chunked: the whole body in one chunk, then a chunk size that is none.
      await cut(head('/v1/agents/cut-off/return', 'Transfer-Encoding: chunked\r\n') + '11\r\n{"amount":"0.01"}\r\nzz\r\n', 'close');
      await cut(head('/v1/agents/cut-off/kill', 'Transfer-Encoding: chunked\r\n') + '2\r\n{}\r\nzz\r\n', 'close');
      await settle();
      expect(await snapshot()).toEqual(before);
      const balance = await t.api('GET', t.withOwner('/v1/agents/cut-off/balance'));
      expect([balance.body.balance, balance.body.status ?? 'active']).toEqual(['1.00', 'active']);
    });

    it('a body sent without a key Coffer knows is 401 at once, its bytes never waited for, and the connection closed (helper 201)', async () => {
      // Helper 201: 4,000 connections each sending 60 KB of a 64 KiB body with no key, then nothing,
      // took coffer serve from 214 to 488 MB: the body was read before the key was looked at.
      for (const authorization of ['', 'Authorization: Bearer cof_not_a_key_anyone_holds\r\n', 'Authorization: Bearer cof_ses_ended\r\n']) {
        const answer = await overSocket(
          t.server.port,
          `POST ${t.withOwner('/v1/agents/deploy')} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\n${authorization}` +
            `Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"agentId":"slow-${'x'.repeat(100)}`,
        );
        expectRawError(answer, 401, 'unauthorized');
        expect(answer.head).toMatch(/\r\nconnection: close/i);
      }
      // Chunked, its length never said: the same.
      const chunkedAnswer = await overSocket(
        t.server.port,
        `POST ${t.withOwner('/v1/agents/bystander/pay')} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10000\r\n{"service":`,
      );
      expectRawError(chunkedAnswer, 401, 'unauthorized');
      // Outside /v1 no route takes a body; the two endpoints that sign nobody in take 4 KiB, and only
      // on POST (helper 206: the same 60 KB were read there, and on any path outside /v1).
      for (const [target, status, code] of [
        ['/nothing', 404, 'not_found'],
        ['//v1/agents/deploy', 404, 'not_found'],
        ['/v1/session', 413, 'body_too_large'],
        ['/v1/Link-Sessions/', 413, 'body_too_large'],
      ] as const) {
        const answer = await overSocket(
          t.server.port,
          `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"loginToken":"`,
        );
        expectRawError(answer, status, code);
        expect(answer.head).toMatch(/\r\nconnection: close/i);
      }
      const chunkedSignIn = await overSocket(
        t.server.port,
        `POST /v1/session HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2000\r\n{"loginToken":"${'x'.repeat(6000)}`,
      );
      expectRawError(chunkedSignIn, 413, 'body_too_large');
      const put = await overSocket(
        t.server.port,
        `PUT /v1/session HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{`,
      );
      expectRawError(put, 401, 'unauthorized');
      // The two endpoints that sign nobody in still read what they are sent.
      expectError(await t.api('POST', '/v1/session', { key: null, body: { loginToken: 'none' } }), 410, 'link_expired');
      expect((await t.api('POST', '/v1/link-sessions', { key: null, body: {} })).status).toBe(200);
      const agents = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents as { agentId: string }[];
      expect(agents.filter((agent) => agent.agentId.startsWith('slow-'))).toEqual([]);
    });

    it('a declared body over 64 KiB is 413 at once, its bytes never waited for, and the connection closed', async () => {
      for (const length of ['100000', '99999999999']) {
        const answer = await overSocket(
          t.server.port,
          `POST ${t.withOwner('/v1/agents/deploy')} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: Bearer ${t.ownerKey}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"agentId":`,
        );
        expectRawError(answer, 413, 'body_too_large');
        // Answered and closed with the body still owed (overSocket waits for the close).
        expect(answer.head).toMatch(/\r\nconnection: close/i);
      }
    });

    it('a chunked body that goes on past 64 KiB is 413 once the limit is passed, not read on to its end (helper 188)', async () => {
      // One chunk of 1 MiB announced, 70 KiB of it sent, and the client waiting: the rest was read
      // and dropped until the request timeout (120 s) before the 413 came.
      const answer = await overSocket(
        t.server.port,
        `POST ${t.withOwner('/v1/agents/deploy')} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: Bearer ${t.ownerKey}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n{"agentId":"endless","displayName":"${'x'.repeat(70 * 1024)}`,
      );
      expectRawError(answer, 413, 'body_too_large');
      expect(answer.head).toMatch(/\r\nconnection: close/i);
      expectError(await t.api('GET', t.withOwner('/v1/agents/endless/balance')), 404, 'agent_not_found');
    }, 20_000);

    it('a chunked body past 64 KiB after an early refusal (its charset, its encoding) leaves the server up (helper 191)', async () => {
      // body-parser refuses these before reading a byte; the limit's counter read on, and past 64 KiB
      // answered a second time: ERR_HTTP_HEADERS_SENT thrown in a stream listener ended the process.
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      try {
        for (const header of ['Content-Type: application/json; charset=latin1', 'Content-Encoding: foo']) {
          const { socket, answer } = await rawConnection(t.server.port);
          socket.write(
            `POST /v1/agents/x/pay HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: Bearer ${t.ownerKey}\r\n${header}\r\nTransfer-Encoding: chunked\r\n\r\n`,
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
          for (let i = 0; i < 80; i += 1) socket.write(`400\r\n${'a'.repeat(0x400)}\r\n`);
          socket.write('0\r\n\r\n');
          await new Promise((resolve) => setTimeout(resolve, 300));
          socket.destroy();
          expect(answer()).toMatch(/^HTTP\/1\.1 400 /);
          expect((await t.api('GET', '/v1/health')).status).toBe(200);
        }
      } finally {
        process.off('uncaughtException', onUncaught);
      }
      expect(uncaught).toEqual([]);
    });

    it('a compressed body over 64 KiB on the wire is 413, and what it holds is not carried out (helper 193)', async () => {
      // 16,000 empty deflate blocks, then {"amount":"0.50"}: 80 KB sent, 17 bytes once inflated. The
      // limit counted what was sent and answered 413; the route ran all the same, unanswered.
      await fundedAgent(t, 'gzip-target', '1');
      const before = await snapshot();
      const gzipped = paddedGzip('{"amount":"0.50"}');
      expect(gunzipSync(gzipped).toString()).toBe('{"amount":"0.50"}');
      const { socket, answer } = await rawConnection(t.server.port);
      socket.write(
        `POST ${t.withOwner('/v1/agents/gzip-target/allocate')} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nAuthorization: Bearer ${t.ownerKey}\r\n` +
          'Content-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      socket.write(chunked(gzipped));
      await new Promise((resolve) => setTimeout(resolve, 500));
      socket.destroy();
      expect(answer()).toMatch(/^HTTP\/1\.1 413 /);
      expect(await snapshot()).toEqual(before);
    });

    it('a request pipelined behind a body answered 413 is not carried out (helper 194: it ran, unanswered)', async () => {
      await fundedAgent(t, 'pipelined-target', '1');
      const before = await snapshot();
      const port = t.server.port;
      const head = (framing: string) =>
        `POST ${t.withOwner('/v1/agents/pipelined-target/allocate')} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.ownerKey}\r\n` +
        `Content-Type: application/json\r\n${framing}\r\n`;
      const { socket, answer } = await rawConnection(port);
      socket.write(
        Buffer.concat([
          Buffer.from(head('Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n')),
          chunked(paddedGzip('{"amount":"0.10"}')),
          Buffer.from(`${head('Content-Length: 17\r\n')}{"amount":"0.07"}`),
        ]),
      );
      await new Promise((resolve) => setTimeout(resolve, 800));
      socket.destroy();
      expect(answer()).toMatch(/^HTTP\/1\.1 413 /);
      expect(await snapshot()).toEqual(before);
    });

    it('a body over 64 KiB is 413 body_too_large, and nothing is created', async () => {
      const body = JSON.stringify({ agentId: 'too-big', dailyBudget: '1', maxPerPayment: '1', displayName: 'x'.repeat(70 * 1024) });
      expect(Buffer.byteLength(body)).toBeGreaterThan(64 * 1024);
      const response = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), { body, headers: { 'content-type': 'application/json' } });
      expectRawError(response, 413, 'body_too_large');
      expectError(await t.api('GET', t.withOwner('/v1/agents/too-big/balance')), 404, 'agent_not_found');
    });

    it('a field or query parameter of 60 kB that is none is refused by name, cut short, and the server answers on (helper 176)', async () => {
      // Suggesting the name it meant compared all 60 kB with each field: the heap ran out, and the
      // server died, for a body no key was needed to send.
      const long = 'a'.repeat(60_000);
      const asked = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: JSON.stringify({ agentId: 'long-field', dailyBudget: '1', maxPerPayment: '1', [long]: 1 }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.ownerKey}` },
      });
      expectRawError(asked, 400, 'invalid_request');
      expect((asked.json as { error: string }).error).toContain(`unknown field "${'a'.repeat(60)}"`);
      const searched = await t.api('GET', `/v1/services/search?q=x&${'b'.repeat(15_000)}=1`);
      expect(searched.status).toBe(400);
      expect(searched.body.error).toBe(`unknown query parameter "${'b'.repeat(60)}"`);
      expect((await t.api('GET', '/v1/health')).status).toBe(200);
    });

    it('a body just over 64 KiB (65,537 bytes) is 413; one just under is parsed', async () => {
      const sized = (bytes: number) => {
        const shell = JSON.stringify({ displayName: '' });
        return JSON.stringify({ displayName: 'y'.repeat(bytes - shell.length) });
      };
      const over = sized(64 * 1024 + 1);
      expect(Buffer.byteLength(over)).toBe(64 * 1024 + 1);
      const tooBig = await raw(t, 'POST', t.withOwner('/v1/agents/bystander/rename'), { body: over });
      expectRawError(tooBig, 413, 'body_too_large');

      const under = sized(64 * 1024 - 16);
      const parsed = await raw(t, 'POST', t.withOwner('/v1/agents/bystander/rename'), { body: under });
      // Parsed, then refused by validation (displayName is at most 100 characters): not a size error.
      expect(parsed.status).toBe(400);
      expect(parsed.json.code).not.toBe('body_too_large');
      expect(parsed.json.code).not.toBe('invalid_json');
    });

    it('a body with a broken Content-Encoding is a 400 client error, not a 500', async () => {
      const response = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: 'this is not gzip',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect(response.status).toBe(400);
      expectCleanJsonError(response);
    });

    it('an unsupported charset or encoding is a 4xx JSON error', async () => {
      const charset = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: '{}',
        headers: { 'content-type': 'application/json; charset=klingon' },
      });
      expect(charset.status).toBeGreaterThanOrEqual(400);
      expect(charset.status).toBeLessThan(500);
      expectCleanJsonError(charset);
      const encoding = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        body: '{}',
        headers: { 'content-type': 'application/json', 'content-encoding': 'x-unknown' },
      });
      expect(encoding.status).toBeGreaterThanOrEqual(400);
      expect(encoding.status).toBeLessThan(500);
      expectCleanJsonError(encoding);
    });
  });

  describe('Host guard (DNS rebinding)', () => {
    it.each([
      ['a foreign host', 'evil.example:__PORT__'],
      ['a foreign host without port', 'evil.example'],
      ['the loopback address without port', '127.0.0.1'],
      ['the loopback address on another port', '127.0.0.1:__OTHER__'],
      ['localhost on another port', 'localhost:__OTHER__'],
      ['a look-alike', '127.0.0.1.evil.example:__PORT__'],
      ['0.0.0.0', '0.0.0.0:__PORT__'],
    ])('%s is 403 bad_host, before anything else runs', async (_label, hostTemplate) => {
      const port = t.server.port;
      const host = hostTemplate.replace('__PORT__', String(port)).replace('__OTHER__', String(port === 65535 ? 1 : port + 1));
      const before = await snapshot();
      expectRawError(await raw(t, 'GET', '/v1/health', { host }), 403, 'bad_host');
      expectRawError(await raw(t, 'GET', t.withOwner('/v1/dashboard'), { host }), 403, 'bad_host');
      expectRawError(await raw(t, 'POST', t.withOwner('/v1/kill-all'), { host }), 403, 'bad_host');
      expectRawError(await raw(t, 'GET', '/v1/no-such-route', { host }), 403, 'bad_host');
      expect(await snapshot()).toEqual(before);
    });

    it('no Host header, or two, is 403 bad_host as JSON, not a bare 400 from Node', async () => {
      const port = t.server.port;
      const none = await overSocket(port, 'GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
      expectRawError(none, 403, 'bad_host');
      const two = await overSocket(
        port,
        `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
      );
      expectRawError(two, 403, 'bad_host');
    });

    it('a target in absolute form is judged by the host it names, as HTTP reads it, not by Host (helper 188)', async () => {
      const port = t.server.port;
      const before = await snapshot();
      for (const target of [
        `http://evil.example:${port}/v1/health`,
        `http://evil.example/v1/kill-all?owner=${t.owner}`,
        'ftp://x/v1/health',
      ]) {
        const refused = await overSocket(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
        expectRawError(refused, 403, 'bad_host');
      }
      expect(await snapshot()).toEqual(before);
      // Naming this server, it is served.
      const served = await overSocket(
        port,
        `GET http://127.0.0.1:${port}/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      );
      expect(served.status).toBe(200);
    });

    it.each([['127.0.0.1'], ['localhost'], ['[::1]']])('%s:PORT is accepted', async (name) => {
      const response = await raw(t, 'GET', t.withOwner('/v1/dashboard'), { host: `${name}:${t.server.port}` });
      expect(response.status).toBe(200);
      expect(response.json.treasury.walletAddress).toBe(t.owner);
    });
  });

  describe('Origin guard', () => {
    it.each([
      ['a foreign site', 'http://evil.example'],
      ['a foreign site on our port', 'http://evil.example:__PORT__'],
      ['an opaque origin', 'null'],
      ['https on our address', 'https://127.0.0.1:__PORT__'],
      ['our address on another port', 'http://127.0.0.1:__OTHER__'],
      ['our address without port', 'http://127.0.0.1'],
    ])('%s is 403 bad_origin, and a write is not applied', async (_label, template) => {
      const port = t.server.port;
      const origin = template.replace('__PORT__', String(port)).replace('__OTHER__', String(port === 65535 ? 1 : port + 1));
      const before = await snapshot();
      expectRawError(await raw(t, 'GET', '/v1/health', { headers: { origin } }), 403, 'bad_origin');
      expectRawError(await raw(t, 'GET', t.withOwner('/v1/dashboard'), { headers: { origin } }), 403, 'bad_origin');
      expectRawError(await raw(t, 'POST', t.withOwner('/v1/kill-all'), { headers: { origin } }), 403, 'bad_origin');
      expectRawError(
        await raw(t, 'POST', t.withOwner('/v1/agents/bystander/allocate'), {
          headers: { origin, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: '1.00' }),
        }),
        403,
        'bad_origin',
      );
      expect(await snapshot()).toEqual(before);
    });

    it("the server's own origin is fine, for reads and writes", async () => {
      const port = t.server.port;
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
        const read = await raw(t, 'GET', t.withOwner('/v1/dashboard'), { headers: { origin } });
        expect(read.status).toBe(200);
      }
      const origin = `http://127.0.0.1:${port}`;
      const write = await raw(t, 'POST', t.withOwner('/v1/agents/deploy'), {
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ agentId: 'same-origin', dailyBudget: '1.00', maxPerPayment: '1.00' }),
      });
      expect(write.status).toBe(200);
      expect(write.json.agent.agentId).toBe('same-origin');
    });

    it('no Origin header at all (a non-browser client) is fine', async () => {
      const response = await raw(t, 'GET', '/v1/health');
      expect(response.status).toBe(200);
    });
  });

  describe('no stack traces, no HTML', () => {
    it('error responses under /v1 are JSON {error, code} without stack frames or markup', async () => {
      const cases: Array<[string, string, { body?: string; key?: string | null; headers?: Record<string, string> }]> = [
        ['GET', '/v1/nope', {}],
        ['GET', '/v1/dashboard', {}],
        ['GET', '/v1/dashboard?owner=%3Cscript%3E', {}],
        ['GET', t.withOwner('/v1/dashboard'), { key: null }],
        ['GET', t.withOwner('/v1/dashboard'), { key: 'cof_own_<b>bold</b>' }],
        ['GET', t.withOwner('/v1/agents/%3Cscript%3Ealert(1)%3C%2Fscript%3E/balance'), {}],
        ['GET', t.withOwner('/v1/agents/ghost/balance'), {}],
        ['POST', t.withOwner('/v1/agents/deploy'), { body: '{' }],
        ['POST', t.withOwner('/v1/agents/deploy'), { body: '{"agentId":"<h1>x</h1>","dailyBudget":"1","maxPerPayment":"1"}' }],
        ['POST', t.withOwner('/v1/agents/deploy'), { body: '{"agentId":"ok-id","dailyBudget":{"$gt":0},"maxPerPayment":"1"}' }],
        ['POST', t.withOwner('/v1/agents/deploy'), { body: '{"__proto__":{"admin":true},"agentId":"proto"}' }],
        ['POST', t.withOwner('/v1/agents/deploy'), { body: '{"constructor":{"prototype":{"x":1}}}' }],
        ['POST', t.withOwner('/v1/agents/bystander/pay'), { body: '{"service":"demo-weather","amount":"0.01","currency":"ETH"}' }],
        ['POST', t.withOwner('/v1/agents/bystander/pay'), { body: '{"service":"nowhere","amount":"0.01"}' }],
        ['GET', t.withOwner('/v1/agents/bystander/spend-history?limit=-1'), {}],
        ['GET', '/v1/services/search?limit=abc', {}],
        ['GET', '/v1/services/search?q=' + 'z'.repeat(500), {}],
        [
          'POST',
          t.withOwner('/v1/agents/bystander/pay'),
          { body: '{"service":"demo-weather","amount":"0.01"}', headers: { 'idempotency-key': '' } },
        ],
      ];
      for (const [method, path, options] of cases) {
        const response = await raw(t, method, path, {
          ...options,
          headers: { 'content-type': 'application/json', ...options.headers },
        });
        expect(response.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${method} ${path}`).toBeLessThan(500);
        expectCleanJsonError(response);
      }
    });

    it('a malformed percent-escape in the path is a 400 client error, not a 500', async () => {
      for (const path of ['/v1/agents/%E0%A4%A/balance', '/v1/agents/%/policy', '/v1/agents/%zz/kill']) {
        const response = await raw(t, path.endsWith('kill') ? 'POST' : 'GET', t.withOwner(path));
        expect(response.status, path).toBe(400);
        expectCleanJsonError(response);
      }
    });

    it('a query string too large for the server still gets a JSON {error, code} answer', async () => {
      const response = await raw(t, 'GET', `/v1/health?pad=${'a'.repeat(100_000)}`);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expectCleanJsonError(response);
    });
  });

  describe('garbage burst', () => {
    it('never crashes the server and changes nothing', async () => {
      const victim = await deployAgent(t, 'victim', { dailyBudget: '3.00', maxPerPayment: '1.00' });
      const before = await snapshot();
      const owner = t.owner;
      const bodyPaths = [
        '/v1/agents/deploy',
        '/v1/agents/victim/policy',
        '/v1/agents/victim/allocate',
        '/v1/agents/victim/rename',
        '/v1/agents/victim/pay',
        '/v1/agents/victim/kill',
        '/v1/agents/bystander/pay',
        '/v1/agents/bystander/resume',
        '/v1/treasury/faucet',
        '/v1/kill-all',
      ];
      /** Requests that must be refused. */
      const requests: Array<() => Promise<RawResponse>> = [];
      /** Reads with junk around them: they may answer 200 or a JSON error, never a 5xx. */
      const reads: Array<() => Promise<RawResponse>> = [];
      const readQueries: string[] = [];

      // Random bytes as bodies, with and without a JSON content type, with the owner key.
      for (let i = 0; i < 40; i++) {
        const path = bodyPaths[i % bodyPaths.length] ?? '/v1/agents/deploy';
        const body = randomBytesFrom(i + 1, 16 + ((i * 97) % 4000));
        const headers: Record<string, string> =
          i % 2 === 0 ? { 'content-type': 'application/json' } : { 'content-type': 'application/octet-stream' };
        requests.push(() => raw(t, 'POST', `${path}?owner=${owner}`, { body, headers }));
      }
      // Huge and odd query strings. With a usable owner only on reads (which may answer 200); every
      // write carries an owner that cannot be used, so it must be refused.
      const junk = `junk=${'x'.repeat(4000)}&limit=${'9'.repeat(400)}&${Array.from({ length: 800 }, (_v, n) => `p${n}=${n}`).join('&')}`;
      readQueries.push(`owner=${owner}&${junk}`, `owner=${owner}&limit[]=1`, `owner=${owner}&q=${'%F0%9F%92%A5'.repeat(500)}`);
      for (const query of [
        `owner=${'A'.repeat(8000)}`,
        `owner=${owner}&owner=${owner}`,
        `owner=${owner}&owner=${'93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx'}`,
        `owner[]=${owner}`,
        `owner[key]=${owner}`,
        `owner=%00%01%02&x=%FF%FE`,
        `owner=${owner}%00`,
        `owner=${owner}%20`,
        `owner=${encodeURIComponent(`${owner}\n`)}`,
        `${junk}&owner=${'z'.repeat(300)}`,
      ]) {
        readQueries.push(query);
        requests.push(() => raw(t, 'POST', `/v1/kill-all?${query}`));
        requests.push(() => raw(t, 'POST', `/v1/agents/victim/kill?${query}`));
        requests.push(() =>
          raw(t, 'POST', `/v1/agents/victim/allocate?${query}`, {
            body: JSON.stringify({ amount: '1.00' }),
            headers: { 'content-type': 'application/json' },
          }),
        );
      }
      for (const query of readQueries) {
        reads.push(() => raw(t, 'GET', `/v1/dashboard?${query}`));
        reads.push(() => raw(t, 'GET', `/v1/agents/victim/spend-history?${query}`));
        reads.push(() => raw(t, 'GET', `/v1/services/search?${query}`));
      }
      // JSON of the wrong shape, deep nesting, odd types.
      for (const body of [
        '[]',
        '[1,2,3]',
        '42',
        '-1e308',
        '"string"',
        'null',
        '{"amount":["1.00"]}',
        '{"amount":{"value":"1.00"}}',
        '{"amount":"1.00","amount":"-1"}',
        '{"amount":"\\u0000"}',
        '{"amount":"1.00\\u0000"}',
        '{"amount":"１.００"}',
        '{"amount":"Infinity"}',
        '{"amount":1e400}',
        `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
        `{"a":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
        '{"agentId":"victim","dailyBudget":"1","maxPerPayment":"1"}',
        '{"displayName":null}',
        '{"allowedServices":[1,2,3]}',
        '{"allowedServices":{"length":1}}',
        '{"cooldownSeconds":1e308}',
        '{"dailyBudget":"9999999999.999999"}',
      ]) {
        for (const path of ['/v1/agents/victim/allocate', '/v1/agents/victim/policy', '/v1/agents/victim/rename', '/v1/treasury/faucet']) {
          requests.push(() => raw(t, 'POST', `${path}?owner=${owner}`, { body, headers: { 'content-type': 'application/json' } }));
        }
      }
      // Odd headers and paths.
      requests.push(() => raw(t, 'GET', `/v1/agents/${'a'.repeat(5000)}/balance?owner=${owner}`));
      requests.push(() => raw(t, 'GET', `/v1/agents/%2e%2e/%2e%2e/dashboard?owner=${owner}`));
      requests.push(() => raw(t, 'GET', `/v1/agents/victim%2Fkill/balance?owner=${owner}`));
      requests.push(() => raw(t, 'GET', `/v1/dashboard?owner=${owner}`, { key: 'x'.repeat(7000) }));
      requests.push(() =>
        raw(t, 'GET', `/v1/dashboard?owner=${owner}`, { headers: { authorization: `Bearer ${'\u00e9'.repeat(10)}` }, key: null }),
      );
      requests.push(() =>
        raw(t, 'POST', `/v1/agents/victim/pay?owner=${owner}`, {
          key: victim.apiKey,
          body: JSON.stringify({ service: 'demo-weather', amount: '0.01' }),
          headers: { 'content-type': 'application/json', 'idempotency-key': 'x'.repeat(300) },
        }),
      );

      // Fire them in parallel waves, writes and reads mixed.
      const fire = async (list: Array<() => Promise<RawResponse>>) => {
        const out: RawResponse[] = [];
        for (let i = 0; i < list.length; i += 25) out.push(...(await Promise.all(list.slice(i, i + 25).map((send) => send()))));
        return out;
      };
      const [refused, answered] = await Promise.all([fire(requests), fire(reads)]);
      expect(refused.length).toBe(requests.length);
      expect(answered.length).toBe(reads.length);

      // Garbage is the client's fault: never a 5xx.
      expect([...refused, ...answered].filter((r) => r.status >= 500).map((r) => `${r.status} ${r.text}`)).toEqual([]);
      for (const response of refused) {
        expect(response.status, response.text).toBeGreaterThanOrEqual(400);
        expectCleanJsonError(response);
      }
      for (const response of answered) {
        if (response.status === 200) expectNoLeak(response.text);
        else expectCleanJsonError(response);
      }

      const health = await t.api('GET', '/v1/health', { key: null });
      expect(health.status).toBe(200);
      expect(health.body.ok).toBe(true);
      expect(await snapshot()).toEqual(before);
    });

    it('a query parameter a filtering read does not take is refused by name, not ignored (its answer would be unfiltered)', async () => {
      const agent = await deployAgent(t, 'query-typos');
      const refused = [
        ['/v1/approvals?stauts=pending', 'unknown query parameter "stauts" (did you mean "status"?)'],
        ['/v1/approvals?status[]=pending', 'unknown query parameter "status[]" (did you mean "status"?)'],
        ['/v1/approvals/apr_x?wiat=5', 'unknown query parameter "wiat" (did you mean "wait"?)'],
        ['/v1/agents/query-typos/spend-history?limt=1', 'unknown query parameter "limt" (did you mean "limit"?)'],
        ['/v1/agents/query-typos/tasks?limit=1&x=1', 'unknown query parameter "x"'],
        ['/v1/services/search?query=weather', 'unknown query parameter "query"'],
        ['/v1/services?payto=93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx', 'unknown query parameter "payto" (did you mean "payTo"?)'],
        // A read that takes no parameter refuses one too (helper 176: deposits?limit=1 answered all three).
        ['/v1/treasury/deposits?limit=1', 'unknown query parameter "limit": this read takes no query parameter but ?owner='],
        ['/v1/agents?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/dashboard?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/events?since=5', 'unknown query parameter "since": this read takes no query parameter but ?owner='],
        ['/v1/agents/query-typos/balance?rail=base', 'unknown query parameter "rail": this read takes no query parameter but ?owner='],
        ['/v1/agents/query-typos/policy?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/settings?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/backup?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/bazaar?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/link-sessions?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/models?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
        ['/v1/services/demo-weather?rail=base', 'unknown query parameter "rail": this read takes no query parameter but ?owner='],
        ['/v1/session?x=1', 'unknown query parameter "x": this read takes no query parameter but ?owner='],
      ] as const;
      for (const [path, words] of refused) {
        const response = await t.api('GET', t.withOwner(path));
        expect({ path, status: response.status, body: response.body }).toEqual({
          path,
          status: 400,
          body: { code: 'invalid_request', error: words },
        });
      }
      // What the client sends is read as before, the owner's key among it, and an agent's key too.
      expect((await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).status).toBe(200);
      expect((await t.api('GET', t.withOwner('/v1/services/search?q=weather&limit=2'))).status).toBe(200);
      const byAgent = await t.api('GET', t.withOwner('/v1/agents/query-typos/spend-history?limit=1'), { key: agent.apiKey });
      expect(byAgent.status, JSON.stringify(byAgent.body)).toBe(200);
    });

    it('an id in the path that is no id is not repeated in the refusal (helper 176: 5,000 characters, a NUL)', async () => {
      await deployAgent(t, 'echo');
      const long = await t.api('GET', t.withOwner(`/v1/agents/echo/tasks/${'t'.repeat(5000)}`));
      expect([long.status, long.body]).toEqual([404, { code: 'task_not_found', error: 'no task with that id for agent "echo"' }]);
      const nul = await t.api('GET', '/v1/services/%00');
      expect([nul.status, nul.body]).toEqual([404, { code: 'service_not_found', error: 'no service with that id in the registry' }]);
      // An id as ids are written is named, quoted.
      expect((await t.api('GET', t.withOwner('/v1/agents/echo/tasks/task_nothing'))).body.error).toBe(
        'no task "task_nothing" for agent "echo"',
      );
    });

    it('a query parameter or header given twice is said so, with its own code (helper 176: "limit must be text")', async () => {
      await deployAgent(t, 'twice');
      const twice = [
        ['/v1/agents/twice/spend-history?limit=1&limit=2', 'invalid_limit', '"limit" is given 2 times: send it once'],
        ['/v1/services/search?q=a&q=b', 'invalid_request', '"q" is given 2 times: send it once'],
        ['/v1/treasury/allocations?agentId=a1&agentId=a2&agentId=a3', 'invalid_agent_id', '"agentId" is given 3 times: send it once'],
      ] as const;
      for (const [path, code, words] of twice) {
        const response = await t.api('GET', t.withOwner(path));
        expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 400, body: { code, error: words } });
      }
      const key = await raw(t, 'POST', t.withOwner('/v1/agents/twice/pay'), {
        body: '{"service":"demo-weather","amount":"0.01"}',
        headers: { 'content-type': 'application/json', 'idempotency-key': ['one', 'two'] },
      });
      expectRawError(key, 400, 'invalid_idempotency_key');
      expect((key.json as { error: string }).error).toBe('Idempotency-Key is given 2 times: send it once');
    });

    it('a query parameter on a write is refused by name before anything moves (an allocation sent ?rail=base moved money on Solana)', async () => {
      await deployAgent(t, 'query-on-write');
      const before = await t.api('GET', t.withOwner('/v1/agents/query-on-write/balance'));
      const refused = await t.api('POST', t.withOwner('/v1/agents/query-on-write/allocate?rail=base'), { body: { amount: '0.01' } });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: {
          code: 'invalid_request',
          error: 'unknown query parameter "rail": a POST takes no query parameter but ?owner=',
        },
      });
      expect((await t.api('GET', t.withOwner('/v1/agents/query-on-write/balance'))).body).toEqual(before.body);
      const several = await t.api('POST', t.withOwner('/v1/agents/query-on-write/kill?a=1&b=2'));
      expect([several.status, several.body.error]).toEqual([
        400,
        'unknown query parameters "a", "b": a POST takes no query parameter but ?owner=',
      ]);
      expect((await t.api('GET', t.withOwner('/v1/agents/query-on-write'))).body.status).not.toBe('suspended');
      // The owner's key alone, as every client sends it, is read as before.
      expect((await t.api('POST', t.withOwner('/v1/agents/query-on-write/allocate'), { body: { amount: '0.01' } })).status).toBe(200);
    });

    it('arrays in ?owner are 400 invalid_owner', async () => {
      for (const path of ['/v1/dashboard', '/v1/agents', '/v1/agents/bystander/balance']) {
        const response = await t.api('GET', `${path}?owner=${t.owner}&owner=${t.owner}`);
        expectError(response, 400, 'invalid_owner');
        expect(response.body.error).toBe('"owner" is given 2 times: send it once');
      }
      const twoDifferent = await t.api('GET', `/v1/dashboard?owner=${t.owner}&owner=93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx`);
      expectError(twoDifferent, 400, 'invalid_owner');
    });
  });
});
