/**
 * The agent's Coffer as payingFetch reaches it: the /v1 client over the call's fetch, what it says of
 * its networks, and Coffer out of reach as an error.
 */
import { keyClient } from '../../client/coffer-client.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import { byCaller } from './callers-own.js';
import type { PayingAgent } from './paying-fetch-options.js';
import { PaymentError } from './payment-error.js';

/** A fetch whose requests are given up after `ms` (AbortSignal.timeout: its timer keeps no process alive). */
export const timed =
  (doFetch: typeof fetch, ms: number): typeof fetch =>
  (input, init) =>
    doFetch(input, { ...init, signal: AbortSignal.timeout(ms) });

/** The agent's Coffer through the one /v1 client, over this call's fetch (a test may wrap it). */
export const cofferOf = (agent: PayingAgent, doFetch: typeof fetch): CofferClient =>
  keyClient(agent.cofferUrl, { owner: agent.owner, key: agent.apiKey }, doFetch);

/** Coffer not answering (fetch failed), as a PaymentError; the client's own words where it said so already. */
const unreachable = (agent: PayingAgent, error: unknown) =>
  new PaymentError(
    'coffer_unreachable',
    error instanceof CofferApiError && error.code === 'coffer_unreachable'
      ? error.message
      : `Coffer at ${agent.cofferUrl} cannot be reached: ${(error as Error).message}`,
  );

/**
 * A failure on the way to Coffer (its client's, or its answer cut short) as `coffer_unreachable`; a
 * caller's own callback that threw, as it came: that is not Coffer out of reach.
 */
export const unreachableOr = (agent: PayingAgent, error: unknown) => (byCaller(error) ? error : unreachable(agent, error));

/** A read Coffer must answer before anything is paid: no answer, or a failed one, means nothing is paid. */
export async function mustRead<T>(agent: PayingAgent, what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof CofferApiError)) throw error;
    if (error.status === 0) throw unreachable(agent, error);
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} could not ${what} (answered ${error.status})`);
  }
}

/**
 * The Coffer's network, to refuse a 402 that asks for payment on another. Asked at each payment (one
 * request beside a payment's several): a Coffer restarted on the same address may be on another network.
 */
export async function cofferFacts(agent: PayingAgent, api: CofferClient) {
  const health = await mustRead(agent, 'say which network it pays on', () => api.health());
  if (typeof health?.network !== 'string') {
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} did not say which network it pays on`);
  }
  // An older Coffer answers no `base`: it pays no Base.
  return { network: health.network, baseChainId: health.base?.chainId ?? null };
}
