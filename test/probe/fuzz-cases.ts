import { gzipSync } from 'node:zlib';
import type { Rng } from './lib/rng.js';
import { base58, randomAddress } from './lib/rng.js';
import { bodyFields, fillPath, takesOwner, validBody, type RouteSpec } from './routes.js';

/**
 * The malformed requests of the fuzz pass: for a route, a valid request (right method, path, owner,
 * auth and body) with one or two things broken: method, path segments, the path itself, the query,
 * the JSON structure, one field's type or value, headers, auth, size, or the HTTP bytes themselves.
 */

export interface FuzzTarget {
  port: number;
  owner: string;
  ownerKey: string;
  agentKey: string;
  otherAgentKey: string;
  /** The signed-in dashboard's credential value (cookie or session token), for cookie variants. */
  cookie: string;
  /** A request's headers as the dashboard page sends them. */
  session: Record<string, string>;
  params: Record<string, string>;
}

export type FuzzRequest =
  | {
      kind: 'http';
      label: string;
      method: string;
      path: string;
      headers: Record<string, string | string[]>;
      body?: string | Buffer;
      chunked?: boolean;
      timeoutMs?: number;
    }
  | { kind: 'socket'; label: string; method: string; path: string; bytes: string | Buffer };

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'];

const SEGMENTS = [
  '',
  '.',
  '..',
  '...',
  '%2e',
  '%2e%2e',
  '%2E%2E%2F%2E%2E',
  '..%2f..%2fetc%2fpasswd',
  '..%5c..%5cwindows',
  '%2F',
  '%00',
  'fz-a%00',
  '%zz',
  '%',
  '%u002e',
  'A',
  'FZ-A',
  'fz-a%20',
  '%20fz-a',
  'fz_a',
  '-fz',
  'a'.repeat(64),
  'a'.repeat(65),
  'a'.repeat(5000),
  '%F0%9F%99%82',
  '%E2%80%AE',
  '%C0%AE%C0%AE',
  '%EF%BC%8E',
  "'%20OR%201=1--",
  '%22',
  '%3Cscript%3E',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'null',
  'undefined',
  '0',
  '-1',
  '1e309',
  'fz-a%2F..%2Ffz-b',
  'fz-b',
  'nonexistent',
  'fz-a;x=1',
  '%252e%252e',
  'fz-a%0d%0aX-Injected:%201',
  '%ff%fe',
  'apr_x',
  'pay_x',
  'lnk_x',
  'task_x',
];

const PATH_TRICKS: ((path: string) => string)[] = [
  (p) => `/${p}`,
  (p) => `${p}/`,
  (p) => p.replace('/v1/', '/v1/./'),
  (p) => p.replace('/v1/', '/v1/../v1/'),
  (p) => p.replace('/v1/', '/V1/'),
  (p) => `${p}/extra`,
  (p) => `${p}.json`,
  (p) => `${p}%00`,
  (p) => `${p};jsessionid=x`,
  (p) => p.replace(/\/(?=[^/]*$)/, '%2F'),
  (p) => `/v1${p}`,
  (p) => p.replace('/v1/', '/v1//'),
  (p) => p.replace('/v1/', '/v1/%2e/'),
  (p) => `${p}?`,
  (p) => `${p}#frag`,
];

export const TRAVERSALS = [
  '/../../../../etc/passwd',
  '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/..%2f..%2f..%2fetc%2fpasswd',
  '/assets/..%2f..%2f..%2fpackage.json',
  '/assets/../../package.json',
  '/sim-images/..%2f..%2fcoffer.db',
  '/sim-images/%2e%2e%2fconnection.json',
  '/index.html/..%2f..%2fconnection.json',
  '/..%252f..%252fpackage.json',
  '/connection.json',
  '/coffer.db',
  '/keys/',
  '/.git/config',
  '/%5c..%5c..%5cpackage.json',
  '/renderer/dist/../../package.json',
  '/v1/../package.json',
  '/v1/%2e%2e/%2e%2e/package.json',
  '/v1/agents/..%2f..%2f..%2fpackage.json/balance',
  '/sim-images/x.svg',
  '/sim-images/..',
  '/sim-images/%2e%2e%2f%2e%2e%2fkeys',
  '/login',
  '/login?token=',
  '/login?token=%00',
  '/link?token=%22%3E%3Cscript%3E',
  '/favicon.svg',
  '/index.html',
  '/assets/',
  '/assets/%00',
  '/nonexistent',
  '/v1',
  '/v1/',
  '/v2/health',
  '/',
  '/%',
  '/%zz',
];

