import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { CofferError, givenTimesWords, type ErrorCode } from '../wire/errors.js';
import { agentPathSchema, describeIssues, idempotencyHeaderSchema, noBodySchema } from '../wire/schemas.js';

/** Validates a body or query with a shared schema; a failure is a 400 with the field's stable code. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const { code, message } = describeIssues(result.error);
    throw new CofferError(code as ErrorCode, message);
  }
  return result.data;
}

/**
 * A read's query (req.query), held to its strict schema: every parameter but the owner's key, which
 * principal.ts reads.
 */
export function parseQuery<T extends z.ZodType>(schema: T, query: Record<string, unknown>): z.infer<T> {
  const { owner: _owner, ...asked } = query;
  const result = schema.safeParse(asked);
  if (result.success) return result.data;
  const { code, message } = describeIssues(result.error);
  // A parameter sent twice comes as a list: said so, with the parameter's own code ("limit must be text" it was).
  const named = result.error.issues[0]?.path[0];
  const value = typeof named === 'string' ? asked[named] : undefined;
  throw new CofferError(code as ErrorCode, Array.isArray(value) ? givenTimesWords(named as string, value.length) : message);
}

/**
 * The Idempotency-Key header, checked (400 invalid_idempotency_key); null where none was sent. Sent
 * twice, Node joins the two with ", ", which read as one key with a space in it.
 */
export function idempotencyKeyOf(req: Request): string | null {
  const sent = req.headersDistinct['idempotency-key'] ?? [];
  if (sent.length > 1) throw new CofferError('invalid_idempotency_key', `Idempotency-Key is given ${sent.length} times: send it once`);
  return parseWith(idempotencyHeaderSchema, { idempotencyKey: sent[0] }).idempotencyKey ?? null;
}

/** How many of the query parameters a refusal names. */
const QUERY_NAMED = 5;

/** The query parameters a request sent beside the owner's key, refused by name (400 invalid_request); null where none. */
function queryRefusal(req: Request, takes: string): CofferError | null {
  const asked = Object.keys(req.query as Record<string, unknown>).filter((name) => name !== 'owner');
  if (asked.length === 0) return null;
  const named = asked.slice(0, QUERY_NAMED).map((name) => JSON.stringify(name.slice(0, 60)));
  const more = asked.length > QUERY_NAMED ? ` and ${asked.length - QUERY_NAMED} more` : '';
  return new CofferError(
    'invalid_request',
    `unknown query parameter${asked.length === 1 ? '' : 's'} ${named.join(', ')}${more}: ${takes} takes no query parameter but ?owner=`,
  );
}

/**
 * A write (POST, PUT, DELETE) takes no query parameter beside the owner's key (what it is asked, if
 * anything, is in its JSON body): another is refused by name (400 invalid_request) before anything is
 * done, never ignored. An allocation sent `?rail=base` with an amount in its body moved the money on
 * Solana.
 */
export const writesTakeNoQuery: RequestHandler = (req, _res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  next(queryRefusal(req, `a ${req.method}`) ?? undefined);
};

/**
 * A read that takes no query parameter (the owner's key aside) refuses one by name, as a read with a
 * query refuses one it does not take (parseQuery): `deposits?limit=1` answered all of them, as if
 * the limit were kept (helper 176).
 */
export const readTakesNoQuery: RequestHandler = (req, _res, next) => next(queryRefusal(req, 'this read') ?? undefined);

/**
 * Refuses any body on a POST that takes none (400 invalid_request), before anything is done: an
 * archive sent `{"agentId": "other"}` must not quietly archive the agent in its path. Unlike the
 * other bodies, JSON `null` is not read as empty here.
 */
export function noBody(body: unknown): void {
  const result = noBodySchema.safeParse(body === undefined ? {} : body);
  if (!result.success) throw new CofferError('invalid_request', describeIssues(result.error).message);
}

/** The `:agentId` path parameter, checked like the agentId field of a body (400 invalid_agent_id). */
export const agentIdParam = (value: unknown): string => parseWith(agentPathSchema, { agentId: value }).agentId;
