import type { RequestHandler } from 'express';
import { CofferError } from '../wire/errors.js';
import { sendError } from './errors.js';

/**
 * DNS-rebinding and cross-site guard. The server binds to 127.0.0.1, but a web page can still make a
 * browser send requests to it: a foreign Host (rebinding) or a foreign Origin (cross-site) is refused
 * before anything else runs.
 */
export function localOnly(port: () => number): RequestHandler {
  return (req, res, next) => {
    const refusal = loopbackRefusal(req, port());
    if (refusal !== null) return sendError(res, refusal);
    next();
  };
}

/** Why a request (or a WebSocket upgrade) is refused by the guard above; null when it may go on. */
export function loopbackRefusal(
  {
    headers,
    rawHeaders,
    url,
  }: { headers: { host?: string | undefined; origin?: string | undefined }; rawHeaders: string[]; url?: string | undefined },
  port: number,
): CofferError | null {
  // Node keeps the first of two Host headers: a request naming two hosts is refused, not read as one.
  if (rawHeaders.filter((name, at) => at % 2 === 0 && name.toLowerCase() === 'host').length > 1) {
    return new CofferError('bad_host', 'a request names one Host, not two');
  }
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const host = headers.host ?? '';
  if (!hosts.includes(host.toLowerCase())) return new CofferError('bad_host', `requests must be addressed to ${hosts[0]}`);
  // A target in absolute form names its own host, which HTTP reads in place of Host (RFC 9112 3.2.2):
  // it must be this server too, or a request for evil.example was served here (helper 188).
  const target = url ?? '/';
  if (!target.startsWith('/') && target !== '*' && !hosts.includes(absoluteFormHost(target))) {
    return new CofferError('bad_host', `requests must be addressed to ${hosts[0]}`);
  }
  const { origin } = headers;
  if (origin !== undefined && !hosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
    return new CofferError('bad_origin', 'cross-origin requests are not allowed');
  }
  return null;
}

/**
 * OPTIONS is no method of Coffer's (it takes no cross-origin requests, so answers no preflight): it is
 * `404 not_found` as JSON like any other, not the router's own `Allow:` answer in plain text.
 */
export const noOptions: RequestHandler = (req, res, next) => {
  if (req.method !== 'OPTIONS') return next();
  sendError(res, new CofferError('not_found', `no such endpoint: ${req.method} ${req.path}`));
};

/** The host and port an absolute-form target names (http only), lower case; "" for any other. */
function absoluteFormHost(target: string): string {
  try {
    const parsed = new URL(target);
    return parsed.protocol === 'http:' ? parsed.host.toLowerCase() : '';
  } catch {
    return '';
  }
}