const OWNER_VARIANTS = (owner: string, rng: Rng): string[] => [
  '',
  'owner=',
  'owner=x',
  `owner=${owner}x`,
  `owner=${owner.toLowerCase()}`,
  `owner=${owner}&owner=${owner}`,
  `owner=${owner}&owner=${randomAddress(rng)}`,
  `owner[]=${owner}`,
  `owner[a]=${owner}`,
  `owner=${'A'.repeat(5000)}`,
  `owner=%00${owner}`,
  `owner=${owner}%00`,
  `owner=%20${owner}`,
  `owner=%F0%9F%99%82`,
  `owner=${randomAddress(rng)}`,
  `owner=${owner.slice(0, -1)}`,
  `owner=${'1'.repeat(32)}`,
  `OWNER=${owner}`,
  `owner=${encodeURIComponent(`${owner}\n`)}`,
];

const QUERY_EXTRAS = [
  'limit=0',
  'limit=-1',
  'limit=501',
  'limit=101',
  'limit=1.5',
  'limit=1e3',
  'limit=abc',
  'limit=',
  'limit=%00',
  'limit=999999999999999999999',
  'limit=00010',
  'limit=%205',
  'limit=1&limit=2',
  'q=' + 'x'.repeat(300),
  'q=%00',
  'q=%',
  'q=*',
  'q=.*',
  "q='",
  'q=%F0%9F%99%82',
  'status=x',
  'status=PENDING',
  'status=pending',
  'status[]=pending',
  'payTo=x',
  'payTo=',
  'token=',
  'token=x',
  'token=' + 'x'.repeat(3000),
  'model=%00',
  'resolution=9k',
];

const RAW_BODIES: (string | (() => string | Buffer))[] = [
  '',
  ' ',
  'null',
  'true',
  '0',
  '-1',
  '"x"',
  '[]',
  '[{}]',
  '{}',
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '\u0000',
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1e999}',
  '{"a":-0}',
  () => '['.repeat(3000) + ']'.repeat(3000),
  () => '{"a":'.repeat(2000) + '1' + '}'.repeat(2000),
  '{"__proto__":{"isAdmin":true,"kind":"owner"}}',
  '{"constructor":{"prototype":{"kind":"owner"}}}',
  '"\\ud800"',
  '{"amount":"\\u0000"}',
  'a=1&b=2',
  '<xml/>',
  () => Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28, 0xa0, 0xa1]),
  '{"a":"\\u00"}',
  '{"a":"\\x41"}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '[1,2,3',
];

const FIELD_VALUES: unknown[] = [
  1,
  0,
  -1,
  1.5,
  1e308,
  -0,
  null,
  true,
  false,
  [],
  {},
  [1],
  { a: 1 },
  '',
  ' ',
  '\t',
  '0',
  '-0.01',
  '0.00',
  '0.0000001',
  '0.000001',
  '1e3',
  '1E-3',
  '１.００',
  '٣',
  'NaN',
  'Infinity',
  '0x10',
  '1,00',
  '1.',
  '.5',
  '+1',
  ' 1',
  '1 ',
  '00001.00',
  '1000000000.000001',
  '1000000000',
  '999999999999999999999999',
  'x'.repeat(300),
  'x'.repeat(5000),
  '\u0000',
  '\ud800',
  '🙂'.repeat(60),
  '\u202eevil',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '__proto__',
  'USDC',
  'usdc',
  'ETH',
  'USDC-ERC20',
  'demo-weather',
  'DEMO-WEATHER',
  '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx',
  ['demo-weather', 1],
  Array.from({ length: 501 }, () => 'demo-weather'),
  [''],
  ['x'.repeat(201)],
  'fz-a',
  'fz-b',
  'owner',
  31_536_001,
  2 ** 53,
  '4k',
  '8k',
  'sdxl',
  'dalle-legacy',
];

