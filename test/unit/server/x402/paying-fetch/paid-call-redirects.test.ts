import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callSellerCarrying, callSellerFollowing, RedirectFailure } from '../../../../../server/x402/paying-fetch/seller-call.js';
import { withRetries } from '../../../../../server/x402/paying-fetch/fetch-retries.js';
import { payingFetch } from '../../../../../server/x402/paying-fetch/paying-fetch.js';
import { close, listen } from '../../../../helpers/http-server.js';

/**
 * A paid call's redirects (seller-call.ts callSellerCarrying): followed as fetch follows them, but the
 * payment's header goes to the seller's own origin only. Two real servers on loopback: the seller at
 * 127.0.0.1, another site at `localhost` (another origin, the same machine).
 */
const AGENT = { cofferUrl: 'http://127.0.0.1:1', owner: 'o', agentId: 'a', apiKey: 'k' };
const seen: {
  site: string;
  path: string;
  method: string;
  payment: string | null;
  authorization: string | null;
  cookie: string | null;
  body: string;
  contentType: string | null;
}[] = [];
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
      authorization: req.get('authorization') ?? null,
      cookie: req.get('cookie') ?? null,
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
  it("never take the payment header, nor the caller's credentials, to another site", async () => {
    seen.length = 0;
    const response = await paidCall('/away', { headers: { authorization: 'Bearer seller-token', cookie: 'session=1' } });
    expect(await response.json()).toEqual({ at: 'other' });
    expect(seen).toMatchObject([
      { site: 'seller', path: '/away', payment: 'v1.receipt', authorization: 'Bearer seller-token', cookie: 'session=1' },
      { site: 'other', path: '/steal', payment: null, authorization: null, cookie: null },
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

  it('answer the request that reached the last answer: where, and how it was asked there', async () => {
    const { response, request } = await callSellerFollowing(`${seller.url}/form`, { method: 'POST', body: 'q=1' }, { agent: AGENT });
    expect(response.status).toBe(200);
    expect(request).toMatchObject({ url: `${seller.url}/paid`, init: { method: 'GET', body: null } });
  });

  it('are waited for within one answerWaitMs, as the hops of one fetch are', async () => {
    const slow = (answerWaitMs: number) =>
      callSellerCarrying(`${seller.url}/slow/0`, { headers: { 'X-Payment': 'v1.receipt' } }, { agent: AGENT, answerWaitMs }, 'X-Payment');
    // Each hop answers within 0.2 s; the three together do not.
    await expect(slow(200)).rejects.toThrow('no answer within 0.2 s');
    expect(await (await slow(5_000)).json()).toEqual({ at: 'seller' });
  });

  it("end where fetch's would: too many, or a Location that is not HTTP(S), is an error", async () => {
    await expect(paidCall('/loop')).rejects.toThrow(/redirected more than 20 times/);
    await expect(paidCall('/elsewhere')).rejects.toThrow(/redirected to "ftp:\/\/example.test\/file", which is no HTTP\(S\) URL/);
    // An answer, not a transport failure: not tried again (the same redirect would come again).
    let tries = 0;
    await expect(withRetries(2, () => ((tries += 1), paidCall('/elsewhere')))).rejects.toBeInstanceOf(RedirectFailure);
    expect(tries).toBe(1);
    // A caller that asked for the redirect itself gets it, as fetch gives it.
    const manual = await paidCall('/away', { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([302, `${otherUrl}/steal`]);
  });
});

describe('a fetch given that follows redirects itself', () => {
  // One that ignores `redirect: 'manual'` would take a payment's header wherever the seller sends it.
  const following: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'follow' });

  it('is refused at the first redirect it follows, before anything is paid or carried on', async () => {
    seen.length = 0;
    const refused = await payingFetch(`${seller.url}/here`, {}, { agent: AGENT, fetch: following }).catch((error) => error);
    expect({ code: refused.code, message: refused.message }).toEqual({
      code: 'invalid_request',
      message: `the fetch given followed ${seller.url}/here's redirect itself, though asked not to (redirect: 'manual'): payingFetch follows a seller's redirects itself, to keep a payment's header to the site it is for; nothing was paid`,
    });
    const carried = await callSellerCarrying(
      `${seller.url}/away`,
      { headers: { 'X-Payment': 'v1.receipt' } },
      { agent: AGENT, fetch: following },
      'X-Payment',
    ).catch((error) => error);
    expect(carried).toMatchObject({ code: 'invalid_request' });
    // Nor where the caller asked for the redirect itself, which such a fetch would follow all the same.
    await expect(
      callSellerCarrying(
        `${seller.url}/away`,
        { redirect: 'manual', headers: { 'X-Payment': 'v1.receipt' } },
        { agent: AGENT, fetch: following },
        'X-Payment',
      ),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    // Such a fetch is not tried again either.
    let tries = 0;
    await expect(
      withRetries(2, () => ((tries += 1), callSellerFollowing(`${seller.url}/here`, {}, { agent: AGENT, fetch: following }))),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(tries).toBe(1);
  });
});

describe('the URL asked', () => {
  it('is called, paid and recorded as fetch sends it, spaces and all encoded, without a fragment', async () => {
    const paidFor: unknown[] = [];
    const fake: typeof fetch = async (input, init) => {
      const url = String(input);
      if (url.startsWith(AGENT.cofferUrl)) {
        paidFor.push(JSON.parse(String(init?.body)).url);
        return Response.json({ error: 'no', code: 'service_not_allowed' }, { status: 403 });
      }
      const offer = { x402Version: 1, error: 'pay', accepts: [{ scheme: 'exact', network: 'solana-devnet' }] };
      return Response.json(offer, { status: 402 });
    };
    const called: string[] = [];
    const watched: typeof fetch = async (input, init) => (called.push(String(input)), fake(input, init));
    // A fragment too, which fetch never sends: what is paid for is what the seller is asked.
    const refused = await payingFetch('https://seller.example/a b?q=é#top', {}, { agent: AGENT, fetch: watched }).catch((error) => error);
    expect([refused.code, refused.details.cofferCode]).toEqual(['payment_refused', 'service_not_allowed']);
    expect(paidFor).toEqual(['https://seller.example/a%20b?q=%C3%A9']);
    expect(called[0]).toBe('https://seller.example/a%20b?q=%C3%A9');
  });
});

describe('a 402 reached through redirects', () => {
  it('asked over HTTPS and asking for payment over plain HTTP is not paid', async () => {
    const called: string[] = [];
    const fake: typeof fetch = async (input) => {
      const url = String(input);
      called.push(url);
      if (url.startsWith('https:')) return new Response(null, { status: 302, headers: { location: 'http://seller.example/data' } });
      const terms = {
        code: 'payment_required',
        amount: '0.01',
        currency: 'USDC',
        recipient: '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx',
        network: 'sim',
        nonce: 'n'.repeat(40),
      };
      return new Response(JSON.stringify(terms), { status: 402, headers: { 'content-type': 'application/json' } });
    };
    await expect(payingFetch('https://seller.example/data', {}, { agent: AGENT, fetch: fake })).rejects.toMatchObject({
      code: 'unsupported_offer',
      message:
        'https://seller.example/data redirected to http://seller.example/data, which asked for payment over plain HTTP: a payment asked over HTTPS is not sent in the clear; nothing was paid',
    });
    // Coffer was never asked: nothing paid.
    expect(called).toEqual(['https://seller.example/data', 'http://seller.example/data']);
  });
});
