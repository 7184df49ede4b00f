import { expect } from 'vitest';
import type { ApiResponse } from './coffer.js';
import { CofferError, type ErrorCode } from '../../server/wire/errors.js';

/**
 * API.md: every non-2xx answer of /v1 is JSON and exactly `{error, code}`. One assertion for it: the
 * status, the code, a JSON content type, no other key and a non-empty message; `message` (the words,
 * or a pattern for them) when a test pins what the answer says too.
 */
export function expectError(response: ApiResponse, status: number, code: string, message?: string | RegExp): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { code } });
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  // Nothing beside the message and its code, save the refusal that tripped its agent's breaker,
  // which also says so as `agentStopped: {reason}`.
  const { agentStopped, ...rest } = response.body as { agentStopped?: unknown };
  expect(Object.keys(rest).sort()).toEqual(['code', 'error']);
  if (agentStopped !== undefined) expect(agentStopped).toEqual({ reason: expect.any(String) });
  expect(typeof response.body.error).toBe('string');
  expect(response.body.error.length).toBeGreaterThan(0);
  if (message !== undefined) expect(response.body.error).toMatch(message);
}

/** A promise rejected with a CofferError of that code (and words matching `message`, when given); answers it. */
export async function expectCofferError(promise: Promise<unknown>, code: ErrorCode, message?: string | RegExp): Promise<CofferError> {
  const error = await promise.then(
    () => null,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(CofferError);
  expect((error as CofferError).code).toBe(code);
  if (message !== undefined) expect((error as CofferError).message).toMatch(message);
  return error as CofferError;
}
