import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { CofferError } from '../wire/errors.js';
import { quotedIdOr } from '../wire/quoted-id.js';
import { sendError } from './errors.js';
import { firstNameGivenTwice } from './json-names-once.js';

/** The most a JSON body may hold (API.md: `413 body_too_large` past it). */
export const JSON_BODY_LIMIT_BYTES = 64 * 1024;

/** A body-parser failure of Coffer's own reading, by the `type` errors.ts maps to a code. */
const refusal = (type: string) => Object.assign(new Error(type), { type });

/** The refusal of a body past `limit` bytes, said in KiB. */
const tooLarge = (limit: number) => new CofferError('body_too_large', `the request body is larger than ${limit / 1024} KiB`);

/**
 * A body declared larger than the limit is refused before a byte of it is read, and the connection
 * closed with the answer: body-parser would first read off all that was declared, so a client that
 * declares much and sends nothing held the request until the server's request timeout.
 */
export const declaredTooLarge =
  (limit: number): RequestHandler =>
  (req, res, next) => {
    if (Number(req.headers['content-length']) <= limit || req.headers['content-length'] === undefined) return next();
    res.setHeader('Connection', 'close');
    sendError(res, tooLarge(limit));
  };

/**
 * A body that goes on past the limit (chunked, its length never declared) is refused as soon as it
 * has, and the connection closed with the answer: body-parser reads the rest off and drops it before
 * it answers, so a chunk that never ended held the request until the server's request timeout.
 * Counted as sent: a compressed body counts by its bytes on the wire. body-parser, a second reader of
 * the stream, judges the body it inflates; what it parses after this answer goes no further (namesOnce).
 */
export const stopsPastTheLimit =
  (limit: number): RequestHandler =>
  (req, res, next) => {
    let read = 0;
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read <= limit) return;
      req.off('data', count);
      // Security invariant: answered already (body-parser refused the charset or encoding before
      // reading, and the body kept coming), nothing more is written: a second answer threw in this
      // listener and ended the server, for a request no key was needed to send (helper 191).
      if (res.headersSent) return;
      res.setHeader('Connection', 'close');
      sendError(res, tooLarge(limit));
    };
    req.on('data', count);
    // Done with once answered: nothing of the body is for it after that.
    res.once('finish', () => req.off('data', count));
    next();
  };

/**
 * Every body read as JSON whatever its Content-Type (curl -d sends form encoding by default), and as
 * UTF-8 only (RFC 8259): bytes that are not UTF-8 were read with replacement characters, so a service
 * id or memo was paid and kept as text the agent never sent; a charset said to be another is refused,
 * not decoded by it. A field named twice in one object is refused by its name, not read as the last.
 * GET and HEAD take no body: one sent is not read (a `{` on GET /v1/health was invalid_json).
 */
export function jsonBody(): RequestHandler[] {
  const parse = express.json({
    limit: JSON_BODY_LIMIT_BYTES,
    type: () => true,
    strict: true,
    verify: (req, _res, bytes, encoding) => {
      if (!/^utf-?8$/i.test(encoding)) throw refusal('charset.unsupported');
      if (!isUtf8(bytes)) throw refusal('body.not_utf8');
      texts.set(req, bytes.toString('utf8'));
    },
  });
  // Looked at once the text parsed: a cut-off `{"a":1,"a":2` is not JSON, said so, not a name twice.
  const namesOnce: RequestHandler = (req, res, next) => {
    const text = texts.get(req);
    texts.delete(req);
    // Security invariant: a request already answered goes no further. The limit's counter answers 413
    // by the bytes sent; a compressed body may still inflate to less, and body-parser then read it
    // whole: the route ran under a 413 (helper 193: an allocation of 0.50 moved, answered "too large").
    if (res.headersSent) return;
    const twice = text === undefined ? null : firstNameGivenTwice(text);
    next(
      twice === null
        ? undefined
        : new CofferError('invalid_json', `the request body names ${quotedIdOr(twice, 'one field')} twice: JSON names a field once`),
    );
  };
  const bodiless = new Set(['GET', 'HEAD']);
  const counted = stopsPastTheLimit(JSON_BODY_LIMIT_BYTES);
  return [
    declaredTooLarge(JSON_BODY_LIMIT_BYTES),
    (req, res, next) =>
      bodiless.has(req.method)
        ? next()
        : cutOff(req, res, (error) => (error ? next(error) : counted(req, res, () => parse(req, res, next)))),
    namesOnce,
  ];
}

/**
 * Security invariant: a request whose body was announced and never came whole (its client stopped,
 * reset, or broke the chunking) is refused before anything is done. body-parser passes over a
 * request that ended before it was reached as if it had no body, so a return of 0.01 cut off ran as
 * a return with no amount, all of it, and a kill whose chunking broke stopped its agent (helper 188).
 */
const cutOff: RequestHandler = (req, _res, next) => {
  const announced = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  next(
    announced && !req.complete && (req.readableAborted || req.destroyed || req.socket.destroyed || req.readableEnded)
      ? refusal('request.aborted')
      : undefined,
  );
};

/** Each body's text, from its reading to the check of its names (namesOnce). */
const texts = new WeakMap<object, string>();
