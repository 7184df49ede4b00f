import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callSellerCarrying } from '../../../../../server/x402/paying-fetch/seller-call.js';
import { close, listen } from '../../../../helpers/http-server.js';

/**
 * A paid call's redirects (seller-call.ts callSellerCarrying): followed as fetch follows them, but the
 * payment's header goes to the seller's own origin only. Two real servers on loopback: the seller at
 * 127.0.0.1, another site at `localhost` (another origin, the same machine).
 */
const AGENT = { cofferUrl: 'http://127.0.0.1:1', owner: 'o', agentId: 'a', apiKey: 'k' };
const seen: { site: string; path: string; method: string; payment: string | null; body: string; contentType: string | null }[] = [];
let seller: Awaited<ReturnType<typeof listen>>;
let other: Awaited<ReturnType<typeof listen>>;
let otherUrl: string;

const recording = (site: string) => {
  const app = express();
  app.use(express.text({ type: '*/*' }));
  app.use((req, _res, next) => {
    seen.push({
      site,
      path: req.originalUrl,
      method: req.method,
      payment: req.get('x-payment') ?? null,
      body: typeof req.body === 'string' ? req.body : '',
      contentType: req.get('content-type') ?? null,
    });
    next();
  });
  return app;
};

beforeAll(async () => {
  // The other site, whose /bounce leads back to the seller (its address read when asked).
  other = await listen(
    recording('other')
      .get('/bounce', (_req, res) => res.redirect(302, `${seller.url}/paid`))
      .all('/*path', (_req, res) => void res.json({ at: 'other' })),
  );
  otherUrl = other.url.replace('127.0.0.1', 'localhost');
  seller = await listen(
    recording('seller')
      .get('/away', (_req, res) => res.redirect(302, `${otherUrl}/steal`))
      .get('/here', (_req, res) => res.redirect(301, '/paid'))
      .get('/paid', (_req, res) => void res.json({ at: 'seller' }))
      .get('/out-and-back', (_req, res) => res.redirect(302, `${otherUrl}/bounce`))
      .post('/form', (_req, res) => res.redirect(303, '/paid'))
      .post('/keep', (_req, res) => res.redirect(307, '/echo'))
      .post('/echo', (req, res) => void res.json({ body: req.body }))
      .get('/loop', (_req, res) => res.redirect(302, '/loop'))
      .get('/elsewhere', (_req, res) => res.redirect(302, 'ftp://example.test/file'))
      .get('/slow/:hop', (req, res) => {
        const hop = Number(req.params.hop);
        setTimeout(() => (hop < 2 ? res.redirect(302, `/slow/${hop + 1}`) : res.json({ at: 'seller' })), 150);
      }),
  );
});
afterAll(async () => {
  await close(seller.server);
  await close(other.server);
});

const paidCall = (path: string, init: RequestInit = {}) =>
  callSellerCarrying(
    `${seller.url}${path}`,
    { ...init, headers: { 'X-Payment': 'v1.receipt', ...(init.headers ?? {}) } },
    { agent: AGENT },
    'X-Payment',
  );

describe("a paid call's redirects", () => {
  it('never take the payment header to another site', async () => {
    seen.length = 0;
    const response = await paidCall('/away');
    expect(await response.json()).toEqual({ at: 'other' });
    expect(seen).toMatchObject([
      { site: 'seller', path: '/away', payment: 'v1.receipt' },
      { site: 'other', path: '/steal', payment: null },
    ]);
    // Nor back to the seller once a redirect has left its origin (as fetch does with Authorization).
    seen.length = 0;
    expect(await (await paidCall('/out-and-back')).json()).toEqual({ at: 'seller' });
    expect(seen.map(({ site, payment }) => [site, payment])).toEqual([
      ['seller', 'v1.receipt'],
      ['other', null],
      ['seller', null],
    ]);
  });

  it("keep it within the seller's own origin, and change the method as fetch does", async () => {
    seen.length = 0;
    expect(await (await paidCall('/here')).json()).toEqual({ at: 'seller' });
    expect(seen.map(({ path, payment }) => [path, payment])).toEqual([
      ['/here', 'v1.receipt'],
      ['/paid', 'v1.receipt'],
    ]);
    // 303: a GET without the body; 307: the same method and body.
    seen.length = 0;
    const form = { method: 'POST', body: 'q=1', headers: { 'content-type': 'text/plain' } };
    expect((await paidCall('/form', form)).status).toBe(200);
    expect(seen[1]).toMatchObject({ path: '/paid', method: 'GET', body: '', contentType: null, payment: 'v1.receipt' });
    expect(await (await paidCall('/keep', form)).json()).toEqual({ body: 'q=1' });
  });

  it('are waited for within one answerWaitMs, as the hops of one fetch are', async () => {
    const slow = (answerWaitMs: number) =>
      callSellerCarrying(`${seller.url}/slow/0`, { headers: { 'X-Payment': 'v1.receipt' } }, { agent: AGENT, answerWaitMs }, 'X-Payment');
    // Each hop answers within 0.2 s; the three together do not.
    await expect(slow(200)).rejects.toThrow('no answer within 0.2 s');
    expect(await (await slow(5_000)).json()).toEqual({ at: 'seller' });
  });

  it("end where fetch's would: too many is an error, a Location that is not HTTP(S) is the answer", async () => {
    await expect(paidCall('/loop')).rejects.toThrow(/redirected more than 20 times/);
    const elsewhere = await paidCall('/elsewhere');
    expect(elsewhere.status).toBe(302);
    // A caller that asked for the redirect itself gets it, as fetch gives it.
    const manual = await paidCall('/away', { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([302, `${otherUrl}/steal`]);
  });
});
