import type { z } from 'zod';
import { CofferError, type ErrorCode } from '../core/errors.js';
import { agentPathSchema, describeIssues } from '../core/schemas.js';

/** Validates a body or query with a shared schema; a failure is a 400 with the field's stable code. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const { code, message } = describeIssues(result.error);
    throw new CofferError(code as ErrorCode, message);
  }
  return result.data;
}

/** The `:agentId` path parameter, checked like the agentId field of a body (400 invalid_agent_id). */
export const agentIdParam = (value: unknown): string => parseWith(agentPathSchema, { agentId: value }).agentId;
