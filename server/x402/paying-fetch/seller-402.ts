/**
 * A seller's 402 as it came: what Coffer's x402 endpoints take.
 */
import type { X402SignInBody } from '../../wire/schemas.js';

/** A seller's 402 as it came, as Coffer's x402 endpoints take it: its body read once, here (not JSON: none). */
export type SellerAsked = X402SignInBody;
export const sellerAsked = async (url: string, init: RequestInit, response: Response): Promise<SellerAsked> => ({
  url,
  method: (init.method ?? 'GET').toUpperCase(),
  status: 402,
  headers: headersOf(response),
  body: await response.json().catch(() => undefined),
});

/** Response headers as a plain map (the 402's terms may be in one). */
export function headersOf(response: Response): Record<string, string> {
  const all: Record<string, string> = {};
  response.headers.forEach((value, name) => (all[name] = value));
  return all;
}
