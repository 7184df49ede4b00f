// How a /v1 request travels: base URL, who signs it in (owner query, headers), timeout, and what "not answering" means.
import type { Answer } from './answer.js';
import { readAnswer } from './answer.js';
import { CofferApiError } from './client-error.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface Request {
  method: Method;
  /** The /v1 path, already encoded. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Bytes sent as they are (application/octet-stream) instead of a JSON body: a file. */
  bytes?: Blob | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** The caller's own: aborted, the request is given up (as Coffer not answering). */
  signal?: AbortSignal;
}

export interface TransportOptions {
  /** Where /v1 is: an origin (http://127.0.0.1:8799), or '' for the page's own. */
  base: string;
  /** Sent as `?owner=` on every request when set. */
  owner?: string;
  /** The headers that sign a request in, read at each request (a session can start or end between two). */
  auth: () => Record<string, string>;
  /** The error thrown when nothing answers (fetch itself failed). */
  unreachable: (error: Error) => CofferApiError;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export type Transport = ReturnType<typeof createTransport>;

/** A file the server handed over. */
export interface Download {
  /** The name the server gave it (Content-Disposition), if any. */
  fileName: string | null;
  stream: ReadableStream<Uint8Array>;
}

/** What gives a request up: the caller's signal, the transport's timeout, either, or neither. */
function signalOf(request: Request, timeoutMs: number | undefined): { signal?: AbortSignal } {
  const signals = [request.signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter((s) => s !== undefined);
  return signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) };
}

export function createTransport(options: TransportOptions) {
  const base = options.base.replace(/\/+$/, '');
  /** The URL of a path, with the owner and the query (absent values left out). */
  const url = (path: string, query: Record<string, string | undefined> = {}): string => {
    const params = new URLSearchParams();
    if (options.owner) params.set('owner', options.owner);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
    const search = params.toString();
    return `${base}${path}${search ? `?${search}` : ''}`;
  };
  async function respond(request: Request, accept: string): Promise<Response> {
    const doFetch = options.fetch ?? fetch;
    try {
      return await doFetch(url(request.path, request.query), {
        method: request.method,
        // The dashboard signs in by header only: no cookie is sent or needed.
        credentials: 'omit',
        headers: {
          accept,
          ...options.auth(),
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(request.bytes === undefined ? {} : { 'content-type': 'application/octet-stream' }),
          ...request.headers,
        },
        body: request.bytes ?? (request.body === undefined ? undefined : JSON.stringify(request.body)),
        ...signalOf(request, options.timeoutMs),
      });
    } catch (error) {
      throw options.unreachable(error as Error);
    }
  }
  const send = async <T>(request: Request): Promise<Answer<T>> => readAnswer<T>(await respond(request, 'application/json'));
  /** A request answered with a file: its name and its bytes as they arrive; a refusal is read as any other. */
  async function download(request: Request): Promise<Download> {
    const response = await respond(request, 'application/octet-stream, application/json');
    if (!response.ok || response.body === null) {
      await readAnswer(response);
      throw new CofferApiError(response.status, 'http_error', `Coffer answered ${response.status} without a file`);
    }
    const disposition = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '');
    return { fileName: disposition?.[1] ?? null, stream: response.body };
  }
  return { base, url, send, download };
}

/**
 * The CLI's and the MCP bridge's transport: an owner or agent key as Bearer, `?owner=`, 120 s
 * (a payment waits for the chain), and a hint to start Coffer when it does not answer.
 */
export function keyTransport(baseUrl: string, credentials: { owner?: string; key?: string }, fetchImpl?: typeof fetch): Transport {
  const base = baseUrl.replace(/\/+$/, '');
  return createTransport({
    base,
    owner: credentials.owner,
    auth: (): Record<string, string> => (credentials.key ? { authorization: `Bearer ${credentials.key}` } : {}),
    timeoutMs: 120_000,
    unreachable: (error) =>
      new CofferApiError(
        0,
        'coffer_unreachable',
        `Coffer is not answering at ${base} (${error.message}); is \`coffer serve\` or the tray app running?`,
      ),
    fetch: fetchImpl,
  });
}