function headerMutations(target: FuzzTarget, rng: Rng): [string, string | string[]][] {
  const port = target.port;
  return [
    ['content-type', 'text/plain'],
    ['content-type', 'application/x-www-form-urlencoded'],
    ['content-type', 'multipart/form-data; boundary=x'],
    ['content-type', 'application/json; charset=utf-16'],
    ['content-type', 'application/json; charset=koi8-r'],
    ['content-type', 'application/json; charset=latin1'],
    ['content-type', '*/*'],
    ['content-type', ''],
    ['content-encoding', 'gzip'],
    ['content-encoding', 'deflate'],
    ['content-encoding', 'br'],
    ['content-encoding', 'x-unknown'],
    ['content-encoding', 'identity'],
    ['content-encoding', 'gzip, gzip'],
    ['accept', 'text/html'],
    ['accept', 'application/xml'],
    ['idempotency-key', ''],
    ['idempotency-key', ' '],
    ['idempotency-key', 'a'.repeat(256)],
    ['idempotency-key', 'a b'],
    ['idempotency-key', '\xff\xfe'],
    ['idempotency-key', ['k1', 'k2']],
    ['authorization', 'Bearer'],
    ['authorization', 'Bearer '],
    ['authorization', `Bearer  ${target.ownerKey}`],
    ['authorization', `bearer ${target.ownerKey}`],
    ['authorization', `BEARER ${target.agentKey}`],
    ['authorization', `Basic ${Buffer.from(`x:${target.ownerKey}`).toString('base64')}`],
    ['authorization', `Bearer ${target.ownerKey} extra`],
    ['authorization', `Bearer ${'x'.repeat(8000)}`],
    ['authorization', `Token ${target.ownerKey}`],
    ['authorization', target.ownerKey],
    ['authorization', 'Bearer cof_own_'],
    ['authorization', `Bearer ${target.ownerKey.toLowerCase()}`],
    ['authorization', `Bearer ${target.ownerKey.slice(0, -1)}`],
    ['authorization', `Bearer cof_own_${base58(rng.bytes(32))}`],
    ['authorization', `Bearer cof_agt_${base58(rng.bytes(32))}`],
    ['authorization', [`Bearer ${target.agentKey}`, `Bearer ${target.ownerKey}`]],
    ['cookie', 'coffer_session='],
    ['cookie', 'coffer_session=x'],
    ['cookie', `coffer_session=${'a'.repeat(4000)}`],
    ['cookie', `coffer_session=a; coffer_session=${target.cookie}`],
    ['cookie', 'coffer_session=%00'],
    ['cookie', '=; ;;'],
    ['host', 'evil.example'],
    ['host', '127.0.0.1'],
    ['host', '127.0.0.1:1'],
    ['host', `localhost:${port}`],
    ['host', `[::1]:${port}`],
    ['host', `127.0.0.1:${port}.evil.example`],
    ['host', `LOCALHOST:${port}`],
    ['host', ''],
    ['origin', 'null'],
    ['origin', 'http://evil.example'],
    ['origin', `http://127.0.0.1:${port}.evil.example`],
    ['origin', `http://127.0.0.1:${port}`],
    ['origin', `https://127.0.0.1:${port}`],
    ['origin', 'file://'],
    ['origin', `http://localhost:${port}/`],
    ['x-requested-with', 'coffer'],
    ['x-http-method-override', 'DELETE'],
    ['x-forwarded-host', 'evil.example'],
    ['x-forwarded-for', '203.0.113.9'],
    ['range', 'bytes=0-10'],
    ['if-none-match', '*'],
    ['expect', '100-continue'],
  ];
}

