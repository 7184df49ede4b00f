import http from 'node:http';
import net from 'node:net';

/** One answer as the probe sees it: status, headers, the body as text and, when it is JSON, parsed. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  /** A transport failure (reset, refused, timeout) instead of an answer; status is 0 then. */
  error?: string;
  ms: number;
}

export interface RawRequest {
  method: string;
  /** Sent as is: no normalisation of `..`, `//` or escapes (fetch would rewrite them). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  timeoutMs?: number;
  /** Send the body chunked, without Content-Length. */
  chunked?: boolean;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const MAX_BODY = 4 * 1024 * 1024;

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An HTTP request to a loopback base URL with node:http, so paths and headers go out exactly as given. */
export function rawRequest(base: string, request: RawRequest): Promise<Answer> {
  const target = new URL(base);
  if (target.hostname !== '127.0.0.1') throw new Error(`the probe only talks to 127.0.0.1, not ${target.hostname}`);
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, ms: performance.now() - started });
    };
    const headers: Record<string, string | string[]> = { ...request.headers };
    if (request.body !== undefined && !request.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
      headers['content-length'] = String(Buffer.byteLength(request.body));
    }
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: '127.0.0.1',
        port: Number(target.port),
        method: request.method,
        path: request.path,
        headers,
        agent,
        setHost: !Object.keys(headers).some((h) => h.toLowerCase() === 'host'),
      });
    } catch (error) {
      finish({ status: 0, headers: {}, text: '', json: undefined, error: `client refused to send: ${(error as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy(new Error('timeout'));
    }, request.timeoutMs ?? 30_000);
    req.on('response', (res) => {
      const type = String(res.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        // A live stream never ends by itself: its headers are the answer.
        clearTimeout(timer);
        res.destroy();
        req.destroy();
        finish({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: undefined });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text.length > 0 ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        finish({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        finish({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: undefined, error: error.message });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      finish({ status: 0, headers: {}, text: '', json: undefined, error: error.code ?? error.message });
    });
    if (request.body !== undefined) {
      if (request.chunked) {
        const body = Buffer.from(request.body);
        for (let i = 0; i < body.length; i += 16_384) req.write(body.subarray(i, i + 16_384));
      } else {
        req.write(request.body);
      }
    }
    req.end();
  });
}

/** What came back on a raw socket: the status line's code (0 for none) and the bytes. */
export interface SocketAnswer {
  status: number;
  /** Everything the server wrote (pipelined answers included), as latin1. */
  text: string;
  /** The first answer's body. */
  body: string;
  /** The answer carried a JSON body. */
  json: boolean;
  closedWithoutAnswer: boolean;
  ms: number;
}

/** The first HTTP answer in raw bytes (several may follow when requests were pipelined). */
function firstAnswer(text: string): { status: number; body: string } {
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
  const headerEnd = text.indexOf('\r\n\r\n');
  if (headerEnd < 0) return { status, body: '' };
  const head = text.slice(0, headerEnd);
  const rest = text.slice(headerEnd + 4);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return { status, body: rest.slice(0, Number(length)) };
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    let body = '';
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) break;
      const size = parseInt(rest.slice(at, lineEnd), 16);
      if (!Number.isFinite(size) || size === 0) break;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
    return { status, body };
  }
  return { status, body: rest };
}

/** Writes bytes straight to a loopback socket, for requests node:http would refuse to send. */
export function socketRequest(base: string, bytes: string | Buffer, timeoutMs = 750): Promise<SocketAnswer> {
  const target = new URL(base);
  if (target.hostname !== '127.0.0.1') throw new Error('the probe only talks to 127.0.0.1');
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(target.port) });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const { status, body } = firstAnswer(text);
      let json: boolean;
      try {
        json = isJsonObject(JSON.parse(Buffer.from(body, 'latin1').toString('utf8')));
      } catch {
        json = false;
      }
      resolve({
        status,
        text,
        body: Buffer.from(body, 'latin1').toString('utf8'),
        json,
        closedWithoutAnswer: text.length === 0,
        ms: performance.now() - started,
      });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('connect', () => {
      // Not half-closed: a server may drop the answer to a request whose client already hung up.
      socket.write(bytes);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer is enough: stop as soon as the first one is complete (the socket may stay open).
      const text = Buffer.concat(chunks).toString('latin1');
      const headerEnd = text.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const head = text.slice(0, headerEnd);
      const rest = text.slice(headerEnd + 4);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      if (
        length !== undefined
          ? rest.length >= Number(length)
          : /\r\ntransfer-encoding:\s*chunked/i.test(head)
            ? rest.includes('0\r\n\r\n')
            : status === 204 || status === 304 || (status >= 100 && status < 200)
      ) {
        finish();
      }
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

/** A /v1 client for one server and owner: `?owner=` is added, the key is sent as a bearer token. */
export class Api {
  constructor(
    readonly url: string,
    readonly owner: string,
    public ownerKey: string,
  ) {}

  withOwner(path: string, owner = this.owner): string {
    return `${path}${path.includes('?') ? '&' : '?'}owner=${encodeURIComponent(owner)}`;
  }

  /** `key` defaults to the owner key; null sends none. */
  call(
    method: string,
    path: string,
    options: { key?: string | null; body?: unknown; headers?: Record<string, string>; owner?: string | null; timeoutMs?: number } = {},
  ): Promise<Answer> {
    const key = options.key === undefined ? this.ownerKey : options.key;
    const fullPath = options.owner === null ? path : this.withOwner(path, options.owner ?? this.owner);
    return rawRequest(this.url, {
      method,
      path: fullPath,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      timeoutMs: options.timeoutMs,
    });
  }

  /** Like call, but throws unless the answer is 2xx; returns the JSON body. */
  async ok<T = Record<string, unknown>>(method: string, path: string, options: Parameters<Api['call']>[2] = {}): Promise<T> {
    const answer = await this.call(method, path, options);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`${method} ${path} answered ${answer.status || answer.error}: ${answer.text.slice(0, 300)}`);
    }
    return answer.json as T;
  }
}

/** Runs `worker` over `items` with at most `concurrency` at once. */
export async function pool<T>(items: readonly T[], concurrency: number, worker: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    for (;;) {
      const index = next++;
      if (index >= items.length) return;
      await worker(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, run));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
