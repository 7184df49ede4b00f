/**
 * Who verifies and settles a paywall's x402 payments: the official facilitator's client, in this
 * process (in-process-facilitator.ts) or at a URL.
 */
import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';

/**
 * Who verifies and settles x402 payments for a paywall: an official facilitator, in this process
 * (in-process-facilitator.ts: a fee payer on Solana, an account that sends on Base) or at a URL (`facilitatorAt`).
 */
export type Facilitator = FacilitatorClient;

/** A facilitator reached over HTTP (its `/supported`, `/verify`, `/settle`); each request ends after `timeoutMs` (the package's 90 s by default). */
export function facilitatorAt(url: string, timeoutMs?: number): Facilitator {
  return new HTTPFacilitatorClient({ url, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
