import { describe, expect, it, vi } from 'vitest';
import { payingFetch } from '../../../../../server/x402/paying-fetch/paying-fetch.js';
import { PaymentError, refusedBy } from '../../../../../server/x402/paying-fetch/payment-error.js';
import { CofferApiError } from '../../../../../server/client/client-error.js';
import type { PayingFetchOptions } from '../../../../../server/x402/paying-fetch/paying-fetch-options.js';

const AGENT = { cofferUrl: 'http://127.0.0.1:1', owner: 'o', agentId: 'a', apiKey: 'k' };

describe("payingFetch's options, checked before anything is called", () => {
  it.each([
    ['a rail that is none', { rail: 'eth' }, /rail must be "sol" or "base"/],
    ['retries below 0', { retries: -1 }, /retries must be a whole number from 0 to 10/],
    ['retries not whole', { retries: 1.5 }, /retries must be a whole number from 0 to 10/],
    ['a chain wait below 0', { chainWaitMs: -5 }, /chainWaitMs must be a number of milliseconds from 0/],
    ['a chain wait that is no number', { chainWaitMs: Number.NaN }, /chainWaitMs must be a number of milliseconds from 0/],
  ])('%s is invalid_request, the seller never called', async (_what, asked, words) => {
    const doFetch = vi.fn<typeof fetch>();
    const options = { agent: AGENT, fetch: doFetch, ...asked } as unknown as PayingFetchOptions;
    const error = await payingFetch('http://127.0.0.1:2/item', {}, options).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PaymentError);
    expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(words) });
    expect((error as Error).message).toMatch(/nothing was called or paid/);
    expect(doFetch).not.toHaveBeenCalled();
  });
});

describe('PaymentError', () => {
  it('carries the breaker that stopped the agent where a CofferApiError does, not only in its details', () => {
    const refused = new CofferApiError(402, 'max_per_payment_exceeded', 'too much', { reason: 'its breaker tripped' });
    const error = new PaymentError('payment_refused', 'Coffer refused the payment: too much', refusedBy(refused));
    expect(error.agentStopped).toEqual({ reason: 'its breaker tripped' });
    expect(error.details.agentStopped).toEqual({ reason: 'its breaker tripped' });
    expect(error.status).toBe(402);
  });
});
