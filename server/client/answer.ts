// How a /v1 answer is read: its status and JSON body, or a CofferApiError with the server's message and code.
import { CofferApiError } from './client-error.js';
import type { Approval } from '../wire/answers/approvals.js';

export interface Answer<T> {
  status: number;
  body: T;
}

/** A request that may wait for the owner: the result (200), or the approval it now waits in (202). */
export type MayWait<T> = { status: 200; body: T } | { status: 202; body: Approval };

/** Every non-2xx is `{error, code}`; a failed call keeps the server's message and stable code. */
export async function readAnswer<T>(response: Response): Promise<Answer<T>> {
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: a failed answer is reported by its status below
  }
  if (!response.ok) {
    const error = (parsed ?? {}) as { error?: string; code?: string; agentStopped?: { reason?: unknown } };
    const reason = error.agentStopped?.reason;
    throw new CofferApiError(
      response.status,
      error.code ?? 'http_error',
      error.error ?? `Coffer answered ${response.status}`,
      typeof reason === 'string' ? { reason } : undefined,
    );
  }
  return { status: response.status, body: parsed as T };
}
