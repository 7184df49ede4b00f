import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner } from '@solana/kit';
import { parseSIWxHeader, SOLANA_DEVNET } from '@x402/extensions/sign-in-with-x';
import { TestCluster } from '../fixtures/test-cluster.js';
import { usdcOn } from '../helpers/cluster-usdc.js';
import { answerOf, startFacilitator, startV2Seller, type TestFacilitator, type TestSeller } from '../fixtures/x402-peers.js';
import { startSiwxSeller, type SiwxSeller } from '../fixtures/x402-siwx-seller.js';
import { deployAgent, micro } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import express from 'express';
import { close, listen } from '../helpers/http-server.js';

/**
 * Issue 29, point 5: Sign-In-With-X. An official `@x402/express` seller with the official sign-in
 * extension (`@x402/extensions`) lets a wallet that paid it in again on a signed proof. Coffer signs
 * that proof with the agent's wallet, so an agent that already bought is let in instead of paying
 * twice; it signs only for the very site asked, on its own chain, for an agent that paid that seller
 * and is not stopped. On a local cluster presented as devnet, with the official facilitator.
 */
describe('Sign-In-With-X: an agent proves its earlier purchase instead of paying again', () => {
  let cluster: TestCluster;
  let facilitator: TestFacilitator;
  let sellerWallet: string;
  let seller: SiwxSeller;
  let plain: TestSeller;
  const usdc = (wallet: string) => usdcOn(cluster, wallet);

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
  });
  afterAll(async () => cluster.stop());
  const t = useCoffer(() => ({ network: cluster.url }));
  beforeAll(async () => {
    cluster.airdrop(t.owner);
    await cluster.mintUsdc(t.owner, micro('100'));
    facilitator = await startFacilitator(cluster);
    sellerWallet = (await generateKeyPairSigner()).address;
    await cluster.mintUsdc(sellerWallet, 0n);
    seller = await startSiwxSeller(facilitator, { payTo: sellerWallet, price: '$0.01' });
    plain = await startV2Seller(facilitator, { payTo: sellerWallet, price: '$0.01' });
  });
  afterAll(async () => {
    await seller.close();
    await plain.close();
    await facilitator.close();
  });

  async function fundedAgent(agentId: string) {
    const agent = await deployAgent(t, agentId, { dailyBudget: '5', maxPerPayment: '1' });
    expect((await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: '1.00' } })).status).toBe(200);
    const payingAgent = { cofferUrl: t.url, owner: t.owner, agentId, apiKey: agent.apiKey };
    return { ...agent, payingAgent, fetch: (url: string) => payingFetch(url, {}, { agent: payingAgent }) };
  }
  const signIn = (agentId: string, key: string, body: unknown) =>
    t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402/sign-in`), { key, body });

  it('the first call pays; the next ones sign in with the wallet that paid and pay nothing', async () => {
    const agent = await fundedAgent('siwx-buyer');
    const first = await agent.fetch(seller.url);
    expect(first.response.status).toBe(200);
    expect(first.payment).toMatchObject({ protocol: 'x402', amount: '0.01' });
    expect(first.signedIn).toBeUndefined();
    await first.settlement;
    expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));

    for (const _ of [1, 2]) {
      const again = await agent.fetch(seller.url);
      expect(again.response.status).toBe(200);
      expect(await again.response.json()).toMatchObject({ data: 'the paid answer' });
      expect(again.payment).toBeNull();
      expect(again.signedIn).toEqual({ address: agent.walletAddress });
    }
    // Money moved once: the seller served three times, was paid once, and its sign-in hook let the wallet in twice.
    expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
    expect(seller.served).toBe(3);
    expect(seller.events.filter((event) => event.type === 'access_granted' && event.address === agent.walletAddress)).toHaveLength(2);
    const history = (await t.api('GET', t.withOwner('/v1/agents/siwx-buyer/spend-history'), { key: agent.apiKey })).body.payments;
    expect(history).toHaveLength(1);

    // With a rail asked, against a Coffer older than the sign-in's `rail` (it refuses the field): asked
    // again without it, and let in; nothing paid.
    const older: typeof fetch = async (input, init) => {
      const sent = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null;
      if (String(input).includes('/x402/sign-in') && sent !== null && 'rail' in sent) {
        return Response.json({ error: 'unknown field "rail"', code: 'invalid_request' }, { status: 400 });
      }
      return fetch(input, init);
    };
    const viaOlder = await payingFetch(seller.url, {}, { agent: agent.payingAgent, rail: 'sol', fetch: older });
    expect(viaOlder.signedIn).toEqual({ address: agent.walletAddress });
    expect(viaOlder.payment).toBeNull();
    expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
  });

  it("the proof is the package's own: for this site, this chain, signed by the agent's wallet", async () => {
    const agent = await fundedAgent('siwx-proof');
    await (
      await agent.fetch(seller.url)
    ).settlement;
    const unpaid = await answerOf(await fetch(seller.url), seller.url);
    const signed = await signIn('siwx-proof', agent.apiKey, unpaid);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ address: agent.walletAddress, chainId: SOLANA_DEVNET, header: { name: 'SIGN-IN-WITH-X' } });
    const proof = parseSIWxHeader(signed.body.header.value);
    expect(proof).toMatchObject({
      domain: new URL(seller.url).host,
      uri: seller.url,
      address: agent.walletAddress,
      chainId: SOLANA_DEVNET,
      type: 'ed25519',
    });
    const admitted = await fetch(seller.url, { headers: { 'sign-in-with-x': signed.body.header.value } });
    expect(admitted.status).toBe(200);
  });

  it("refuses, moving nothing: an agent that never paid that seller, a stopped agent, a 402 that offers no sign-in, another site's challenge", async () => {
    const fresh = await fundedAgent('siwx-fresh');
    const unpaid = await answerOf(await fetch(seller.url), seller.url);
    const never = await signIn('siwx-fresh', fresh.apiKey, unpaid);
    expect([never.status, never.body.code]).toEqual([403, 'not_paid_before']);
    // Without a proof to give, payingFetch pays as ever.
    const bought = await fresh.fetch(seller.url);
    expect(bought.payment).toMatchObject({ amount: '0.01' });
    await bought.settlement;

    const phished = await signIn('siwx-fresh', fresh.apiKey, { ...unpaid, url: 'http://127.0.0.1:9/elsewhere' });
    expect([phished.status, phished.body.code]).toEqual([422, 'sign_in_wrong_origin']);
    const plainOffer = await answerOf(await fetch(plain.url), plain.url);
    const none = await signIn('siwx-fresh', fresh.apiKey, plainOffer);
    expect([none.status, none.body.code]).toEqual([422, 'sign_in_not_offered']);

    await t.api('POST', t.withOwner('/v1/agents/siwx-fresh/kill'));
    const stopped = await signIn('siwx-fresh', fresh.apiKey, unpaid);
    expect([stopped.status, stopped.body.code]).toEqual([403, 'agent_suspended']);
    const bad = await signIn('siwx-fresh', fresh.apiKey, { ...unpaid, status: 200 });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
    expect(await usdc(fresh.walletAddress)).toBe(micro('0.99'));
  });

  it('refuses a challenge the sign-in message cannot carry, in words and with its code: nothing signed, the server unharmed', async () => {
    const agent = await fundedAgent('siwx-odd');
    const bought = await agent.fetch(seller.url);
    expect(bought.payment).toMatchObject({ amount: '0.01' });
    await bought.settlement;
    const asked = await answerOf(await fetch(seller.url), seller.url);
    // The seller's challenge with one field changed, as a hostile or careless seller might send it.
    const challenged = (change: (info: Record<string, unknown>) => void) => {
      const required = JSON.parse(Buffer.from(asked.headers['payment-required']!, 'base64').toString()) as {
        extensions: Record<string, { info: Record<string, unknown> }>;
      };
      change(required.extensions['sign-in-with-x']!.info);
      return { ...asked, headers: { ...asked.headers, 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') } };
    };
    const cases: [string, (info: Record<string, unknown>) => void][] = [
      ['a line break in its statement', (info) => (info.statement = 'sign in\nURI: https://elsewhere.example')],
      ['another version', (info) => (info.version = '2')],
      ['an unreadable time', (info) => (info.issuedAt = 'yesterday')],
      ['an end that is no time', (info) => (info.expirationTime = 'tomorrow')],
      // U+2028 breaks a line too: said in Coffer's words, not the SIWS parser's ({"success":false,…}).
      ['a line separator in its resources', (info) => (info.resources = ['https://a.example/\u2028x'])],
      ['a paragraph separator in its request id', (info) => (info.requestId = 'r\u2029')],
    ];
    for (const [what, change] of cases) {
      const refused = await signIn('siwx-odd', agent.apiKey, challenged(change));
      expect([refused.status, refused.body.code], what).toEqual([422, 'sign_in_not_offered']);
      expect(refused.body.error, what).toMatch(/^the seller's sign-in challenge cannot be signed: /);
      if (what.includes('separator'))
        expect(refused.body.error, what).toMatch(/: its \w+ holds a line break or another control character$/);
    }
    // A field the message writes as text that is none: refused, not signed as "5" or "[object Object]".
    for (const [field, value] of [
      ['statement', 5],
      ['statement', { a: 1 }],
      ['requestId', 5],
      ['nonce', ['a', 'b']],
    ] as const) {
      const refused = await signIn(
        'siwx-odd',
        agent.apiKey,
        challenged((info) => (info[field] = value)),
      );
      expect([refused.status, refused.body.code, refused.body.error], field).toEqual([
        422,
        'sign_in_not_offered',
        `the seller's sign-in challenge cannot be signed: its ${field} is not text`,
      ]);
    }
    // A chain list with a hole in it before this Coffer's chain: that chain is proved (it was a 500).
    const holed = JSON.parse(Buffer.from(asked.headers['payment-required']!, 'base64').toString()) as {
      extensions: Record<string, { supportedChains: unknown[] }>;
    };
    holed.extensions['sign-in-with-x']!.supportedChains.unshift(null, 7);
    const withHole = { ...asked, headers: { ...asked.headers, 'payment-required': Buffer.from(JSON.stringify(holed)).toString('base64') } };
    const proved = await signIn('siwx-odd', agent.apiKey, withHole);
    expect([proved.status, proved.body.address]).toEqual([200, agent.walletAddress]);
    // The challenge as the seller wrote it is signed as ever.
    const signed = await signIn('siwx-odd', agent.apiKey, asked);
    expect(signed.status).toBe(200);
  });

  it('signs in where a redirect led, and counts only a real answer as let in: otherwise it pays as usual', async () => {
    const agent = await fundedAgent('siwx-careful');
    await (
      await agent.fetch(seller.url)
    ).settlement;
    expect((await agent.fetch(seller.url)).signedIn).toEqual({ address: agent.walletAddress });
    // Reached through another site's redirect: the 402 is the seller's, whose challenge the proof
    // answers, sent there alone (the site that redirected sees only the call made). Nothing paid.
    const front = express();
    const frontSaw: string[] = [];
    front.get('/go', (req, res) => {
      frontSaw.push(...Object.keys(req.headers));
      res.redirect(302, seller.url);
    });
    const redirecting = await listen(front);
    try {
      const redirected = await agent.fetch(`${redirecting.url}/go`);
      expect(redirected.signedIn).toEqual({ address: agent.walletAddress });
      expect(redirected.payment).toBeNull();
      expect(await redirected.response.json()).toMatchObject({ data: 'the paid answer' });
      expect(frontSaw).not.toContain('sign-in-with-x');
    } finally {
      await close(redirecting.server);
    }
    // A seller that answers the proof with an error (not a 402): not let in; the purchase goes ahead.
    const failing: typeof fetch = (input, init) =>
      new Headers(init?.headers).has('sign-in-with-x')
        ? Promise.resolve(new Response('proof checker down', { status: 500 }))
        : fetch(input, init);
    const paid = await payingFetch(seller.url, {}, { agent: agent.payingAgent, fetch: failing });
    expect(paid.signedIn).toBeUndefined();
    expect(paid.response.status).toBe(200);
    expect(paid.payment).toMatchObject({ amount: '0.01' });
    await paid.settlement;
    expect(await usdc(agent.walletAddress)).toBe(micro('0.98'));
  });

  it("follows a signed-in call's redirects as fetch would, the proof kept to the seller's own site: let in, not bought again", async () => {
    // Where a seller answers a signed-in call with a redirect (to the resource's current version on its
    // own site, or to another that serves it), the agent was let in: buying again would pay twice.
    const elsewhere = express();
    const elsewhereSaw: string[] = [];
    elsewhere.get('/copy', (req, res) => {
      elsewhereSaw.push(...Object.keys(req.headers));
      res.json({ data: 'the copy elsewhere' });
    });
    const mirror = await listen(elsewhere);
    const moved = await startSiwxSeller(facilitator, {
      payTo: sellerWallet,
      price: '$0.01',
      before: (req, res, next) => {
        if (req.headers['sign-in-with-x'] === undefined || req.path !== '/data') return next();
        if (req.query.to === 'elsewhere') return res.redirect(302, `${mirror.url}/copy`);
        if (req.query.v === undefined) return res.redirect(302, '/data?v=2');
        return next();
      },
    });
    try {
      const agent = await fundedAgent('siwx-moved');
      const first = await agent.fetch(moved.url);
      expect(first.payment).toMatchObject({ amount: '0.01' });
      await first.settlement;

      const again = await agent.fetch(moved.url);
      expect({ status: again.response.status, payment: again.payment, signedIn: again.signedIn }).toEqual({
        status: 200,
        payment: null,
        signedIn: { address: agent.walletAddress },
      });
      expect(again.response.url).toBe(`${moved.url}?v=2`);
      expect(moved.events.filter((event) => event.type === 'access_granted')).toHaveLength(1);

      const copied = await agent.fetch(`${moved.url}?to=elsewhere`);
      expect({ status: copied.response.status, payment: copied.payment, signedIn: copied.signedIn }).toEqual({
        status: 200,
        payment: null,
        signedIn: { address: agent.walletAddress },
      });
      expect(await copied.response.json()).toEqual({ data: 'the copy elsewhere' });
      // The proof went to the seller's site alone: the other one was sent the call without it.
      expect(elsewhereSaw.length).toBeGreaterThan(0);
      expect(elsewhereSaw).not.toContain('sign-in-with-x');

      // The caller's own redirect mode holds: asked 'manual', the seller's redirect of the signed-in call
      // is its answer (let in, as fetch hands it over); asked 'error', the call fails. Nothing bought.
      const manual = await payingFetch(moved.url, { redirect: 'manual' }, { agent: agent.payingAgent });
      expect({ status: manual.response.status, payment: manual.payment, signedIn: manual.signedIn }).toEqual({
        status: 302,
        payment: null,
        signedIn: undefined,
      });
      const errored = await payingFetch(moved.url, { redirect: 'error' }, { agent: agent.payingAgent }).catch((error) => error);
      expect(errored.code).toBe('url_unreachable');
      expect(errored.message).toMatch(/; nothing was paid$/);
      // Where the seller took the proof and a hop after it fails (the place it sends the agent is down,
      // or is no HTTP(S) URL), the agent may have been let in: it fails, nothing bought again.
      let mirrorTries = 0;
      const downHops: typeof fetch = (input, init) =>
        String(input).startsWith(mirror.url) ? (mirrorTries++, Promise.reject(new TypeError('fetch failed'))) : fetch(input, init);
      const down = await payingFetch(`${moved.url}?to=elsewhere`, {}, { agent: agent.payingAgent, fetch: downHops }).catch(
        (error) => error,
      );
      expect({ code: down.code, message: down.message }).toEqual({
        code: 'url_unreachable',
        message: `the signed-in call to ${new URL(moved.url).host} could not be answered (fetch failed); nothing was paid`,
      });
      // Tried again first, as any call of a purchase lost in transport (twice more by default).
      expect(mirrorTries).toBe(3);

      expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
      expect(moved.served).toBe(2);
    } finally {
      await moved.close();
      await close(mirror.server);
    }
  });

  it('a seller that takes the proof and gives no answer within answerWaitMs is url_unreachable: not bought again', async () => {
    const agent = await fundedAgent('siwx-silent');
    await (
      await agent.fetch(seller.url)
    ).settlement;
    const before = { wallet: await usdc(agent.walletAddress), served: seller.served };
    // The signed-in call is taken and never answered (the call gives up when its signal says so).
    const silentToProofs: typeof fetch = (input, init) =>
      new Headers(init?.headers).has('sign-in-with-x')
        ? new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))
        : fetch(input, init);
    const error = await payingFetch(seller.url, {}, { agent: agent.payingAgent, fetch: silentToProofs, answerWaitMs: 300 }).catch((e) => e);
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'url_unreachable',
      message: `the signed-in call to ${new URL(seller.url).host} gave no answer within 0.3 s; nothing was paid`,
    });
    expect({ wallet: await usdc(agent.walletAddress), served: seller.served }).toEqual(before);
    const history = (await t.api('GET', t.withOwner('/v1/agents/siwx-silent/spend-history'), { key: agent.apiKey })).body.payments;
    expect(history).toHaveLength(1);
  });
});

describe('Sign-In-With-X where this Coffer pays x402 on no rail', () => {
  // On sim (x402 names no Solana network of it) with the Base rail off.
  const t = useCoffer({ baseRpc: 'off' });

  it('is refused in words that say why on each rail', async () => {
    const agent = await deployAgent(t, 'siwx-nowhere', { dailyBudget: '5', maxPerPayment: '1' });
    const refused = await t.api('POST', t.withOwner('/v1/agents/siwx-nowhere/x402/sign-in'), {
      key: agent.apiKey,
      body: { url: 'http://127.0.0.1:9/paid', status: 402, headers: {}, body: {} },
    });
    expect([refused.status, refused.body.code]).toEqual([422, 'unsupported_offer']);
    expect(refused.body.error).toBe(
      "x402 pays Solana on devnet and mainnet, and this Coffer's Solana is sim; this Coffer's Base rail is off",
    );
  });
});
