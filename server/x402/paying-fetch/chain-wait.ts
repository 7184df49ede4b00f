/**
 * Coffer's own 402 paid while the chain has not confirmed it: followed under its Idempotency-Key for
 * a while, never paid twice.
 */
import { CofferApiError } from '../../client/client-error.js';
import { sleep } from './fetch-retries.js';
import type { PayingFetchOptions } from './paying-fetch-options.js';

/** How often a payment waiting for the chain is asked after (a store read for Coffer, once recorded). */
const CHAIN_POLL_MS = 3_000;
/** How long a payment waiting for the chain is followed by default (`chainWaitMs`). */
export const CHAIN_WAIT_MS = 60_000;

/** The wait for the chain over one call: until when, and whether the caller was told it waits. */
export interface ChainWait {
  until: number;
  ms: number;
  told: boolean;
}

export function chainWaitOf(options: PayingFetchOptions): ChainWait {
  const asked = options.chainWaitMs ?? CHAIN_WAIT_MS;
  const ms = Number.isFinite(asked) ? Math.max(0, asked) : CHAIN_WAIT_MS;
  return { until: Date.now() + ms, ms, told: false };
}

/**
 * A payment asked of Coffer, followed while the chain has not confirmed it (`502 chain_unavailable`)
 * until the call's wait ends: asked again under the same Idempotency-Key, so at most one payment is
 * ever made. What it answers after the wait (still pending, or a refusal) is thrown as it came.
 */
export async function whileChainConfirms<T>(wait: ChainWait, options: PayingFetchOptions, ask: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      const pending = error instanceof CofferApiError && error.status === 502 && error.code === 'chain_unavailable';
      const left = wait.until - Date.now();
      if (!pending || left <= 0) throw error;
      if (!wait.told) options.onChainWait?.();
      wait.told = true;
      await sleep(Math.min(CHAIN_POLL_MS, left));
    }
  }
}

/** How long the chain was waited for, in words (nothing where the call did not wait). */
export function waitedFor(wait: ChainWait, options: PayingFetchOptions): string {
  return wait.ms > 0 && options.approvalId === undefined ? ` in ${Math.round(wait.ms / 1000)} s` : '';
}
