import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { CofferError, isCofferError, type ErrorCode } from '../wire/errors.js';
import { HTTP_STATUS } from './error-status.js';

export function sendError(res: Response, error: CofferError): void {
  // Every error, a guard's before any route among them (bad_host, bad_origin), is never cached.
  res.setHeader('Cache-Control', 'no-store');
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  const status = HTTP_STATUS[error.code] as number | undefined;
  if (status === undefined) {
    res.status(500).json({ error: 'internal error', code: 'internal' });
    return;
  }
  // The refusal that stopped its agent says so in a field too, as a payment that did says `agentStopped`.
  res.status(status).json({ error: error.message, code: error.code, ...(error.agentStopped ? { agentStopped: error.agentStopped } : {}) });
}

export const notFound: RequestHandler = (req, res) => {
  // The path as sent (a router's req.path has lost its /v1).
  sendError(res, new CofferError('not_found', `no such endpoint: ${req.method} ${req.originalUrl.split('?')[0]!.slice(0, 200)}`));
};

/** Body-parser failures carry a `type`; everything else unknown is a 500 without details. */
const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  'entity.parse.failed': { code: 'invalid_json', message: 'the request body is not valid JSON' },
  'entity.too.large': { code: 'body_too_large', message: 'the request body is larger than 64 KiB' },
  'encoding.unsupported': { code: 'invalid_request', message: 'unsupported body encoding' },
  'charset.unsupported': { code: 'invalid_request', message: 'unsupported body charset: JSON is read as UTF-8' },
  'body.not_utf8': { code: 'invalid_request', message: 'the request body is not UTF-8' },
  'request.aborted': { code: 'invalid_request', message: 'the request was aborted' },
};

export function errorHandler(log: (message: string) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    if (isCofferError(error)) return sendError(res, error);
    const type = (error as { type?: unknown }).type;
    const parserError = typeof type === 'string' ? PARSER_ERRORS[type] : undefined;
    const notAnObject = type === 'entity.parse.failed' ? jsonOtherThanObject((error as { body?: unknown }).body) : null;
    if (notAnObject !== null)
      return sendError(res, new CofferError('invalid_json', `the request body must be a JSON object, not ${notAnObject}`));
    if (parserError) return sendError(res, new CofferError(parserError.code, parserError.message));
    // Other errors express and body-parser mark as the client's (a malformed %-escape in the path,
    // a body that is not in its declared Content-Encoding) are 400s, not 500s.
    const status = Number((error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode);
    if (status >= 400 && status < 500) {
      return sendError(res, new CofferError('invalid_request', 'the request is malformed (path or body encoding)'));
    }
    // Never a stack trace to the client; the log gets the message only (no request bodies, no keys).
    log(`internal error: ${(error as Error)?.message ?? String(error)}`);
    sendError(res, new CofferError('internal', 'internal error'));
  };
}

/**
 * What a body strict JSON parsing refused is, where it is JSON all the same (a bare scalar: `null`,
 * `42`, `"hi"`, `true`), in words; null where it is no JSON at all.
 */
function jsonOtherThanObject(body: unknown): string | null {
  if (typeof body !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (value === null) return 'null';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'string') return 'a string';
  return typeof value === 'boolean' ? 'true or false' : null;
}
