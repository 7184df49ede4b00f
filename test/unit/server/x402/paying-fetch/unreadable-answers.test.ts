import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payingFetch } from '../../../../../server/x402/paying-fetch/paying-fetch.js';
import { PaymentError } from '../../../../../server/x402/paying-fetch/payment-error.js';
import { withRetries } from '../../../../../server/x402/paying-fetch/fetch-retries.js';

/**
 * Sellers whose 402 Coffer cannot read: headers larger than fetch reads (Node's 16 KiB: an x402 v2
 * offer of many entries in its PAYMENT-REQUIRED header), or terms in neither x402's form nor Coffer's
 * (another currency). The seller answered; its answer is what Coffer cannot pay.
 */
const AGENT = { cofferUrl: 'http://127.0.0.1:1', owner: 'o', agentId: 'a', apiKey: 'k' };
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/euros') {
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ amount: '1.00', currency: 'EUR', recipient: 'someone' }));
      return;
    }
    res.writeHead(402, { 'payment-required': 'x'.repeat(20_000) });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/many`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('a seller answering with headers over what fetch reads', () => {
  it('is unreadable_402, said as an answer too large to read, not as a seller that could not be reached', async () => {
    const error = await payingFetch(url, {}, { agent: AGENT }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentError);
    expect(error).toMatchObject({ code: 'unreadable_402' });
    expect((error as Error).message).toMatch(
      /^127\.0\.0\.1:\d+ answered with headers larger than Coffer reads \(16 KiB\): its answer, an offer among them, is not read; /,
    );
    expect((error as Error).message).toMatch(/nothing was paid$/);
    expect((error as Error).message).not.toMatch(/could not be reached/);
  });
});

describe('a 402 in neither x402 nor Coffer terms', () => {
  it('is unreadable_402, naming the forms Coffer pays, on both rails, and that nothing was paid', async () => {
    const error = await payingFetch(url.replace('/many', '/euros'), {}, { agent: AGENT }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unreadable_402' });
    expect((error as Error).message).toBe(
      `${url.replace('/many', '/euros')} asked for payment in a form Coffer cannot pay: neither an x402 offer nor Coffer's own 402 terms in USDC (on Solana or Base); nothing was paid`,
    );
  });
});

describe('an answer too large to read, met again after the owner’s yes', () => {
  it('is not sent again as a call lost in transport would be: the seller answered', async () => {
    let calls = 0;
    const overflow = Object.assign(new TypeError('fetch failed'), { cause: { code: 'UND_ERR_HEADERS_OVERFLOW' } });
    await expect(
      withRetries(2, async () => {
        calls++;
        throw overflow;
      }),
    ).rejects.toBe(overflow);
    expect(calls).toBe(1);
    // A call lost in transport is (the contrast that makes the rule).
    calls = 0;
    const lost = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    await expect(
      withRetries(2, async () => {
        calls++;
        throw lost;
      }),
    ).rejects.toBe(lost);
    expect(calls).toBe(3);
  });
});

describe("the caller's own signal, aborted before the seller answered", () => {
  it('is thrown as the caller aborted it, as fetch throws it: not said to be the host out of reach', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const at = `http://127.0.0.1:${(silent.address() as { port: number }).port}/slow`;
      const error = await payingFetch(at, { signal: AbortSignal.timeout(200) }, { agent: AGENT }).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(PaymentError);
      expect((error as DOMException).name).toBe('TimeoutError');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
