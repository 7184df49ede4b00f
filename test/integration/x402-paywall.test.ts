/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen } from '../helpers/http-server.js';
import type { Server } from 'node:http';
import express from 'express';
import { createHash, randomBytes } from 'node:crypto';
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
  type KeyPairSigner,
} from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { wrapFetchWithPayment as wrapFetchWithPaymentV1, createSigner } from 'x402-fetch';
import { TestCluster } from '../fixtures/test-cluster.js';
import { usdcOn } from '../helpers/cluster-usdc.js';
import { DEVNET, startFacilitator, type TestFacilitator } from '../fixtures/x402-peers.js';
import { micro, deployAgent, startCoffer, type TestCoffer } from '../helpers/coffer.js';
import { createPaywall, paymentOf } from '../../server/x402/paywall/paywall.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { facilitatorAt, type Facilitator } from '../../server/x402/paywall/facilitator.js';
import { UNANSWERED_KEPT_MS } from '../../server/x402/paywall/kept-answer.js';
import { inProcessFacilitator } from '../../server/x402/paywall/in-process-facilitator.js';
import { rpcTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import type { TransferLookup } from '../../server/core/ports/chain.js';

/** A wallet whose secret the v1 client takes as base58 (64 bytes: seed and public key). */
async function walletWithSecret(): Promise<{ signer: KeyPairSigner; secret: string }> {
  const seed = new Uint8Array(randomBytes(32));
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secret = new Uint8Array(64);
  secret.set(seed);
  secret.set(getAddressEncoder().encode(signer.address), 32);
  return { signer, secret: getBase58Decoder().decode(secret) };
}

/**
 * x402 clients pay a Coffer paywall: the official `@x402/fetch` (v2) and `x402-fetch` (v1) buyers,
 * the payment settled by the official facilitator, on the test cluster presented as devnet. Coffer's
 * own receipts keep working on the same route.
 */
describe("x402 clients pay Coffer's paywall", () => {
  let cluster: TestCluster;
  let lookup: TransferLookup;
  let store: PaywallStore;
  let seller: string;
  let api: { url: string; server: Server };
  let served = 0;
  let clock = Date.now();
  let feePayer: KeyPairSigner;

  const usdc = (wallet: string) => usdcOn(cluster, wallet);
  /** A paywall of its own through `facilitator` (its log kept out of the output): its `/data` at 0.01 USDC. */
  const paywallThrough = (facilitator: Facilitator, description: string) => {
    const paywall = createPaywall({
      recipient: seller,
      lookup,
      store: openPaywallStore(':memory:'),
      x402: { facilitator },
      log: () => undefined,
    });
    const app = express();
    app.get('/data', paywall.require({ price: '0.01', description }), (_req, res) => res.json({ ok: true }));
    return listen(app);
  };

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
    lookup = await rpcTransferLookup(cluster.url);
    store = openPaywallStore(':memory:');
    seller = (await generateKeyPairSigner()).address;
    await cluster.mintUsdc(seller, 0n);
    feePayer = await generateKeyPairSigner();
    cluster.airdrop(feePayer.address);
    const paywall = createPaywall({
      recipient: seller,
      lookup,
      store,
      x402: { facilitator: inProcessFacilitator({ feePayer, rpcUrl: cluster.url, network: 'devnet' }) },
      now: () => clock,
    });
    const app = express();
    app.get('/data', paywall.require({ price: '0.01', description: 'Paid data' }), (_req, res) => {
      served += 1;
      res.json({ data: 'sold', payer: paymentOf(res)?.payer });
    });
    app.get('/other', paywall.require({ price: '0.01', description: 'Other data' }), (_req, res) => res.json({ other: true }));
    api = await listen(app);
  });
  afterAll(async () => {
    await close(api.server);
    store.close();
    await cluster.stop();
  });

  it('names the resource as the URL asked, its query too, as the official middleware does', async () => {
    const unpaid = await fetch(`${api.url}/data?city=Lisbon&days=2`);
    expect(unpaid.status).toBe(402);
    const body = (await unpaid.json()) as any;
    expect(body.accepts[0].resource).toBe(`${api.url}/data?city=Lisbon&days=2`);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    expect(required.resource.url).toBe(`${api.url}/data?city=Lisbon&days=2`);
  });

  it("its 402 offers Coffer's terms, an x402 v1 accepts list and a v2 PAYMENT-REQUIRED header, with the facilitator's fee payer and the nonce as memo", async () => {
    const unpaid = await fetch(`${api.url}/data`);
    expect(unpaid.status).toBe(402);
    const body = (await unpaid.json()) as any;
    expect(body).toMatchObject({
      code: 'payment_required',
      amount: '0.01',
      currency: 'USDC',
      recipient: seller,
      network: 'devnet',
      x402Version: 1,
    });
    expect(body.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: 'solana-devnet',
        maxAmountRequired: '10000',
        payTo: seller,
        asset: cluster.mint.address,
        resource: `${api.url}/data`,
        extra: { feePayer: feePayer.address },
      }),
    ]);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: `${api.url}/data` },
      accepts: [
        {
          scheme: 'exact',
          network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
          amount: '10000',
          payTo: seller,
          extra: { feePayer: feePayer.address, memo: body.nonce },
        },
      ],
    });
  });

  it('an @x402/fetch (v2) buyer pays and gets the answer once; the money moves once; a replay is refused', async () => {
    const buyer = await generateKeyPairSigner();
    await cluster.mintUsdc(buyer.address, micro('1'));
    const before = { buyer: await usdc(buyer.address), seller: await usdc(seller), served };
    let lastPaymentHeader = '';
    const recording: typeof fetch = async (input, init) => {
      const header =
        new Headers(init?.headers).get('payment-signature') ?? (input instanceof Request ? input.headers.get('payment-signature') : null);
      if (header) lastPaymentHeader = header;
      return fetch(input, init);
    };
    const paidFetch = wrapFetchWithPayment(
      recording,
      x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
    );
    const response = await paidFetch(`${api.url}/data`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: 'sold', payer: buyer.address });
    const settled = JSON.parse(Buffer.from(response.headers.get('payment-response')!, 'base64').toString());
    expect(settled).toMatchObject({ success: true, payer: buyer.address, network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' });
    expect(served).toBe(before.served + 1);
    expect(await usdc(buyer.address)).toBe(before.buyer - micro('0.01'));
    expect(await usdc(seller)).toBe(before.seller + micro('0.01'));
    // The buyer paid no fee: it holds no SOL at all.
    expect(cluster.ledger.svm.getBalance(address(buyer.address)) ?? 0n).toBe(0n);

    const replay = await fetch(`${api.url}/data`, { headers: { 'payment-signature': lastPaymentHeader } });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as any).code).toBe('receipt_already_used');
    expect(served).toBe(before.served + 1);
    expect(await usdc(seller)).toBe(before.seller + micro('0.01'));
  });

  it('an x402-fetch (v1) buyer pays and gets the answer once; a replay is refused at once as used', async () => {
    const buyer = await walletWithSecret();
    await cluster.mintUsdc(buyer.signer.address, micro('1'));
    const before = { seller: await usdc(seller), served };
    const signer = await createSigner('solana-devnet', buyer.secret);
    let lastPaymentHeader = '';
    const recording: typeof fetch = async (input, init) => {
      const header = new Headers(init?.headers).get('x-payment') ?? (input instanceof Request ? input.headers.get('x-payment') : null);
      if (header) lastPaymentHeader = header;
      return fetch(input, init);
    };
    const paidFetch = wrapFetchWithPaymentV1(recording, signer, undefined, undefined, { svmConfig: { rpcUrl: cluster.url } });
    const response = await paidFetch(`${api.url}/data`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: 'sold', payer: buyer.signer.address });
    expect(response.headers.get('x-payment-response')).toBeTruthy();
    expect(served).toBe(before.served + 1);
    expect(await usdc(seller)).toBe(before.seller + micro('0.01'));

    // A v1 payment names no nonce of the paywall's: it is known by its digest, not left to the
    // facilitator (whose duplicate cache said "try again", 503, until the blockhash ran out).
    for (const header of ['x-payment', 'payment-signature']) {
      const replay = await fetch(`${api.url}/data`, { headers: { [header]: lastPaymentHeader } });
      expect({ header, status: replay.status, code: ((await replay.json()) as any).code }).toEqual({
        header,
        status: 402,
        code: 'receipt_already_used',
      });
    }
    // The same transaction spelled otherwise (its fee payer's signature slot, which the facilitator
    // fills, holding other bytes) is the same payment: refused at once too, not "try again".
    const decoded = JSON.parse(Buffer.from(lastPaymentHeader, 'base64').toString()) as { payload: { transaction: string } };
    const wire = Buffer.from(decoded.payload.transaction, 'base64');
    wire.set(randomBytes(64), 1);
    const respelled = { ...decoded, payload: { ...decoded.payload, transaction: wire.toString('base64') } };
    const replay = await fetch(`${api.url}/data`, { headers: { 'x-payment': Buffer.from(JSON.stringify(respelled)).toString('base64') } });
    expect({ status: replay.status, code: ((await replay.json()) as any).code }).toEqual({ status: 402, code: 'receipt_already_used' });
    expect(served).toBe(before.served + 1);
    expect(await usdc(seller)).toBe(before.seller + micro('0.01'));

    // A paywall upgraded from one that accepted it under its digest then (of the whole wire
    // transaction) refuses it at once too: its facilitator is not asked.
    const settled = JSON.parse(Buffer.from(response.headers.get('x-payment-response')!, 'base64').toString()) as { transaction: string };
    const upgradedStore = openPaywallStore(':memory:');
    const wireDigest = createHash('sha256')
      .update(JSON.stringify([decoded.payload.transaction]))
      .digest('hex');
    upgradedStore.accept({
      txSignature: settled.transaction,
      nonce: `v1:${wireDigest}`,
      payer: buyer.signer.address,
      amount: micro('0.01'),
      acceptedAt: clock,
      nonceExpiresAt: clock + 3_600_000,
    });
    const inner = inProcessFacilitator({ feePayer, rpcUrl: cluster.url, network: 'devnet' });
    let asked = 0;
    const counting = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (property === 'verify' || property === 'settle') asked += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const upgraded = createPaywall({ recipient: seller, lookup, store: upgradedStore, x402: { facilitator: counting }, now: () => clock });
    const app = express();
    app.get('/data', upgraded.require({ price: '0.01', description: 'Paid data' }), (_req, res) => res.json({ served: true }));
    const upgradedApi = await listen(app);
    try {
      const again = await fetch(`${upgradedApi.url}/data`, { headers: { 'x-payment': lastPaymentHeader } });
      expect({ status: again.status, code: ((await again.json()) as any).code, asked }).toEqual({
        status: 402,
        code: 'receipt_already_used',
        asked: 0,
      });
    } finally {
      await close(upgradedApi.server);
      upgradedStore.close();
    }
  });

  it('refuses x402 payments bound to another nonce, another route, an expired nonce, or tampered, and moves nothing', async () => {
    const buyer = await generateKeyPairSigner();
    await cluster.mintUsdc(buyer.address, micro('1'));
    const client = x402Client.fromConfig({
      schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }],
    });
    /** A real v2 payment payload for the terms of one 402, edited before it is presented. */
    const payFor = async (path: string, edit: (required: any) => void = () => undefined) => {
      const unpaid = await fetch(`${api.url}${path}`);
      const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
      edit(required);
      const payload = await client.createPaymentPayload(required);
      return Buffer.from(JSON.stringify(payload)).toString('base64');
    };
    const present = async (path: string, header: string) => {
      const answer = await fetch(`${api.url}${path}`, { headers: { 'payment-signature': header } });
      return { status: answer.status, code: ((await answer.json()) as any).code };
    };
    const before = { buyer: await usdc(buyer.address), served };
    expect(await present('/data', await payFor('/data', (r) => (r.accepts[0].extra.memo = 'not-a-nonce-of-ours')))).toEqual({
      status: 402,
      code: 'unknown_nonce',
    });
    expect(await present('/data', await payFor('/other'))).toEqual({ status: 402, code: 'wrong_resource' });
    expect(await present('/data', await payFor('/data', (r) => (r.accepts[0].amount = '1')))).toEqual({
      status: 402,
      code: 'payment_rejected',
    });
    expect(await present('/data', Buffer.from('{"x402Version":2}').toString('base64'))).toEqual({ status: 402, code: 'invalid_payment' });
    expect(await present('/data', 'not base64 at all!')).toEqual({ status: 402, code: 'invalid_payment' });
    const late = await payFor('/data');
    clock += 301_000;
    try {
      expect(await present('/data', late)).toEqual({ status: 402, code: 'receipt_expired' });
    } finally {
      clock -= 301_000;
    }
    expect(served).toBe(before.served);
    expect(await usdc(buyer.address)).toBe(before.buyer);
  });

  it("Coffer's own agents still pay it with receipts (Coffer on the same cluster)", async () => {
    const t: TestCoffer = await startCoffer({ network: cluster.url });
    try {
      cluster.airdrop(t.owner);
      await cluster.mintUsdc(t.owner, micro('10'));
      const agent = await deployAgent(t, 'receipt-payer', { dailyBudget: '1', maxPerPayment: '1' });
      await t.api('POST', t.withOwner('/v1/agents/receipt-payer/allocate'), { body: { amount: '1' } });
      const { response, payment } = await payingFetch(
        `${api.url}/data`,
        {},
        { agent: { cofferUrl: t.url, owner: t.owner, agentId: 'receipt-payer', apiKey: agent.apiKey } },
      );
      expect(response.status).toBe(200);
      expect(payment).toMatchObject({ protocol: 'coffer', status: 'confirmed', header: { name: 'X-Payment' } });
    } finally {
      await t.stop();
    }
  });

  describe('with a facilitator reached over HTTP', () => {
    let facilitator: TestFacilitator;
    beforeAll(async () => {
      facilitator = await startFacilitator(cluster);
    });
    afterAll(async () => facilitator.close());

    it('settles through it; when it cannot be reached the 402 still offers receipts and an x402 payment is 503', async () => {
      const app = express();
      const paywall = createPaywall({
        recipient: seller,
        lookup,
        store: openPaywallStore(':memory:'),
        x402: { facilitator: facilitatorAt(facilitator.url) },
      });
      app.get('/data', paywall.require({ price: '0.02', description: 'Remote' }), (_req, res) => res.json({ ok: true }));
      const remote = await listen(app);
      const dead = createPaywall({
        recipient: seller,
        lookup,
        store: openPaywallStore(':memory:'),
        x402: { facilitator: facilitatorAt('http://127.0.0.1:9') },
        log: () => undefined,
      });
      const deadApp = express();
      deadApp.get('/data', dead.require({ price: '0.02', description: 'Dead' }), (_req, res) => res.json({ ok: true }));
      const deadServer = await listen(deadApp);
      try {
        const buyer = await generateKeyPairSigner();
        await cluster.mintUsdc(buyer.address, micro('1'));
        const paidFetch = wrapFetchWithPayment(
          fetch,
          x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
        );
        expect((await paidFetch(`${remote.url}/data`)).status).toBe(200);
        expect(facilitator.settles.succeeded).toBe(1);

        const unpaid = await fetch(`${deadServer.url}/data`);
        expect(unpaid.status).toBe(402);
        expect(unpaid.headers.get('payment-required')).toBeNull();
        const body = (await unpaid.json()) as any;
        expect(body).toMatchObject({ code: 'payment_required', amount: '0.02' });
        expect(body).not.toHaveProperty('accepts');
        // A well-formed payment (made for the other paywall's terms) cannot be settled without the facilitator.
        const terms = JSON.parse(Buffer.from((await fetch(`${remote.url}/data`)).headers.get('payment-required')!, 'base64').toString());
        const payload = await x402Client
          .fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] })
          .createPaymentPayload(terms);
        const attempt = await fetch(`${deadServer.url}/data`, {
          headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') },
        });
        expect(attempt.status).toBe(503);
        expect(((await attempt.json()) as any).code).toBe('verifier_unavailable');
      } finally {
        await close(remote.server);
        await close(deadServer.server);
      }
    });
    it('one slow to say what it settles holds no 402 for long: receipts are offered meanwhile, x402 once it answers', async () => {
      // Its /supported answers only when the test lets it (the official client waits 90 s for it).
      let letAnswer: () => void = () => {};
      const answers = new Promise<void>((resolve) => (letAnswer = resolve));
      const facadeApp = express();
      facadeApp.use(express.json());
      facadeApp.get('/supported', async (_req, res) => {
        await answers;
        res.json(await facilitator.client.getSupported());
      });
      facadeApp.post('/verify', async (req, res) => {
        res.json(await facilitator.client.verify(req.body.paymentPayload, req.body.paymentRequirements));
      });
      facadeApp.post('/settle', async (req, res) => {
        res.json(await facilitator.client.settle(req.body.paymentPayload, req.body.paymentRequirements));
      });
      const facade = await listen(facadeApp);
      const paywall = createPaywall({
        recipient: seller,
        lookup,
        store: openPaywallStore(':memory:'),
        x402: { facilitator: facilitatorAt(facade.url) },
        log: () => undefined,
      });
      const app = express();
      app.get('/data', paywall.require({ price: '0.02', description: 'Slow' }), (_req, res) => res.json({ ok: true }));
      const slow = await listen(app);
      try {
        for (let request = 0; request < 3; request += 1) {
          const unpaid = await fetch(`${slow.url}/data`);
          expect(unpaid.status).toBe(402);
          expect(unpaid.headers.get('payment-required')).toBeNull();
          expect(await unpaid.json()).toMatchObject({ code: 'payment_required', amount: '0.02' });
        }
        letAnswer();
        const buyer = await generateKeyPairSigner();
        await cluster.mintUsdc(buyer.address, micro('1'));
        const paidFetch = wrapFetchWithPayment(
          fetch,
          x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
        );
        // The question still out is answered, and the answer kept: the next 402 offers x402.
        await expect.poll(async () => (await fetch(`${slow.url}/data`)).headers.get('payment-required')).not.toBeNull();
        expect((await paidFetch(`${slow.url}/data`)).status).toBe(200);
        expect(await usdc(buyer.address)).toBe(micro('0.98'));
      } finally {
        letAnswer();
        await close(slow.server);
        await close(facade.server);
      }
    });
  });

  describe('with a facilitator over HTTP that answers a refusal with a 4xx status', () => {
    let facilitator: TestFacilitator;
    let facade: { url: string; server: Server };
    /** What its /settle answers in place of the facilitator's own: null passes the settlement on. */
    let settleAnswer: { status: number; body: unknown } | null = null;
    beforeAll(async () => {
      facilitator = await startFacilitator(cluster);
      // Its refusals carry their reason in a 400 (the official HTTP client reads them as VerifyError
      // and SettleError); everything else is the official facilitator's.
      const app = express();
      app.use(express.json());
      app.get('/supported', async (_req, res) => void res.json(await facilitator.client.getSupported()));
      app.post('/verify', async (req, res) => {
        const verified = await facilitator.client.verify(req.body.paymentPayload, req.body.paymentRequirements);
        res.status(verified.isValid ? 200 : 400).json(verified);
      });
      app.post('/settle', async (req, res) => {
        if (settleAnswer !== null) return void res.status(settleAnswer.status).json(settleAnswer.body);
        const settled = await facilitator.client.settle(req.body.paymentPayload, req.body.paymentRequirements);
        res.status(settled.success ? 200 : 400).json(settled);
      });
      facade = await listen(app);
    });
    afterAll(async () => {
      await close(facade.server);
      await facilitator.close();
    });

    it('a payment it refuses is refused (402 with its reason), not left for later as if it could not be asked', async () => {
      const paywall = createPaywall({
        recipient: seller,
        lookup,
        store: openPaywallStore(':memory:'),
        x402: { facilitator: facilitatorAt(facade.url) },
      });
      const app = express();
      app.get('/data', paywall.require({ price: '0.02', description: 'Strict' }), (_req, res) => res.json({ ok: true }));
      const strict = await listen(app);
      try {
        const paymentFrom = async (buyer: KeyPairSigner) => {
          const terms = JSON.parse(Buffer.from((await fetch(`${strict.url}/data`)).headers.get('payment-required')!, 'base64').toString());
          const payload = await x402Client
            .fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] })
            .createPaymentPayload(terms);
          return { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') };
        };
        // A buyer holding no USDC: the facilitator's simulation fails, and it says so in a 400.
        const broke = await generateKeyPairSigner();
        await cluster.mintUsdc(broke.address, 0n);
        const refused = await fetch(`${strict.url}/data`, { headers: await paymentFrom(broke) });
        expect(refused.status).toBe(402);
        expect(await refused.json()).toMatchObject({ code: 'payment_rejected', error: expect.stringContaining('the facilitator refused') });
        // A payment it verifies and then fails to settle, naming the transaction it sent, in a 400:
        // that one is asked about. The cluster has not seen it, but still takes the payment's
        // blockhash: it may land yet (503). Presented again once the blockhash is gone, refused,
        // nothing moved.
        const buyer = await generateKeyPairSigner();
        await cluster.mintUsdc(buyer.address, micro('1'));
        const network = DEVNET.v2;
        const neverLanded = getBase58Decoder().decode(randomBytes(64));
        settleAnswer = { status: 400, body: { success: false, errorReason: 'transaction_failed', transaction: neverLanded, network } };
        const sentPayment = await paymentFrom(buyer);
        const failed = await fetch(`${strict.url}/data`, { headers: sentPayment });
        expect(failed.status).toBe(503);
        expect(await failed.json()).toMatchObject({ code: 'verifier_unavailable' });
        cluster.advanceBlocks(200);
        const gone = await fetch(`${strict.url}/data`, { headers: sentPayment });
        expect(gone.status).toBe(402);
        expect(await gone.json()).toMatchObject({ code: 'payment_rejected', error: expect.stringContaining('the facilitator refused') });
        expect(await usdc(buyer.address)).toBe(micro('1'));
        // Failing without naming what it sent: it may have sent it, so the outcome is unknown (503).
        settleAnswer = { status: 400, body: { success: false, errorReason: 'transaction_failed', transaction: '', network } };
        const unsure = await fetch(`${strict.url}/data`, { headers: await paymentFrom(buyer) });
        expect(unsure.status).toBe(503);
        // One it sent without seeing it confirmed, said in a 4xx: the outcome is unknown (503), as in a 200.
        const sent = 'x'.repeat(88);
        settleAnswer = { status: 400, body: { success: false, errorReason: 'settlement_pending', transaction: sent, network } };
        const pending = await fetch(`${strict.url}/data`, { headers: await paymentFrom(buyer) });
        expect(pending.status).toBe(503);
        expect(await pending.json()).toMatchObject({ code: 'verifier_unavailable' });
      } finally {
        settleAnswer = null;
        await close(strict.server);
      }
    });
  });

  it('one settled transaction buys one answer, whatever EVM-looking fields a Solana payment carries', async () => {
    const real = inProcessFacilitator({ feePayer, rpcUrl: cluster.url, network: 'devnet' });
    // A facilitator that answers a settlement it already made as made (idempotent), as some do.
    const landed = 'x'.repeat(88);
    const idempotent: typeof real = {
      getSupported: () => real.getSupported(),
      verify: async () => ({ isValid: true, payer: feePayer.address }),
      settle: async (_payload, requirements) => ({
        success: true,
        transaction: landed,
        network: requirements.network,
        payer: feePayer.address,
      }),
    };
    const app = express();
    const paywall = createPaywall({ recipient: seller, lookup, store: openPaywallStore(':memory:'), x402: { facilitator: idempotent } });
    let answered = 0;
    app.get('/once', paywall.require({ price: '0.01', description: 'Once' }), (_req, res) => {
      answered += 1;
      res.json({ ok: true });
    });
    const server = await listen(app);
    try {
      // The same v1 payment presented again, each time with another made-up EIP-3009 authorization.
      const presented = (nonce: string) =>
        Buffer.from(
          JSON.stringify({
            x402Version: 1,
            scheme: 'exact',
            network: 'solana-devnet',
            payload: { transaction: 'AQ==', authorization: { from: `0x${'22'.repeat(20)}`, nonce }, signature: `0x${'33'.repeat(65)}` },
          }),
        ).toString('base64');
      const statuses = [];
      for (const nonce of [`0x${'a1'.repeat(32)}`, `0x${'a2'.repeat(32)}`, `0x${'a3'.repeat(32)}`]) {
        statuses.push((await fetch(`${server.url}/once`, { headers: { 'x-payment': presented(nonce) } })).status);
      }
      expect([statuses, answered]).toEqual([[200, 402, 402], 1]);
    } finally {
      await close(server.server);
    }
  });

  it('a facilitator that names no fee payer for this network is asked again a moment later; meanwhile receipts are still offered', async () => {
    const real = inProcessFacilitator({ feePayer, rpcUrl: cluster.url, network: 'devnet' });
    let answers = 0;
    const forgetful: typeof real = {
      ...real,
      getSupported: async () => (++answers === 1 ? { kinds: [], extensions: [], signers: {} } : real.getSupported()),
    };
    const server = await paywallThrough(forgetful, 'Forgetful');
    try {
      const first = await fetch(`${server.url}/data`);
      expect(first.status).toBe(402);
      expect(first.headers.get('payment-required')).toBeNull();
      expect((await first.json()) as any).toMatchObject({ code: 'payment_required', amount: '0.01' });
      // Asked again a moment later (not by each unpaid request).
      await new Promise((resolve) => setTimeout(resolve, UNANSWERED_KEPT_MS + 100));
      const second = await fetch(`${server.url}/data`);
      expect(second.headers.get('payment-required')).not.toBeNull();
      expect(((await second.json()) as any).accepts[0].extra.feePayer).toBe(feePayer.address);
      expect(answers).toBe(2);
    } finally {
      await close(server.server);
    }
  });

  it('a facilitator with several fee payers, offering another one each time it is asked, takes a payment made for any of them', async () => {
    // As the official facilitator does with several keys: each /supported names one of them at
    // random (here in turn), its signers list them all, and it settles with the one a payment names.
    const second = await generateKeyPairSigner();
    cluster.airdrop(second.address);
    const byKey = new Map(
      [feePayer, second].map((key) => [
        key.address as string,
        inProcessFacilitator({ feePayer: key, rpcUrl: cluster.url, network: 'devnet' }),
      ]),
    );
    let turn = 0;
    const forPayment = (requirements: { extra?: Record<string, unknown> }) =>
      byKey.get(String(requirements.extra?.feePayer)) ?? byKey.get(feePayer.address)!;
    const facilitator: ReturnType<typeof inProcessFacilitator> = {
      verify: (payload, requirements) => forPayment(requirements).verify(payload, requirements),
      settle: (payload, requirements) => forPayment(requirements).settle(payload, requirements),
      getSupported: async () => {
        const named = [...byKey.values()][turn++ % 2]!.getSupported();
        return { ...(await named), signers: { 'solana:*': [...byKey.keys()] } };
      },
    };
    const server = await paywallThrough(facilitator, 'Two keys');
    const paymentFrom = async (buyer: KeyPairSigner) => {
      const terms = JSON.parse(Buffer.from((await fetch(`${server.url}/data`)).headers.get('payment-required')!, 'base64').toString());
      const payload = await x402Client
        .fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] })
        .createPaymentPayload(terms);
      return {
        feePayer: terms.accepts[0].extra.feePayer,
        headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') },
      };
    };
    try {
      const buyer = await generateKeyPairSigner();
      await cluster.mintUsdc(buyer.address, micro('1'));
      const honest = await paymentFrom(buyer);
      // A refused payment (a buyer holding nothing) makes the paywall ask the facilitator again: it
      // now names the other fee payer.
      const broke = await generateKeyPairSigner();
      await cluster.mintUsdc(broke.address, 0n);
      expect((await fetch(`${server.url}/data`, { headers: (await paymentFrom(broke)).headers })).status).toBe(402);
      expect((await paymentFrom(broke)).feePayer).not.toBe(honest.feePayer);
      // The payment made for the first is still the facilitator's to settle: served, paid once.
      const paid = await fetch(`${server.url}/data`, { headers: honest.headers });
      expect(paid.status).toBe(200);
      expect(await usdc(buyer.address)).toBe(micro('0.99'));
      // A fee payer the facilitator does not name is not taken on the payment's word.
      const stranger = await generateKeyPairSigner();
      cluster.airdrop(stranger.address);
      byKey.set(stranger.address, inProcessFacilitator({ feePayer: stranger, rpcUrl: cluster.url, network: 'devnet' }));
      const terms = JSON.parse(Buffer.from((await fetch(`${server.url}/data`)).headers.get('payment-required')!, 'base64').toString());
      terms.accepts[0].extra.feePayer = stranger.address;
      const payload = await x402Client
        .fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] })
        .createPaymentPayload(terms);
      const unnamed = await fetch(`${server.url}/data`, {
        headers: { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') },
      });
      expect(unnamed.status).toBe(402);
      expect(await usdc(buyer.address)).toBe(micro('0.99'));
    } finally {
      await close(server.server);
    }
  });

  it('a facilitator restarted with another fee payer is followed without restarting the paywall', async () => {
    // The facilitator behind the paywall, replaced by one with a new key as a restart would.
    const first = inProcessFacilitator({ feePayer, rpcUrl: cluster.url, network: 'devnet' });
    const newKey = await generateKeyPairSigner();
    cluster.airdrop(newKey.address);
    const restarted = inProcessFacilitator({ feePayer: newKey, rpcUrl: cluster.url, network: 'devnet' });
    let current = first;
    let asked = 0;
    const facilitator: typeof first = {
      verify: (payload, requirements) => current.verify(payload, requirements),
      settle: (payload, requirements) => current.settle(payload, requirements),
      getSupported: () => {
        asked += 1;
        return current.getSupported();
      },
    };
    const server = await paywallThrough(facilitator, 'Restarting');
    const buyer = await generateKeyPairSigner();
    await cluster.mintUsdc(buyer.address, micro('1'));
    const paidFetch = wrapFetchWithPayment(
      fetch,
      x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
    );
    const feePayerOffered = async () => {
      const offer = await fetch(`${server.url}/data`);
      return JSON.parse(Buffer.from(offer.headers.get('payment-required')!, 'base64').toString()).accepts[0].extra.feePayer;
    };
    try {
      expect((await paidFetch(`${server.url}/data`)).status).toBe(200);
      expect(await feePayerOffered()).toBe(feePayer.address);
      current = restarted;
      // A payment made for the old fee payer is refused by the new facilitator; the paywall asks it
      // again, and offers its new fee payer, with which the buyer pays.
      expect((await paidFetch(`${server.url}/data`)).status).toBe(402);
      expect(await feePayerOffered()).toBe(newKey.address);
      expect((await paidFetch(`${server.url}/data`)).status).toBe(200);
      expect(await usdc(buyer.address)).toBe(micro('0.98'));
      // A stream of refused payments does not make it ask the facilitator for each one.
      const askedBefore = asked;
      current = first;
      for (let i = 0; i < 5; i++) expect((await paidFetch(`${server.url}/data`)).status).toBe(402);
      expect(asked - askedBefore).toBeLessThanOrEqual(1);
    } finally {
      await close(server.server);
    }
  });

  it('x402 is offered on devnet and mainnet only', async () => {
    const local = await new TestCluster().start();
    try {
      const localLookup = await rpcTransferLookup(local.url);
      expect(() =>
        createPaywall({ recipient: seller, lookup: localLookup, store, x402: { facilitator: facilitatorAt('http://127.0.0.1:9') } }),
      ).toThrow(/devnet or mainnet/);
    } finally {
      await local.stop();
    }
  });
});
