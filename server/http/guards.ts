import type { RequestHandler } from 'express';
import { CofferError } from '../core/errors.js';
import { sendError } from './errors.js';

/**
 * DNS-rebinding and cross-site guard. The server binds to 127.0.0.1, but a web page can still make a
 * browser send requests to it: a foreign Host (rebinding) or a foreign Origin (cross-site) is refused
 * before anything else runs.
 */
export function localOnly(port: () => number): RequestHandler {
  return (req, res, next) => {
    const p = port();
    const hosts = [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`];
    const host = req.headers.host ?? '';
    if (!hosts.includes(host.toLowerCase())) {
      return sendError(res, new CofferError('bad_host', `requests must be addressed to ${hosts[0]}`));
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
      return sendError(res, new CofferError('bad_origin', 'cross-origin requests are not allowed'));
    }
    next();
  };
}
