import { expect } from 'vitest';
import type { ApiResponse } from './coffer.js';

/**
 * API.md: every non-2xx answer of /v1 is JSON and exactly `{error, code}`. One assertion for it: the
 * status, the code, a JSON content type, no other key and a non-empty message; `message` (the words,
 * or a pattern for them) when a test pins what the answer says too.
 */
export function expectError(response: ApiResponse, status: number, code: string, message?: string | RegExp): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { code } });
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
  expect(typeof response.body.error).toBe('string');
  expect(response.body.error.length).toBeGreaterThan(0);
  if (message !== undefined) expect(response.body.error).toMatch(message);
}