function socketCases(target: FuzzTarget): { label: string; bytes: string | Buffer; path: string; method: string }[] {
  const host = `Host: 127.0.0.1:${target.port}\r\n`;
  const auth = `Authorization: Bearer ${target.ownerKey}\r\n`;
  const owner = `owner=${target.owner}`;
  const pay = JSON.stringify({ service: 'demo-weather', amount: '0.001', currency: 'USDC' });
  return [
    { label: 'baseline', method: 'GET', path: '/v1/health', bytes: `GET /v1/health HTTP/1.1\r\n${host}Connection: close\r\n\r\n` },
    { label: 'lowercase-method', method: 'get', path: '/v1/health', bytes: `get /v1/health HTTP/1.1\r\n${host}\r\n` },
    { label: 'unknown-method', method: 'FOO', path: '/v1/health', bytes: `FOO /v1/health HTTP/1.1\r\n${host}\r\n` },
    { label: 'propfind', method: 'PROPFIND', path: '/v1/agents', bytes: `PROPFIND /v1/agents?${owner} HTTP/1.1\r\n${host}${auth}\r\n` },
    { label: 'http-2.0', method: 'GET', path: '/v1/health', bytes: `GET /v1/health HTTP/2.0\r\n${host}\r\n` },
    { label: 'http-0.9', method: 'GET', path: '/v1/health', bytes: 'GET /v1/health\r\n\r\n' },
    {
      label: 'absolute-uri-evil',
      method: 'GET',
      path: '/v1/health',
      bytes: `GET http://evil.example/v1/health HTTP/1.1\r\nHost: evil.example\r\n\r\n`,
    },
    {
      label: 'absolute-uri-own',
      method: 'GET',
      path: '/v1/dashboard',
      bytes: `GET http://127.0.0.1:${target.port}/v1/dashboard?${owner} HTTP/1.1\r\n${host}${auth}\r\n`,
    },
    { label: 'no-host-1.1', method: 'GET', path: '/v1/health', bytes: 'GET /v1/health HTTP/1.1\r\n\r\n' },
    { label: 'no-host-1.0', method: 'GET', path: '/v1/dashboard', bytes: `GET /v1/dashboard?${owner} HTTP/1.0\r\n${auth}\r\n` },
    { label: 'header-no-colon', method: 'GET', path: '/v1/health', bytes: `GET /v1/health HTTP/1.1\r\n${host}BadHeader\r\n\r\n` },
    { label: 'nul-in-header', method: 'GET', path: '/v1/health', bytes: `GET /v1/health HTTP/1.1\r\n${host}X-A: a\u0000b\r\n\r\n` },
    {
      label: 'obs-fold',
      method: 'GET',
      path: '/v1/dashboard',
      bytes: `GET /v1/dashboard?${owner} HTTP/1.1\r\n${host}Authorization: Bearer\r\n ${target.ownerKey}\r\n\r\n`,
    },
    {
      label: 'space-before-colon',
      method: 'GET',
      path: '/v1/health',
      bytes: `GET /v1/health HTTP/1.1\r\nHost : 127.0.0.1:${target.port}\r\n\r\n`,
    },
    {
      label: 'huge-header',
      method: 'GET',
      path: '/v1/health',
      bytes: `GET /v1/health HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(100_000)}\r\n\r\n`,
    },
    {
      label: 'many-headers',
      method: 'GET',
      path: '/v1/health',
      bytes: `GET /v1/health HTTP/1.1\r\n${host}${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`,
    },
    {
      label: 'cl-and-te',
      method: 'POST',
      path: '/v1/link-sessions',
      bytes: `POST /v1/link-sessions HTTP/1.1\r\n${host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    },
    {
      label: 'negative-cl',
      method: 'POST',
      path: '/v1/link-sessions',
      bytes: `POST /v1/link-sessions HTTP/1.1\r\n${host}Content-Length: -1\r\n\r\n{}`,
    },
    {
      label: 'short-body',
      method: 'POST',
      path: '/v1/treasury/faucet',
      bytes: `POST /v1/treasury/faucet?${owner} HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"amount":"1.00"}`,
    },
    {
      label: 'double-cl',
      method: 'POST',
      path: '/v1/link-sessions',
      bytes: `POST /v1/link-sessions HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    },
    {
      label: 'bad-chunk',
      method: 'POST',
      path: '/v1/link-sessions',
      bytes: `POST /v1/link-sessions HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    },
    {
      label: 'chunked-pay',
      method: 'POST',
      path: '/v1/agents/fz-a/pay',
      bytes: `POST /v1/agents/fz-a/pay?${owner} HTTP/1.1\r\n${host}Authorization: Bearer ${target.agentKey}\r\nTransfer-Encoding: chunked\r\n\r\n${pay.length.toString(16)}\r\n${pay}\r\n0\r\n\r\n`,
    },
    {
      label: 'smuggle',
      method: 'POST',
      path: '/v1/health',
      bytes: `POST /v1/health HTTP/1.1\r\n${host}Content-Length: 0\r\n\r\nGET /v1/agents?${owner} HTTP/1.1\r\n${host}\r\n\r\n`,
    },
    {
      label: 'te-smuggle',
      method: 'POST',
      path: '/v1/link-sessions',
      bytes: `POST /v1/link-sessions HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n0\r\n\r\nPOST /v1/kill-all?${owner} HTTP/1.1\r\n${host}\r\n\r\n`,
    },
    {
      label: 'raw-space-path',
      method: 'GET',
      path: '/v1/agents/a b/balance',
      bytes: `GET /v1/agents/a b/balance?${owner} HTTP/1.1\r\n${host}${auth}\r\n`,
    },
    {
      label: 'raw-utf8-path',
      method: 'GET',
      path: '/v1/agents/ä/balance',
      bytes: Buffer.concat([
        Buffer.from('GET /v1/agents/'),
        Buffer.from('äg🙂', 'utf8'),
        Buffer.from(`/balance?${owner} HTTP/1.1\r\n${host}${auth}\r\n`),
      ]),
    },
    { label: 'raw-ctl-path', method: 'GET', path: '/v1/health', bytes: `GET /v1/he\u0001alth HTTP/1.1\r\n${host}\r\n` },
    { label: 'options-star', method: 'OPTIONS', path: '*', bytes: `OPTIONS * HTTP/1.1\r\n${host}\r\n` },
    { label: 'connect', method: 'CONNECT', path: '127.0.0.1', bytes: `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\n${host}\r\n` },
    {
      label: 'raw-utf8-header',
      method: 'GET',
      path: '/v1/dashboard',
      bytes: Buffer.concat([
        Buffer.from(`GET /v1/dashboard?${owner} HTTP/1.1\r\n${host}Authorization: Bearer `),
        Buffer.from('ключ🙂', 'utf8'),
        Buffer.from('\r\n\r\n'),
      ]),
    },
    {
      label: 'idempotency-ctl',
      method: 'POST',
      path: '/v1/agents/fz-a/pay',
      bytes: `POST /v1/agents/fz-a/pay?${owner} HTTP/1.1\r\n${host}Authorization: Bearer ${target.agentKey}\r\nIdempotency-Key: a\u007fb\r\nContent-Length: ${pay.length}\r\n\r\n${pay}`,
    },
    { label: 'lf-only', method: 'GET', path: '/v1/health', bytes: `GET /v1/health HTTP/1.1\nHost: 127.0.0.1:${target.port}\n\n` },
  ];
}

/** A request to this route that the server should accept, before anything is broken. */
function baseRequest(route: RouteSpec, target: FuzzTarget, rng: Rng, unique: string) {
  const path = fillPath(route.pattern, target.params);
  const query: string[] = [];
  if (takesOwner(route)) query.push(`owner=${target.owner}`);
  if (route.pattern === '/v1/services') query.push('payTo=93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx');
  if (route.pattern === '/v1/services/search') query.push('q=weather');
  if (route.pattern === '/login' || route.pattern === '/link') query.push(`token=${base58(rng.bytes(12))}`);
  const headers: Record<string, string | string[]> = {};
  const auth = rng.weighted([
    [5, 'owner'],
    [3, 'agent'],
    [1, 'none'],
    [1, 'cookie'],
  ] as const);
  if (route.auth !== 'public' && route.auth !== 'page') {
    if (auth === 'owner') headers.authorization = `Bearer ${target.ownerKey}`;
    else if (auth === 'agent') headers.authorization = `Bearer ${target.agentKey}`;
    else if (auth === 'cookie' || route.auth === 'session') Object.assign(headers, target.session);
  }
  const body = validBody(route, unique);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method: route.method, path, query, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

const joinPath = (path: string, query: string[]) =>
  query.length > 0 ? `${path}${path.includes('?') ? '&' : '?'}${query.join('&')}` : path;

/** One fuzz request for a randomly chosen route. */
export function fuzzRequest(routes: RouteSpec[], target: FuzzTarget, rng: Rng, index: number): FuzzRequest {
  const category = rng.weighted([
    [10, 'method'],
    [14, 'segment'],
    [8, 'path'],
    [4, 'traversal'],
    [10, 'query'],
    [12, 'raw-body'],
    [16, 'field'],
    [14, 'header'],
    [6, 'auth'],
    [1.2, 'huge'],
    [1.8, 'socket'],
    [3, 'valid'],
  ] as const);
  if (category === 'socket') {
    const c = rng.pick(socketCases(target));
    return { kind: 'socket', label: `socket:${c.label}`, method: c.method, path: c.path, bytes: c.bytes };
  }
  if (category === 'traversal') {
    const path = rng.pick(TRAVERSALS);
    return {
      kind: 'http',
      label: `traversal:${path}`,
      method: rng.pick(['GET', 'GET', 'HEAD', 'POST']),
      path,
      headers: { authorization: `Bearer ${target.ownerKey}` },
    };
  }
  const route = rng.pick(routes);
  const base = baseRequest(route, target, rng, `fz${index}`);
  const { headers } = base as { headers: Record<string, string | string[]> };
  let { method, path, query, body } = base as { method: string; path: string; query: string[]; body: string | Buffer | undefined };
  let chunked = false;
  let label = `${category}:${route.method} ${route.pattern}`;
  switch (category) {
    case 'method':
      method = rng.pick(METHODS.filter((m) => m !== route.method));
      label += ` as ${method}`;
      break;
    case 'segment': {
      const names = [...route.pattern.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
      const weird = rng.pick(SEGMENTS);
      if (names.length > 0) {
        const name = rng.pick(names);
        path = fillPath(route.pattern, { ...target.params, [name]: weird });
        label += ` :${name}=${weird.slice(0, 40)}`;
      } else {
        path = `${path}/${weird}`;
        label += ` +/${weird.slice(0, 40)}`;
      }
      break;
    }
    case 'path': {
      const trick = rng.pick(PATH_TRICKS);
      path = trick(path);
      label += ` -> ${path.slice(0, 60)}`;
      break;
    }
    case 'query': {
      if (rng.chance(0.6)) {
        const variant = rng.pick(OWNER_VARIANTS(target.owner, rng));
        query = query.filter((q) => !q.startsWith('owner='));
        if (variant) query.push(variant);
        label += ` ?${variant.slice(0, 50)}`;
      } else {
        const extra = rng.pick(QUERY_EXTRAS);
        query.push(extra);
        label += ` ?${extra.slice(0, 50)}`;
      }
      break;
    }
    case 'raw-body': {
      const raw = rng.pick(RAW_BODIES);
      body = typeof raw === 'function' ? raw() : raw;
      headers['content-type'] = rng.chance(0.8) ? 'application/json' : 'text/plain';
      if (method === 'GET' && rng.chance(0.5)) method = 'POST';
      label += ` body=${JSON.stringify(String(body).slice(0, 30))}`;
      break;
    }
    case 'field': {
      const fields = bodyFields(route);
      const names = Object.keys(fields);
      const object: Record<string, unknown> = { ...fields };
      const action =
        names.length === 0
          ? 'add'
          : rng.weighted([
              [6, 'value'],
              [1, 'drop'],
              [1, 'add'],
              [1, 'proto'],
              [1, 'dup'],
            ] as const);
      let text: string;
      if (action === 'value') {
        const name = rng.pick(names);
        const value = rng.pick(FIELD_VALUES);
        object[name] = value;
        text = JSON.stringify(object);
        label += ` ${name}=${JSON.stringify(value)?.slice(0, 30)}`;
      } else if (action === 'drop') {
        const name = rng.pick(names);
        delete object[name];
        text = JSON.stringify(object);
        label += ` without ${name}`;
      } else if (action === 'add') {
        object[rng.pick(['extra', 'owner', 'agentId', 'kind', 'status', 'apiKey', 'isAdmin', 'balance'])] = rng.pick(FIELD_VALUES);
        text = JSON.stringify(object);
        label += ' +unknown field';
      } else if (action === 'proto') {
        text = `{"__proto__":{"kind":"owner","dailyBudget":"999"},${JSON.stringify(object).slice(1)}`.replace(',}', '}');
        label += ' +__proto__';
      } else {
        const name = rng.pick(names);
        text = `{${JSON.stringify(name)}:${JSON.stringify(rng.pick(FIELD_VALUES))},${JSON.stringify(object).slice(1)}`.replace(',}', '}');
        label += ` duplicate ${name}`;
      }
      body = text;
      headers['content-type'] = 'application/json';
      if (method === 'GET') method = rng.chance(0.5) ? 'POST' : 'GET';
      break;
    }
    case 'header': {
      const [name, value] = rng.pick(headerMutations(target, rng));
      headers[name] = value;
      if (name === 'content-encoding' && body !== undefined) {
        const real = rng.chance(0.5) && value === 'gzip';
        body = real ? gzipSync(Buffer.from(String(body))) : Buffer.from('not compressed at all');
        label += real ? ' (real gzip)' : '';
      }
      label += ` ${name}: ${JSON.stringify(value).slice(0, 40)}`;
      break;
    }
    case 'auth': {
      delete headers.authorization;
      delete headers.cookie;
      const variant = rng.pick(['none', 'owner', 'agent', 'other-agent', 'bogus', 'cookie', 'cookie-no-xrw', 'cookie-and-agent'] as const);
      if (variant === 'owner') headers.authorization = `Bearer ${target.ownerKey}`;
      if (variant === 'agent') headers.authorization = `Bearer ${target.agentKey}`;
      if (variant === 'other-agent') headers.authorization = `Bearer ${target.otherAgentKey}`;
      if (variant === 'bogus') headers.authorization = `Bearer cof_agt_${base58(rng.bytes(32))}`;
      if (variant === 'cookie') Object.assign(headers, target.session);
      else if (variant.startsWith('cookie')) headers.cookie = `coffer_session=${target.cookie}`;
      if (variant === 'cookie-and-agent') headers.authorization = `Bearer ${target.agentKey}`;
      label += ` auth=${variant}`;
      break;
    }
    case 'huge': {
      const size = rng.pick([70_000, 1_000_000, 6_000_000]);
      body = JSON.stringify({ service: 'demo-weather', amount: '0.01', pad: 'x'.repeat(size) });
      chunked = rng.chance(0.3);
      if (method === 'GET') method = 'POST';
      headers['content-type'] = 'application/json';
      label += ` ${size} bytes${chunked ? ' chunked' : ''}`;
      break;
    }
    case 'valid':
      break;
  }
  return { kind: 'http', label, method, path: joinPath(path, query), headers, body, chunked, timeoutMs: 10_000 };
}

export { socketCases };
