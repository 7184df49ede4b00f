import express from 'express';
import { close, listen } from '../helpers/http-server.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAgent, micro, UNLISTED_SELLER } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { json } from '../helpers/serve-process.js';
import { createDemoApi } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { createNonces } from '../../server/x402/paywall/nonces.js';
import { cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { createPaywall } from '../../server/x402/paywall/paywall.js';
import { verifyReceipt } from '../../server/x402/paywall/verify-receipt.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { PaymentError } from '../../server/x402/paying-fetch/payment-error.js';
import { decodeReceipt, encodeReceipt, receiptProofMessage, type Receipt } from '../../server/wire/receipts.js';
import { getBase58Decoder } from '@solana/kit';
import type { TransferLookup } from '../../server/core/ports/chain.js';

const DEMO_PAY_TO = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const OTHER = UNLISTED_SELLER;

describe('the 402 flow against the demo paid API', () => {
  const t = useCoffer();
  let lookup: TransferLookup;
  let store: PaywallStore;
  let api: { url: string; server: Server };
  let storeFile: string;

  beforeAll(async () => {
    lookup = await cofferTransferLookup(t.url);
    storeFile = join(t.dataDir, 'demo-paywall.db');
    store = openPaywallStore(storeFile);
    api = await listen(createDemoApi({ lookup, store }));
  });
  afterAll(async () => {
    await close(api.server);
    store.close();
  });

  const get = async (path: string, receipt?: string) => {
    const response = await fetch(`${api.url}${path}`, { headers: receipt ? { 'x-payment': receipt } : {} });
    return { status: response.status, body: await json(response) };
  };

  it('402 with Coffer terms -> pay -> retry with X-Payment -> 200 with data', async () => {
    const agent = await fundedAgent(t, 'weather-bot', '1.00');
    const unpaid = await get('/weather?city=Porto');
    expect(unpaid.status).toBe(402);
    expect(unpaid.body).toMatchObject({
      code: 'payment_required',
      amount: '0.01',
      currency: 'USDC',
      recipient: DEMO_PAY_TO,
      network: 'sim',
      service: 'demo-weather',
    });
    expect(unpaid.body.nonce).toMatch(/^[A-Za-z0-9_.-]{40,120}$/);
    // It offers only what it accepts: no x402 `accepts` list, which an x402 client would pay in vain.
    expect(unpaid.body).not.toHaveProperty('accepts');
    expect(unpaid.body).not.toHaveProperty('x402Version');
    // Every 402 has a fresh nonce.
    expect((await get('/weather?city=Porto')).body.nonce).not.toBe(unpaid.body.nonce);

    const paid = await payUsdc(t, 'weather-bot', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: unpaid.body.nonce });
    expect(paid.status).toBe(200);
    const retried = await get('/weather?city=Porto', paid.body.xPaymentHeader);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      city: 'Porto',
      paid: { amount: '0.01', by: agent.walletAddress, txSignature: paid.body.txSignature },
    });
    expect(retried.body.forecast).toHaveLength(3);
    for (const day of retried.body.forecast as { high: number; low: number }[]) expect(day.low).toBeLessThan(day.high);

    // The same receipt again is refused, with fresh terms to pay anew.
    const replay = await get('/weather?city=Porto', paid.body.xPaymentHeader);
    expect(replay.status).toBe(402);
    expect(replay.body).toMatchObject({ code: 'receipt_already_used', amount: '0.01' });
    expect(replay.body.error).toMatch(/already used/);
  });

  it('refuses receipts for another nonce, a smaller amount, another recipient, a failed or made-up transaction', async () => {
    const agent = await fundedAgent(t, 'tricky', '1.00');
    const nonceFor = async (path = '/weather') => (await get(path)).body.nonce as string;

    const madeUpNonce = await payUsdc(t, 'tricky', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: 'never-issued' });
    expect((await get('/weather', madeUpNonce.body.xPaymentHeader)).body.code).toBe('unknown_nonce');

    const quoteNonce = await payUsdc(t, 'tricky', agent.apiKey, {
      service: 'demo-weather',
      amount: '0.01',
      nonce: await nonceFor('/quote'),
    });
    expect((await get('/weather', quoteNonce.body.xPaymentHeader)).body.code).toBe('wrong_resource');

    // Less than the price the nonce names: Coffer refuses to pay it (it would buy nothing) ...
    const cheapNonce = await nonceFor();
    const cheap = await payUsdc(t, 'tricky', agent.apiKey, { service: 'demo-weather', amount: '0.005', nonce: cheapNonce });
    expect([cheap.status, cheap.body.code]).toEqual([400, 'amount_below_terms']);
    // ... and the paywall refuses the receipt of such a payment made all the same (on the chain, outside
    // Coffer's check): its own judge of the price.
    const outside = await fundedAgent(t, 'outside', '0.01');
    const underpaid = await t.coffer.chain.prepareTransfer({
      from: outside.walletAddress,
      to: DEMO_PAY_TO,
      amount: micro('0.005'),
      memo: cheapNonce,
      reference: 'underpaid',
      feePayer: t.owner,
      createRecipientAccount: true,
    });
    await t.coffer.chain.submitTransfer(underpaid);
    const underpaidClaims = {
      v: 1 as const,
      network: 'sim',
      txSignature: underpaid.txSignature,
      amount: '0.005',
      currency: 'USDC' as const,
      timestamp: new Date().toISOString(),
      recipient: DEMO_PAY_TO,
      payer: outside.walletAddress,
      paymentId: 'pay_outside',
      memo: cheapNonce,
    };
    const cheapAnswer = await get(
      '/weather',
      encodeReceipt({
        ...underpaidClaims,
        proof: getBase58Decoder().decode(
          await t.coffer.engine.ctx.vault.signMessage(outside.walletAddress, receiptProofMessage(underpaidClaims)),
        ),
      }),
    );
    expect(cheapAnswer.status).toBe(402);
    expect(cheapAnswer.body.code).toBe('amount_too_small');
    expect(cheapAnswer.body.error).toMatch(/0\.005.*0\.01/);

    const elsewhere = await payUsdc(t, 'tricky', agent.apiKey, {
      service: 'someone-else',
      recipient: OTHER,
      amount: '0.01',
      nonce: await nonceFor(),
    });
    expect((await get('/weather', elsewhere.body.xPaymentHeader)).body.code).toBe('wrong_recipient');

    // A transaction that landed but failed: an unfunded wallet tries to pay the nonce on chain.
    const broke = await fundedAgent(t, 'broke', '0.001');
    const nonce = await nonceFor();
    const prepared = await t.coffer.chain.prepareTransfer({
      from: broke.walletAddress,
      to: DEMO_PAY_TO,
      amount: micro('0.01'),
      memo: nonce,
      reference: 'failing',
      feePayer: t.owner,
      createRecipientAccount: true,
    });
    await expect(t.coffer.chain.submitTransfer(prepared)).rejects.toThrow();
    const failedClaims = {
      v: 1 as const,
      network: 'sim',
      txSignature: prepared.txSignature,
      amount: '0.01',
      currency: 'USDC' as const,
      timestamp: new Date().toISOString(),
      recipient: DEMO_PAY_TO,
      payer: broke.walletAddress,
      paymentId: 'pay_x',
      memo: nonce,
    };
    const failedReceipt = encodeReceipt({
      ...failedClaims,
      proof: getBase58Decoder().decode(await t.coffer.engine.ctx.vault.signMessage(broke.walletAddress, receiptProofMessage(failedClaims))),
    });
    const failed = await get('/weather', failedReceipt);
    expect(failed.body.code).toBe('transaction_failed');

    const madeUpClaims = { ...failedClaims, txSignature: '5'.repeat(87), memo: await nonceFor() };
    const madeUp = encodeReceipt({
      ...madeUpClaims,
      proof: getBase58Decoder().decode(await t.coffer.engine.ctx.vault.signMessage(broke.walletAddress, receiptProofMessage(madeUpClaims))),
    });
    expect((await get('/weather', madeUp)).body.code).toBe('transaction_not_found');
    expect((await get('/weather', 'v1.not-base64!')).body.code).toBe('invalid_receipt');
    expect((await get('/weather', 'garbage')).body.code).toBe('invalid_receipt');
  });

  it('the chain lookup and service endpoints a paid API and a paying client use', async () => {
    const agent = await fundedAgent(t, 'lookup', '1.00');
    const paid = await payUsdc(t, 'lookup', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: 'lookup-nonce' });
    const found = await t.api('GET', `/v1/chain/transactions/${paid.body.txSignature}`, { key: null });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      network: 'sim',
      usdcMint: t.coffer.chain.usdc,
      transfer: expect.objectContaining({
        txSignature: paid.body.txSignature,
        succeeded: true,
        amount: '10000',
        memo: 'lookup-nonce',
        to: DEMO_PAY_TO,
        from: agent.walletAddress,
      }),
    });
    const missing = await t.api('GET', `/v1/chain/transactions/${'4'.repeat(88)}`, { key: null });
    expectError(missing, 404, 'transaction_not_found');
    expect((await t.api('GET', '/v1/chain/transactions/not-a-signature', { key: null })).body.code).toBe('invalid_signature');
    // Of a signature's length but not base58 ("0" is no base58 digit): refused as such, never a 500.
    expectError(await t.api('GET', `/v1/chain/transactions/${'0'.repeat(70)}`, { key: null }), 400, 'invalid_signature');
    const service = await t.api('GET', '/v1/services/demo-weather', { key: null });
    expect(service.body).toMatchObject({ id: 'demo-weather', pricePerCall: '0.01', payTo: DEMO_PAY_TO, source: 'x402-marketplace' });
    expect((await t.api('GET', '/v1/services/nope', { key: null })).body.code).toBe('service_not_found');
  });

  it('a receipt rebuilt from public chain data is refused: only the payer can present it', async () => {
    const victim = await fundedAgent(t, 'victim', '1.00');
    const nonce = (await get('/weather')).body.nonce;
    const paid = await payUsdc(t, 'victim', victim.apiKey, { service: 'demo-weather', amount: '0.01', nonce });
    // The attacker reads the transfer off the chain and forges the rest.
    const onChain = (await t.api('GET', `/v1/chain/transactions/${paid.body.txSignature}`, { key: null })).body.transfer;
    const forged = encodeReceipt({
      v: 1,
      network: 'sim',
      txSignature: onChain.txSignature,
      amount: '0.01',
      currency: 'USDC',
      timestamp: new Date().toISOString(),
      recipient: DEMO_PAY_TO,
      payer: onChain.from,
      paymentId: 'pay_forged',
      memo: onChain.memo,
      proof: '2'.repeat(88),
    });
    const attempt = await get('/weather', forged);
    expect(attempt.status).toBe(402);
    expect(attempt.body.code).toBe('invalid_proof');
    // The victim's own receipt still works.
    expect((await get('/weather', paid.body.xPaymentHeader)).status).toBe(200);
  });

  it('a nonce is bound to the method and path it was issued for, and the route price is checked', async () => {
    const agent = await fundedAgent(t, 'method-hopper', '10.00');
    const store2 = openPaywallStore(':memory:');
    const wall = createPaywall({ recipient: DEMO_PAY_TO, lookup, store: store2 });
    const app = express();
    app.get('/report', wall.require({ price: '0.01', description: 'cheap' }), (_req, res) => res.json({ tier: 'cheap' }));
    app.post('/report', wall.require({ price: '5.00', description: 'dear' }), (_req, res) => res.json({ tier: 'dear' }));
    const server = await listen(app);
    try {
      const cheapTerms = await json(fetch(`${server.url}/report`));
      const paid = await payUsdc(t, 'method-hopper', agent.apiKey, {
        service: 'x',
        recipient: DEMO_PAY_TO,
        amount: '0.01',
        nonce: cheapTerms.nonce,
      });
      const hop = await fetch(`${server.url}/report`, { method: 'POST', headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect(hop.status).toBe(402);
      expect((await json(hop)).code).toBe('wrong_resource');
      const fair = await fetch(`${server.url}/report`, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect(await json(fair)).toEqual({ tier: 'cheap' });
    } finally {
      await close(server.server);
      store2.close();
    }
  });

  it('a receipt stays used across a restart of the paid API', async () => {
    const agent = await fundedAgent(t, 'restarter', '1.00');
    const nonce = (await get('/quote?symbol=SOL')).body.nonce;
    const paid = await payUsdc(t, 'restarter', agent.apiKey, { service: 'demo-quotes', amount: '0.01', nonce });
    expect((await get('/quote?symbol=SOL', paid.body.xPaymentHeader)).status).toBe(200);

    await close(api.server);
    store.close();
    store = openPaywallStore(storeFile);
    api = await listen(createDemoApi({ lookup, store }));
    const again = await get('/quote?symbol=SOL', paid.body.xPaymentHeader);
    expect(again.status).toBe(402);
    expect(again.body.code).toBe('receipt_already_used');
  });

  it('a nonce handed out before a restart of the paid API can be paid after it; unpaid 402s write nothing', async () => {
    const agent = await fundedAgent(t, 'across-restart', '1.00');
    const nonce = (await get('/weather?city=Lima')).body.nonce;
    const sizeBefore = statSync(storeFile).size + (existsSync(`${storeFile}-wal`) ? statSync(`${storeFile}-wal`).size : 0);
    for (let i = 0; i < 300; i++) expect((await get('/weather?city=Lima')).status).toBe(402);
    const sizeAfter = statSync(storeFile).size + (existsSync(`${storeFile}-wal`) ? statSync(`${storeFile}-wal`).size : 0);
    expect(sizeAfter).toBe(sizeBefore);

    await close(api.server);
    store.close();
    store = openPaywallStore(storeFile);
    api = await listen(createDemoApi({ lookup, store }));
    const paid = await payUsdc(t, 'across-restart', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce });
    const answered = await get('/weather?city=Lima', paid.body.xPaymentHeader);
    expect(answered.status).toBe(200);
    expect(answered.body.city).toBe('Lima');
  });

  it('a nonce handed out by an older paywall that stored nonces is still accepted after the upgrade', async () => {
    const agent = await fundedAgent(t, 'upgrader', '1.00');
    const file = join(t.dataDir, 'old-paywall.db');
    const old = openConnection(file);
    const now = Date.now();
    old.exec(`CREATE TABLE nonces (nonce TEXT PRIMARY KEY, resource TEXT NOT NULL, amount INTEGER NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER) STRICT;
      CREATE TABLE accepted_payments (tx_signature TEXT PRIMARY KEY, nonce TEXT NOT NULL UNIQUE, payer TEXT NOT NULL, amount INTEGER NOT NULL, accepted_at INTEGER NOT NULL) STRICT;`);
    old
      .prepare('INSERT INTO nonces VALUES (?, ?, ?, ?, ?, NULL)')
      .run('old-style-nonce', 'GET /weather', 10_000, now - 1000, now + 300_000);
    old.close();
    const upgraded = openPaywallStore(file);
    const server = await listen(createDemoApi({ lookup, store: upgraded }));
    try {
      const paid = await payUsdc(t, 'upgrader', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: 'old-style-nonce' });
      const answered = await fetch(`${server.url}/weather?city=Bern`, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect(answered.status).toBe(200);
      const again = await fetch(`${server.url}/weather?city=Bern`, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect((await json(again)).code).toBe('receipt_already_used');
    } finally {
      await close(server.server);
      upgraded.close();
    }
  });

  it('answers 503 when the chain cannot be read, and the receipt stays good for later', async () => {
    const agent = await fundedAgent(t, 'patient-payer', '1.00');
    const downStore = openPaywallStore(':memory:');
    const down: TransferLookup = { ...lookup, findTransfer: () => Promise.reject(new Error('connection refused')) };
    const flaky = await listen(createDemoApi({ lookup: down, store: downStore }));
    try {
      const terms = await json(fetch(`${flaky.url}/weather`));
      const paid = await payUsdc(t, 'patient-payer', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: terms.nonce });
      const response = await fetch(`${flaky.url}/weather`, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect(response.status).toBe(503);
      expect(await json(response)).toMatchObject({ code: 'verifier_unavailable' });
      expect(downStore.isAccepted(paid.body.txSignature)).toBe(false);
    } finally {
      await close(flaky.server);
      downStore.close();
    }
  });

  it('every field of a receipt is signed: an edited timestamp or paymentId is refused, the receipt itself still works', async () => {
    const agent = await fundedAgent(t, 'editor', '1.00');
    const nonce = (await get('/weather?city=Oslo')).body.nonce;
    const paid = await payUsdc(t, 'editor', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce });
    const receipt = decodeReceipt(paid.body.xPaymentHeader)!;
    for (const edit of [
      { timestamp: new Date(Date.parse(receipt.timestamp) + 3_600_000).toISOString() },
      { timestamp: new Date(Date.parse(receipt.timestamp) - 1000).toISOString() },
      { paymentId: 'pay_someone_else' },
    ]) {
      const attempt = await get('/weather?city=Oslo', encodeReceipt({ ...receipt, ...edit }));
      expect(attempt.status).toBe(402);
      expect(attempt.body.code).toBe('invalid_proof');
    }
    expect((await get('/weather?city=Oslo', paid.body.xPaymentHeader)).status).toBe(200);
  });

  it('property: a tampered receipt is never accepted; the untampered one is', async () => {
    const agent = await fundedAgent(t, 'tamper', '1.00');
    const resource = 'GET /weather';
    const propertyStore = openPaywallStore(':memory:');
    const now = Date.now();
    const nonces = createNonces(propertyStore.nonceKey);
    const propNonce = nonces.issue({ resource, amount: micro('0.01'), issuedAt: now, expiresAt: now + 300_000 });
    const otherNonce = nonces.issue({ resource, amount: micro('0.01'), issuedAt: now, expiresAt: now + 300_000 });
    const paid = await payUsdc(t, 'tamper', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: propNonce });
    const original = decodeReceipt(paid.body.xPaymentHeader)!;
    const other = await payUsdc(t, 'tamper', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: otherNonce });
    /** What the paywall decides of a receipt for this resource, price and recipient, now. */
    const verifyAgainstPaywall = (header: string) =>
      verifyReceipt(header, {
        resource,
        price: micro('0.01'),
        recipient: DEMO_PAY_TO,
        lookup,
        store: propertyStore,
        nonces,
        now: Date.now(),
        // Receipts without a nonce are taken too: no tampering reaches that path either.
        withoutNonce: { maxAgeSeconds: 300 },
      });

    const base58 = fc.string({
      unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'),
      minLength: 32,
      maxLength: 44,
    });
    const tamper = fc.oneof(
      fc.record({ field: fc.constant('network' as const), value: fc.constantFrom('devnet', 'mainnet', 'localnet') }),
      fc.record({
        field: fc.constant('txSignature' as const),
        value: fc.oneof(
          fc.constant(other.body.txSignature as string),
          base58.map((s) => s + s),
        ),
      }),
      fc.record({ field: fc.constant('amount' as const), value: fc.constantFrom('0.02', '0.009', '1.00', '0.011') }),
      fc.record({ field: fc.constant('recipient' as const), value: fc.oneof(fc.constant(OTHER), base58) }),
      fc.record({ field: fc.constant('payer' as const), value: fc.oneof(fc.constant(t.owner), base58) }),
      fc.record({ field: fc.constant('memo' as const), value: fc.constantFrom(otherNonce, `${propNonce} `, '', 'x', original.paymentId) }),
      fc.record({
        field: fc.constant('proof' as const),
        value: fc.oneof(
          fc.constant(decodeReceipt(other.body.xPaymentHeader)!.proof),
          base58.map((s) => s + s),
        ),
      }),
      // Every field is the payer's word: a holder may not edit even the ones the chain cannot check.
      fc.record({
        field: fc.constant('timestamp' as const),
        value: fc.oneof(
          fc.constant(decodeReceipt(other.body.xPaymentHeader)!.timestamp),
          fc
            .integer({ min: -86_400_000, max: 86_400_000 })
            .filter((ms) => ms !== 0)
            .map((ms) => new Date(Date.parse(original.timestamp) + ms).toISOString()),
        ),
      }),
      fc.record({
        field: fc.constant('paymentId' as const),
        value: fc.oneof(fc.constant(other.body.paymentId as string), fc.constantFrom('pay_x', 'pay_forged', `${original.paymentId}0`)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(tamper, { minLength: 1, maxLength: 3 }), async (changes) => {
        const tampered: Receipt = { ...original };
        for (const { field, value } of changes) (tampered as Record<string, unknown>)[field] = value;
        fc.pre(JSON.stringify(tampered) !== JSON.stringify(original));
        // Pointing at the other payment *and* its nonce names a different genuine payment, not a forgery.
        fc.pre(!(tampered.txSignature === other.body.txSignature && tampered.memo === otherNonce));
        const verdict = await verifyAgainstPaywall(encodeReceipt(tampered));
        expect(verdict.ok).toBe(false);
      }),
      { numRuns: 150 },
    );
    const genuine = await verifyAgainstPaywall(paid.body.xPaymentHeader);
    expect(genuine).toMatchObject({ ok: true, payment: { payer: agent.walletAddress, amount: micro('0.01') } });
    propertyStore.close();
  });

  describe('payingFetch', () => {
    const agentOf = (agent: { apiKey: string }, agentId: string) => ({ cofferUrl: t.url, owner: t.owner, agentId, apiKey: agent.apiKey });
    const history = async (agentId: string) => (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`))).body.payments;

    it('pays a 402 inside the policy and returns the paid response', async () => {
      const agent = await fundedAgent(t, 'fetcher', '1.00');
      const { response, payment } = await payingFetch(`${api.url}/weather?city=Oslo`, {}, { agent: agentOf(agent, 'fetcher') });
      expect(response.status).toBe(200);
      expect((await json(response)).city).toBe('Oslo');
      expect(payment?.amount).toBe('0.01');
      const payments = await history('fetcher');
      expect(payments).toHaveLength(1);
      expect(payments[0]).toMatchObject({ service: 'Coffer demo weather', amount: '0.01', status: 'confirmed' });
      // A route that is not paid is just fetched.
      const free = await payingFetch(`${api.url}/`, {}, { agent: agentOf(agent, 'fetcher') });
      expect(free.payment).toBeNull();
      expect(free.response.status).toBe(200);
    });

    it("pays where the 402 came from, and a paid call's redirects never take the receipt to another site", async () => {
      const agent = await fundedAgent(t, 'redirected', '1.00');
      const seen: { site: string; path: string; receipt: string | null }[] = [];
      // One server under two names, two origins: 127.0.0.1 and localhost. Its /weather passes the demo
      // API's answer on; /moved leads there from the other name; /away, paid, sends the agent elsewhere.
      const relay = await listen(
        express()
          .use((req, _res, next) => void (seen.push({ site: req.hostname, path: req.path, receipt: req.get('x-payment') ?? null }), next()))
          .get('/weather', async (req, res) => {
            const receipt = req.get('x-payment');
            const answer = await fetch(`${api.url}/weather?city=Lisbon`, {
              headers: receipt === undefined ? {} : { 'x-payment': receipt },
            });
            res
              .status(answer.status)
              .type('json')
              .send(await answer.text());
          })
          .get('/moved', (_req, res) => res.redirect(302, `${elsewhere}/weather`))
          .get('/away', async (req, res) => {
            if (req.get('x-payment') !== undefined) return res.redirect(302, `${elsewhere}/steal`);
            const answer = await fetch(`${api.url}/weather?city=Lisbon`);
            res
              .status(answer.status)
              .type('json')
              .send(await answer.text());
          })
          .get('/steal', (_req, res) => void res.json({ at: 'another site' }))
          .post('/submit', (_req, res) => res.redirect(303, '/weather')),
      );
      const elsewhere = relay.url.replace('127.0.0.1', 'localhost');
      try {
        // The 402 came from the name /moved led to: paid there, and the paid call goes there.
        const moved = await payingFetch(`${relay.url}/moved`, {}, { agent: agentOf(agent, 'redirected') });
        expect([moved.response.status, (await json(moved.response)).city]).toEqual([200, 'Lisbon']);
        expect(seen.map(({ site, path, receipt }) => [site, path, receipt === null ? null : 'receipt'])).toEqual([
          ['127.0.0.1', '/moved', null],
          ['localhost', '/weather', null],
          ['localhost', '/weather', 'receipt'],
        ]);
        // Paid, the seller sends the call to another site: followed, without the receipt.
        seen.length = 0;
        const away = await payingFetch(`${relay.url}/away`, {}, { agent: agentOf(agent, 'redirected') });
        expect(await json(away.response)).toEqual({ at: 'another site' });
        expect(seen.map(({ site, path, receipt }) => [site, path, receipt === null ? null : 'receipt'])).toEqual([
          ['127.0.0.1', '/away', null],
          ['127.0.0.1', '/away', 'receipt'],
          ['localhost', '/steal', null],
        ]);
        // The receipt is still the agent's: no one else presented it.
        expect((await get('/weather?city=Lisbon', away.payment!.header.value)).status).toBe(200);
        // A POST answered 303: the 402 came from the GET it led to, and the paid call is that GET.
        seen.length = 0;
        const submitted = await payingFetch(
          `${relay.url}/submit`,
          { method: 'POST', body: 'q=1' },
          { agent: agentOf(agent, 'redirected') },
        );
        expect([submitted.response.status, (await json(submitted.response)).city]).toEqual([200, 'Lisbon']);
        expect(seen.map(({ path, receipt }) => [path, receipt === null ? null : 'receipt'])).toEqual([
          ['/submit', null],
          ['/weather', null],
          ['/weather', 'receipt'],
        ]);
      } finally {
        await close(relay.server);
      }
    });

    it('refuses a price above the registry listing, paying nothing', async () => {
      const agent = await fundedAgent(t, 'thrifty', '1.00');
      const greedyStore = openPaywallStore(':memory:');
      const greedy = express();
      const wall = createPaywall({ recipient: DEMO_PAY_TO, lookup, store: greedyStore });
      greedy.get('/weather', wall.require({ price: '0.02', description: 'overpriced', service: 'demo-weather' }), (_req, res) =>
        res.json({}),
      );
      const server = await listen(greedy);
      try {
        const error = await payingFetch(`${server.url}/weather`, {}, { agent: agentOf(agent, 'thrifty') }).catch((e) => e);
        expect(error).toBeInstanceOf(PaymentError);
        expect(error.code).toBe('price_above_registry');
        expect(error.message).toMatch(/0\.02.*0\.01/);
        expect(await history('thrifty')).toHaveLength(0);
        // Coffer itself refused it (the one place a listed service's price is held), so the owner sees it.
        expect(t.coffer.db.prepare("SELECT code FROM refusals WHERE agent_id = 'thrifty'").pluck().all()).toEqual(['price_above_registry']);
        expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1'));
      } finally {
        await close(server.server);
        greedyStore.close();
      }
    });

    it("returns Coffer's policy refusal as a clear error", async () => {
      const agent = await fundedAgent(t, 'capped-fetch', '1.00', { maxPerPayment: '0.001' });
      const error = await payingFetch(`${api.url}/weather`, {}, { agent: agentOf(agent, 'capped-fetch') }).catch((e) => e);
      expect(error).toBeInstanceOf(PaymentError);
      expect(error).toMatchObject({ code: 'payment_refused', details: { status: 402, cofferCode: 'max_per_payment_exceeded' } });
      expect(error.message).toMatch(/max per payment/);
      await t.api('POST', t.withOwner('/v1/agents/capped-fetch/kill'));
      const killed = await payingFetch(`${api.url}/weather`, {}, { agent: agentOf(agent, 'capped-fetch') }).catch((e) => e);
      expect(killed.details.cofferCode).toBe('agent_suspended');
    });

    it('one call never makes two payments, even when the pay answer and the paid request are lost and retried', async () => {
      const agent = await fundedAgent(t, 'unlucky-net', '1.00');
      let payCalls = 0;
      let paidCalls = 0;
      const flaky: typeof fetch = async (input, init) => {
        const url = String(input);
        if (url.includes('/pay?')) {
          payCalls += 1;
          const response = await fetch(input, init);
          if (payCalls === 1) throw new TypeError('fetch failed: the answer was lost'); // Coffer paid, the client never heard
          return response;
        }
        if (new Headers(init?.headers).has('x-payment')) {
          paidCalls += 1;
          if (paidCalls === 1) throw new TypeError('fetch failed: connection reset');
        }
        return fetch(input, init);
      };
      const { response, payment } = await payingFetch(
        `${api.url}/weather?city=Rome`,
        {},
        { agent: agentOf(agent, 'unlucky-net'), fetch: flaky },
      );
      expect(response.status).toBe(200);
      expect(payCalls).toBe(2);
      expect(paidCalls).toBe(2);
      const payments = await history('unlucky-net');
      expect(payments).toHaveLength(1);
      expect(payments[0].id).toBe(payment?.paymentId);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.99'));
    });

    it("a payment held for an earlier call that went away: payingFetch given its approvalId presents what the owner's yes paid, paying nothing more", async () => {
      const agent = await fundedAgent(t, 'resumed', '1.00');
      await t.api('POST', t.withOwner('/v1/agents/resumed/policy'), { body: { askAbove: '0' } });
      const url = `${api.url}/weather?city=Vienna`;
      // The earlier call: its payment of the seller's 402 held for the owner; then it went away.
      const terms = (await get('/weather?city=Vienna')).body;
      const held = await t.api('POST', t.withOwner('/v1/agents/resumed/pay'), {
        key: agent.apiKey,
        body: { service: 'demo-weather', amount: terms.amount, currency: 'USDC', recipient: terms.recipient, nonce: terms.nonce },
      });
      expect(held.status).toBe(202);
      const { approvalId, paymentId } = held.body;
      let told: { approvalId: string } | null = null;
      const resuming = payingFetch(url, {}, { agent: agentOf(agent, 'resumed'), approvalId, onHeld: (approval) => (told = approval) });
      for (let i = 0; i < 100 && told === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(told).toMatchObject({ approvalId });
      await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/approve`));
      const { response, payment } = await resuming;
      expect(response.status).toBe(200);
      expect((await json(response)).city).toBe('Vienna');
      expect(payment).toMatchObject({ protocol: 'coffer', paymentId, amount: '0.01' });
      expect((await history('resumed')).map((entry: { id: string }) => entry.id)).toEqual([paymentId]);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.99'));
      // Presented again (its 402 asking the same): the seller refuses a receipt used, nothing more is paid.
      const again = await payingFetch(url, {}, { agent: agentOf(agent, 'resumed'), approvalId }).catch((e) => e);
      expect(again).toMatchObject({ code: 'paid_call_failed', details: { payment: { paymentId } } });
      // Another route of the seller at the same price (its nonce names another), a 402 asking another
      // sum, or a request that is no payment: refused before anything waits or is presented.
      const mismatched = async (target: string, id: string) => {
        let told = false;
        const error = await payingFetch(
          target,
          {},
          { agent: agentOf(agent, 'resumed'), approvalId: id, onHeld: () => (told = true) },
        ).catch((e) => e);
        expect(told).toBe(false);
        expect(error).toMatchObject({ code: 'payment_refused', details: { cofferCode: 'approval_mismatch' } });
        return error.message as string;
      };
      expect(await mismatched(`${api.url}/quote?symbol=SOL`, approvalId)).toMatch(/another route of this seller/);
      const cheaper = await sellerWith((body) => body, '0.005');
      try {
        expect(await mismatched(cheaper.url, approvalId)).toMatch(/is for 0\.01 USDC .* this 402 asks 0\.005 USDC/);
      } finally {
        await cheaper.close();
      }
      // A payment asked without a seller's 402 (coffer pay): made for no call, nobody's to pick up.
      const bare = await t.api('POST', t.withOwner('/v1/agents/resumed/pay'), {
        key: agent.apiKey,
        body: { service: 'demo-weather', amount: '0.01', currency: 'USDC' },
      });
      expect(bare.status).toBe(202);
      expect(await mismatched(url, bare.body.approvalId)).toMatch(/asked without a seller's 402/);
      await t.api('POST', t.withOwner(`/v1/approvals/${bare.body.approvalId}/deny`));
      // The seller away: this call paid nothing, and the request stands for the next try (its yes may have paid).
      const away = await payingFetch('http://127.0.0.1:9/weather', {}, { agent: agentOf(agent, 'resumed'), approvalId, retries: 0 }).catch(
        (e) => e,
      );
      expect(away).toMatchObject({ code: 'url_unreachable' });
      expect(away.message).toMatch(new RegExp(`nothing was paid by this call; request ${approvalId} stands .*try again with it`));
      const loosen = await t.api('POST', t.withOwner('/v1/agents/resumed/policy'), { key: agent.apiKey, body: { dailyBudget: '500.00' } });
      expect(loosen.status).toBe(202);
      expect(await mismatched(url, loosen.body.approvalId)).toMatch(/is a policy request, not a payment/);
      expect(
        (await history('resumed'))
          .filter((entry: { status: string }) => entry.status === 'confirmed')
          .map((entry: { id: string }) => entry.id),
      ).toEqual([paymentId]);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.99'));
    });

    /** A paid route whose 402 body the test rewrites, to play a seller that lies or errs. */
    async function sellerWith(rewrite: (body: Record<string, unknown>) => Record<string, unknown>, price = '0.01') {
      const sellerStore = openPaywallStore(':memory:');
      const wall = createPaywall({ recipient: DEMO_PAY_TO, lookup, store: sellerStore });
      const app = express();
      app.use((_req, res, next) => {
        const send = res.json.bind(res);
        res.json = (body: Record<string, unknown>) => (res.statusCode === 402 ? send(rewrite(body)) : send(body));
        next();
      });
      app.get('/data', wall.require({ price, description: 'data', service: 'demo-weather' }), (_req, res) => res.json({ ok: true }));
      const server = await listen(app);
      return {
        url: `${server.url}/data`,
        close: async () => {
          await close(server.server);
          sellerStore.close();
        },
      };
    }

    it("a payment held for the owner, and the caller gives up (its signal): the request is withdrawn, the signal's reason thrown, nothing paid", async () => {
      const agent = await fundedAgent(t, 'given-up', '1.00');
      await t.api('POST', t.withOwner('/v1/agents/given-up/policy'), { body: { askAbove: '0' } });
      const caller = new AbortController();
      let held: { approvalId: string } | null = null;
      const fetching = payingFetch(
        `${api.url}/weather?city=Bern`,
        { signal: caller.signal },
        { agent: agentOf(agent, 'given-up'), onHeld: (approval) => (held = approval) },
      ).catch((error: unknown) => error);
      for (let i = 0; i < 100 && held === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      const givenUpAt = Date.now();
      caller.abort(new Error('the agent moved on'));
      expect(await fetching).toBe(caller.signal.reason);
      expect(Date.now() - givenUpAt).toBeLessThan(10_000);
      expect((await t.api('GET', t.withOwner(`/v1/approvals/${held!.approvalId}`))).body.status).toBe('withdrawn');
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${held!.approvalId}/approve`))).status).toBe(409);
      expect((await history('given-up')).filter((entry: { status: string }) => entry.status !== 'failed')).toEqual([]);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));
    });

    it("the caller's signal aborted once the seller asked for payment, before Coffer pays: its reason, nothing paid; after, paid_call_failed with the payment, the paid call not retried", async () => {
      const agent = await fundedAgent(t, 'aborts', '1.00');
      const url = `${api.url}/weather?city=Graz`;
      /** A fetch that aborts the caller's signal as a request matching `at` goes out, counting the paid calls. */
      const abortingAt = (caller: AbortController, at: (url: string, init?: RequestInit) => boolean) => {
        const seen = { paidCalls: 0 };
        const doFetch: typeof fetch = (input, init) => {
          const target = String(input instanceof Request ? input.url : input);
          if (new Headers(init?.headers).has('x-payment')) seen.paidCalls += 1;
          if (at(target, init)) caller.abort();
          return fetch(input, init);
        };
        return { doFetch, seen };
      };
      const before = new AbortController();
      const early = abortingAt(before, (target) => target.includes('/v1/health'));
      const refused = await payingFetch(url, { signal: before.signal }, { agent: agentOf(agent, 'aborts'), fetch: early.doFetch }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBe(before.signal.reason);
      expect(await history('aborts')).toEqual([]);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));

      const after = new AbortController();
      const late = abortingAt(after, (target, init) => target.startsWith(api.url) && new Headers(init?.headers).has('x-payment'));
      const paid = await payingFetch(url, { signal: after.signal }, { agent: agentOf(agent, 'aborts'), fetch: late.doFetch }).catch(
        (error: unknown) => error,
      );
      expect(paid).toMatchObject({ code: 'paid_call_failed', details: { payment: { amount: '0.01' } } });
      expect((paid as Error).message).toMatch(/^paid, but this call was given up \(its signal aborted\) before .* answered/);
      // Given up by the caller, the paid call is not sent again (as a call lost in transport is).
      expect(late.seen.paidCalls).toBe(1);
      expect(await history('aborts')).toHaveLength(1);
    });

    it('caps the price by the registry listing of the recipient even when the 402 names no service', async () => {
      const agent = await fundedAgent(t, 'unnamed', '5.00');
      const seller = await sellerWith(({ service: _service, ...rest }) => rest, '3.00');
      try {
        const error = await payingFetch(seller.url, {}, { agent: agentOf(agent, 'unnamed') }).catch((e) => e);
        expect(error).toMatchObject({ code: 'price_above_registry' });
        expect(await history('unnamed')).toHaveLength(0);
      } finally {
        await seller.close();
      }
    });

    it('a Base recipient no payment can go to is no offer on Base: Solana is paid, and asked on Base it is refused in words', async () => {
      const agent = await fundedAgent(t, 'zero-base', '5.00');
      const chainId = t.coffer.base!.chain.chainId!;
      const seller = await sellerWith(({ service: _service, ...rest }) => ({
        ...rest,
        base: { recipient: `0x${'0'.repeat(40)}`, chainId },
      }));
      try {
        const onBase = await payingFetch(seller.url, {}, { agent: agentOf(agent, 'zero-base'), rail: 'base' }).catch((e) => e);
        expect(onBase).toMatchObject({ code: 'unsupported_offer' });
        expect(onBase.message).toMatch(/cannot be paid on Base: it offers no Base payment Coffer can read/);
        expect(await history('zero-base')).toHaveLength(0);
        const { response, payment } = await payingFetch(seller.url, {}, { agent: agentOf(agent, 'zero-base') });
        expect({ status: response.status, rail: payment?.rail }).toEqual({ status: 200, rail: 'sol' });
      } finally {
        await seller.close();
      }
    });

    it("a 402 whose nonce no payment carries is the seller's unreadable terms, not the agent's refused payment", async () => {
      const agent = await fundedAgent(t, 'odd-nonce', '1.00');
      const seller = await sellerWith((body) => ({ ...body, nonce: 'line\nbreak' }));
      try {
        const error = await payingFetch(seller.url, {}, { agent: agentOf(agent, 'odd-nonce') }).catch((e) => e);
        expect(error).toMatchObject({ code: 'unreadable_402' });
        expect(await history('odd-nonce')).toHaveLength(0);
      } finally {
        await seller.close();
      }
    });

    it('a call no HTTP request can make is invalid_request before anything is called, its password never repeated', async () => {
      const agent = await fundedAgent(t, 'bad-calls', '1.00');
      let called = 0;
      const counting: typeof fetch = async (input, init) => {
        called++;
        return fetch(input, init);
      };
      const refused = async (url: string, init: RequestInit = {}) =>
        (await payingFetch(url, init, { agent: agentOf(agent, 'bad-calls'), fetch: counting }).catch((e) => e)) as PaymentError;
      for (const [url, scheme] of [
        ['file:///etc/passwd', 'file:'],
        ['data:text/plain,hi', 'data:'],
        ['javascript:alert(1)', 'javascript:'],
        ['ftp://127.0.0.1/x', 'ftp:'],
      ]) {
        const error = await refused(url!);
        expect({ code: error.code, message: error.message }).toEqual({
          code: 'invalid_request',
          message: `the URL is "${scheme}", not http or https: nothing was called or paid`,
        });
      }
      expect((await refused('not a url token-abc')).message).toBe('the URL is not a URL: nothing was called or paid');
      // A password is never repeated, whatever the scheme.
      const ftp = await refused('ftp://someone:hunter2@127.0.0.1/x');
      expect(ftp.message).toMatch(/^the URL carries a user name or password/);
      expect(ftp.message).not.toContain('hunter2');
      const credentials = await refused(`http://someone:hunter2@127.0.0.1:${new URL(api.url).port}/weather`);
      expect(credentials.code).toBe('invalid_request');
      expect(credentials.message).toBe(
        'the URL carries a user name or password, which no request sends in its URL: send credentials in a header (nothing was called or paid)',
      );
      const header = await refused(`${api.url}/weather`, { headers: { 'X-A': 'v\r\nX-Injected: 1' } });
      expect(header.code).toBe('invalid_request');
      expect(header.message).toBe(
        'the header "X-A" is one no HTTP request can carry (a name that is not one word, or a line break or control character in its value): nothing was called or paid',
      );
      const name = await refused(`${api.url}/weather`, { headers: { 'Bad Name': 'v' } });
      expect(name.code).toBe('invalid_request');
      // A body read once cannot be sent again with the payment: refused before it is paid, not after.
      const streamed = await refused(`${api.url}/weather`, {
        method: 'POST',
        body: new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode('{}')), controller.close()) }),
        duplex: 'half',
      } as RequestInit);
      expect({ code: streamed.code, message: streamed.message }).toEqual({
        code: 'invalid_request',
        message:
          'the body is a stream, read once: a paid call is sent twice (asked, then paid), so its body must be one that can be sent again (a string, bytes, a Blob, FormData or URLSearchParams): nothing was called or paid',
      });
      const getWithBody = await refused(`${api.url}/weather`, { method: 'GET', body: '{}' });
      expect({ code: getWithBody.code, message: getWithBody.message }).toEqual({
        code: 'invalid_request',
        message: 'a GET carries no body: nothing was called or paid',
      });
      expect(called).toBe(0);
      expect(await history('bad-calls')).toHaveLength(0);
    });

    it('a URL that takes the call and never answers is given up after answerWaitMs: url_unreachable, nothing paid', async () => {
      const agent = await fundedAgent(t, 'unanswered', '1.00');
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      try {
        const error = await payingFetch(
          `http://127.0.0.1:${port}/hang`,
          {},
          { agent: agentOf(agent, 'unanswered'), answerWaitMs: 300 },
        ).catch((e) => e);
        expect(error).toMatchObject({ code: 'url_unreachable' });
        expect(error.message).toBe(`127.0.0.1:${port} could not be reached (no answer within 0.3 s); nothing was paid`);
        // A wait no timer can wait is the caller's mistake (setTimeout would fire at once), not a call given up.
        for (const answerWaitMs of [0, Infinity, 2 ** 31]) {
          const refused = await payingFetch(
            `http://127.0.0.1:${port}/hang`,
            {},
            { agent: agentOf(agent, 'unanswered'), answerWaitMs },
          ).catch((e) => e);
          expect(refused, String(answerWaitMs)).toMatchObject({
            code: 'invalid_request',
            message: expect.stringMatching(/^answerWaitMs must be/),
          });
        }
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    /**
     * A seller in front of the demo API: a call `intercepts` takes (answering it in part, or not at
     * all) is left so; any other gets the demo's answer for /weather as it is.
     */
    async function inFrontOfDemo(intercepts: (req: IncomingMessage, res: ServerResponse) => boolean) {
      const seller = createServer((req, res) => {
        if (intercepts(req, res)) return;
        void fetch(`${api.url}/weather`).then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(await answer.text());
        });
      });
      await new Promise<void>((resolve) => seller.listen(0, '127.0.0.1', resolve));
      return {
        port: (seller.address() as AddressInfo).port,
        close: async () => {
          seller.closeAllConnections();
          await new Promise((resolve) => seller.close(resolve));
        },
      };
    }

    it('a seller that takes the paid call and never answers is given up after answerWaitMs: paid_call_failed with the receipt, sent once', async () => {
      const agent = await fundedAgent(t, 'paid-silence', '1.00');
      let paidCalls = 0;
      // The demo API's 402 as it is; the call carrying the receipt is taken and never answered.
      const { port, close: closeSeller } = await inFrontOfDemo((req) => {
        if (req.headers['x-payment'] === undefined) return false;
        paidCalls++;
        return true;
      });
      try {
        const url = `http://127.0.0.1:${port}/weather`;
        const error = await payingFetch(url, {}, { agent: agentOf(agent, 'paid-silence'), answerWaitMs: 500 }).catch((e) => e);
        expect(error).toBeInstanceOf(PaymentError);
        expect(error.code).toBe('paid_call_failed');
        expect(error.message).toBe(`paid, but ${url} gave no answer within 0.5 s`);
        expect(error.details.payment).toMatchObject({ protocol: 'coffer', amount: '0.01' });
        // Not sent again: a seller that took the call and said nothing would say nothing again.
        expect(paidCalls).toBe(1);
        expect(await history('paid-silence')).toHaveLength(1);
      } finally {
        await closeSeller();
      }
    });

    it("a 402 or 503 whose body never ends is the seller's silence too: url_unreachable at first, paid_call_failed once paid", async () => {
      const agent = await fundedAgent(t, 'stalled-bodies', '1.00');
      // The demo's 402 as it is for the first call; the paid call answered with 503 headers and a body
      // that never ends. At `/first`, the first call's 402 body never ends.
      const { port, close: closeSeller } = await inFrontOfDemo((req, res) => {
        if (req.url !== '/first' && req.headers['x-payment'] === undefined) return false;
        res.writeHead(req.url === '/first' ? 402 : 503, { 'content-type': 'application/json' });
        res.write('{"code": "verif');
        return true;
      });
      try {
        const first = await payingFetch(
          `http://127.0.0.1:${port}/first`,
          {},
          { agent: agentOf(agent, 'stalled-bodies'), answerWaitMs: 500 },
        ).catch((e) => e);
        expect({ code: first.code, message: first.message }).toEqual({
          code: 'url_unreachable',
          message: `127.0.0.1:${port} could not be reached (no answer within 0.5 s); nothing was paid`,
        });
        expect(await history('stalled-bodies')).toHaveLength(0);
        const url = `http://127.0.0.1:${port}/weather`;
        const paid = await payingFetch(url, {}, { agent: agentOf(agent, 'stalled-bodies'), answerWaitMs: 500 }).catch((e) => e);
        expect({ code: paid.code, message: paid.message }).toEqual({
          code: 'paid_call_failed',
          message: `paid, but ${url} gave no answer within 0.5 s`,
        });
        expect(await history('stalled-bodies')).toHaveLength(1);
      } finally {
        await closeSeller();
      }
    });

    it('refuses a 402 whose recipient contradicts the registry, or that asks for another network, before paying', async () => {
      const agent = await fundedAgent(t, 'careful', '5.00');
      const elsewhere = await sellerWith((body) => ({ ...body, recipient: OTHER }));
      const otherCurrency = await sellerWith((body) => ({ ...body, currency: 'SOL' }));
      const otherNetwork = await sellerWith((body) => ({ ...body, network: 'mainnet' }));
      try {
        expect(await payingFetch(elsewhere.url, {}, { agent: agentOf(agent, 'careful') }).catch((e) => e)).toMatchObject({
          code: 'recipient_mismatch',
        });
        expect(await payingFetch(otherCurrency.url, {}, { agent: agentOf(agent, 'careful') }).catch((e) => e)).toMatchObject({
          code: 'unreadable_402',
        });
        // Read, and on a network this Coffer does not pay: unsupported, as an x402 offer there is.
        expect(await payingFetch(otherNetwork.url, {}, { agent: agentOf(agent, 'careful') }).catch((e) => e)).toMatchObject({
          code: 'unsupported_offer',
        });
        expect(await history('careful')).toHaveLength(0);
      } finally {
        await elsewhere.close();
        await otherCurrency.close();
        await otherNetwork.close();
      }
    });

    it('pays nothing when the registry cannot be asked', async () => {
      const agent = await fundedAgent(t, 'no-registry', '5.00');
      const broken: typeof fetch = async (input, init) =>
        String(input).includes('/v1/services') ? new Response('{"error":"down"}', { status: 503 }) : fetch(input, init);
      const error = await payingFetch(`${api.url}/weather`, {}, { agent: agentOf(agent, 'no-registry'), fetch: broken }).catch((e) => e);
      expect(error).toMatchObject({ code: 'coffer_unreachable' });
      expect(await history('no-registry')).toHaveLength(0);
    });

    it('keeps presenting the receipt while the API says "not yet" past a few tries: its verifier restarting (helper 180: paid, then 503 for good)', async () => {
      const agent = await fundedAgent(t, 'verifier-restarting', '5.00');
      let paidTries = 0;
      // The seller's verifier (Coffer itself, on sim) down for five tries, about 7 s: the call gave up after four.
      const restarting: typeof fetch = async (input, init) => {
        if (new Headers(init?.headers).has('x-payment') && ++paidTries <= 5) {
          return new Response(
            JSON.stringify({ error: 'the payment could not be verified right now; try again', code: 'verifier_unavailable' }),
            {
              status: 503,
            },
          );
        }
        return fetch(input, init);
      };
      const served = await payingFetch(`${api.url}/weather`, {}, { agent: agentOf(agent, 'verifier-restarting'), fetch: restarting });
      expect(served.response.status).toBe(200);
      expect(paidTries).toBe(6);
      expect(await history('verifier-restarting')).toHaveLength(1);
    });

    it('retries the same receipt while the API says "not yet", and fails without paying again when its answer was lost', async () => {
      const agent = await fundedAgent(t, 'patient-fetch', '5.00');
      let paidTries = 0;
      const laggy: typeof fetch = async (input, init) => {
        if (new Headers(init?.headers).has('x-payment') && ++paidTries === 1) {
          return new Response(JSON.stringify({ error: 'try again', code: 'verifier_unavailable' }), { status: 503 });
        }
        return fetch(input, init);
      };
      const ok = await payingFetch(`${api.url}/weather`, {}, { agent: agentOf(agent, 'patient-fetch'), fetch: laggy });
      expect(ok.response.status).toBe(200);
      expect(paidTries).toBe(2);

      let lost = 0;
      const lossy: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (new Headers(init?.headers).has('x-payment') && ++lost === 1) throw new TypeError('connection reset after the answer was sent');
        return response;
      };
      const error = await payingFetch(`${api.url}/weather`, {}, { agent: agentOf(agent, 'patient-fetch'), fetch: lossy }).catch((e) => e);
      expect(error).toMatchObject({ code: 'paid_call_failed' });
      expect(error.details.payment.header.value).toMatch(/^v1\./);
      expect(await history('patient-fetch')).toHaveLength(2);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('4.98'));
    });

    it('never pays an x402 offer with a Coffer receipt (it would pay and buy nothing): refused before any money moves', async () => {
      const agent = await fundedAgent(t, 'x402-client', '1.00');
      const before = await t.coffer.chain.usdcBalance(agent.walletAddress);
      const offer = {
        scheme: 'exact',
        network: 'solana-localnet',
        maxAmountRequired: '10000',
        resource: 'http://127.0.0.1/data',
        description: 'data',
        mimeType: 'application/json',
        payTo: DEMO_PAY_TO,
        maxTimeoutSeconds: 60,
        asset: t.coffer.chain.usdc,
        extra: { feePayer: OTHER },
      };
      const app = express();
      // x402 v1: the terms in the body; the seller then expects an X-PAYMENT payload, not a receipt.
      app.get('/v1', (_req, res) => void res.status(402).json({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [offer] }));
      // x402 v2: the terms in the PAYMENT-REQUIRED header, the body empty.
      app.get('/v2', (_req, res) => {
        const required = {
          x402Version: 2,
          error: 'Payment required',
          resource: { url: 'http://127.0.0.1/v2' },
          accepts: [{ ...offer, network: 'solana:localnet', amount: '10000' }],
        };
        res
          .status(402)
          .set('PAYMENT-REQUIRED', Buffer.from(JSON.stringify(required)).toString('base64'))
          .json({});
      });
      const server = await listen(app);
      try {
        for (const path of ['/v1', '/v2']) {
          const error = await payingFetch(`${server.url}${path}`, {}, { agent: agentOf(agent, 'x402-client') }).catch((e) => e);
          expect(error).toBeInstanceOf(PaymentError);
          expect(error.code).toBe('unsupported_offer');
          // On sim x402 is paid on the embedded EVM chain only (x402 names no Solana network of a local cluster).
          expect(error.message).toMatch(
            path === '/v1'
              ? /x402 v1 is not paid on any rail here; the seller offers exact on solana-localnet/
              : /Coffer pays x402 "exact" in USDC on eip155:790526; the seller offers exact on solana:localnet/,
          );
          // Why Solana pays no x402 here, so that the seller's terms are not read as the fault.
          expect(error.message).toMatch(/; x402 pays Solana on devnet and mainnet, and this Coffer's Solana is sim(;|$)/);
          if (path === '/v1')
            expect(error.message).toMatch(/; x402 v1 names Base and Base Sepolia only, and this Coffer's Base rail is sim$/);
        }
        // Asked on Solana, where this Coffer pays no x402, of an offer also payable on Base: said so.
        const both = await listen(
          express().get('/both', (_req, res) => {
            const onBase = {
              ...offer,
              network: 'eip155:790526',
              amount: '10000',
              asset: t.coffer.base!.chain.usdc,
              payTo: `0x${'ab'.repeat(20)}`,
            };
            const required = {
              x402Version: 2,
              resource: { url: 'http://127.0.0.1/both' },
              accepts: [{ ...offer, network: 'solana:localnet', amount: '10000' }, onBase],
            };
            res
              .status(402)
              .set('PAYMENT-REQUIRED', Buffer.from(JSON.stringify(required)).toString('base64'))
              .json({});
          }),
        );
        // An offer on Base alone whose one entry is at fault: refused for it, nothing said of Solana
        // (no entry is there). An asset spelled with a space shows it, and why it is not paid.
        const usdc = t.coffer.base!.chain.usdc;
        const baseOnly = await listen(
          express().get('/base-only', (req, res) => {
            const entry = { ...offer, network: 'eip155:790526', amount: '10000', asset: usdc, payTo: `0x${'ab'.repeat(20)}` };
            const fault = req.query.fault === 'asset' ? { asset: `${usdc} ` } : { amount: '0' };
            const required = { x402Version: 2, resource: { url: 'http://127.0.0.1/base-only' }, accepts: [{ ...entry, ...fault }] };
            res
              .status(402)
              .set('PAYMENT-REQUIRED', Buffer.from(JSON.stringify(required)).toString('base64'))
              .json({});
          }),
        );
        try {
          const onSolana = await payingFetch(`${both.url}/both`, {}, { agent: agentOf(agent, 'x402-client'), rail: 'sol' }).catch((e) => e);
          expect(onSolana).toMatchObject({ code: 'unsupported_offer' });
          expect(onSolana.message).toMatch(
            /x402 is not paid on Solana here; .*; it is payable on Base, with no rail asked; x402 pays Solana/,
          );
          const free = await payingFetch(`${baseOnly.url}/base-only`, {}, { agent: agentOf(agent, 'x402-client') }).catch((e) => e);
          expect(free).toMatchObject({ code: 'unsupported_offer' });
          expect(free.message).toMatch(/; the seller offers exact on eip155:790526 in 0x[0-9a-fA-F]{40} \(an amount of 0\)$/);
          const spaced = await payingFetch(`${baseOnly.url}/base-only?fault=asset`, {}, { agent: agentOf(agent, 'x402-client') }).catch(
            (e) => e,
          );
          expect(spaced).toMatchObject({ code: 'unsupported_offer' });
          expect(spaced.message).toContain(`the seller offers exact on eip155:790526 in "${usdc} " (not this network's USDC, ${usdc})`);
          expect(spaced.message).not.toMatch(/Solana/);
        } finally {
          await close(baseOnly.server);
          await close(both.server);
        }
        expect(await history('x402-client')).toHaveLength(0);
        expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(before);
      } finally {
        await close(server.server);
      }
    });
  });
});
