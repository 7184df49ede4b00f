import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payingFetch } from '../../../../../server/x402/paying-fetch/paying-fetch.js';
import { PaymentError } from '../../../../../server/x402/paying-fetch/payment-error.js';

/**
 * A seller whose 402 carries headers larger than fetch reads (Node's 16 KiB): an x402 v2 offer of many
 * entries in its PAYMENT-REQUIRED header. The seller answered; its answer is what Coffer cannot read.
 */
const AGENT = { cofferUrl: 'http://127.0.0.1:1', owner: 'o', agentId: 'a', apiKey: 'k' };
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
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
    expect((error as Error).message).toMatch(/^127\.0\.0\.1:\d+ answered with headers larger than Coffer reads \(16 KiB\)/);
    expect((error as Error).message).toMatch(/nothing was paid$/);
    expect((error as Error).message).not.toMatch(/could not be reached/);
  });
});
