import type { ApiResponse, TestCoffer } from './coffer.js';

type PayBody = Record<string, unknown>;

/**
 * A payment through /v1 as an agent makes it: POST /v1/agents/:agentId/pay with `key` as the Bearer
 * (the owner key when undefined, none when null), the body sent exactly as given. Answers the raw
 * response: tests assert its status and body themselves.
 */
export const pay = (
  t: TestCoffer,
  agentId: string,
  key: string | null | undefined,
  body: PayBody,
  headers?: Record<string, string>,
): Promise<ApiResponse> => t.api('POST', t.withOwner(`/v1/agents/${agentId}/pay`), { key, body, headers });

/** The same payment in USDC: `currency: 'USDC'` unless the body names a currency of its own. */
export const payUsdc = (
  t: TestCoffer,
  agentId: string,
  key: string | null | undefined,
  body: PayBody,
  headers?: Record<string, string>,
): Promise<ApiResponse> => pay(t, agentId, key, { currency: 'USDC', ...body }, headers);
