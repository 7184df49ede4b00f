/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import express from 'express';
import { getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createDemoApi, DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { cofferBaseTransferLookup, cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { EMBEDDED_EVM_CHAIN_ID } from '../../server/chain/evm/sim/chain.js';
import { baseReceiptProofMessage, baseReceiptSchema, encodeBaseReceipt } from '../../server/wire/receipts.js';
import { close, listen } from '../helpers/http-server.js';
import { deployAgent } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { PaymentError } from '../../server/x402/paying-fetch/payment-error.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';

/**
 * Issue 49, point 4: the paywall (here `coffer demo-api`'s) verifies a Coffer receipt of a payment on
 * Base on that chain: the transaction moved the price to its Base recipient, and its authorization's
 * nonce commits to the receipt's memo (an EVM transfer carries no memo), so a receipt re-signed to
 * claim another nonce buys nothing.
 */
describe('a paywall takes Coffer receipts of payments on Base, verified on that chain', () => {
  const t = useCoffer();
  let store: PaywallStore;
  let api: { url: string; server: Server };
  let apiKey: string;
  let agentBase: Address;

  beforeAll(async () => {
    store = openPaywallStore(':memory:');
    const base = await cofferBaseTransferLookup(t.url);
    expect(base).not.toBeNull();
    api = await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), base: { lookup: base! }, store }));
    apiKey = (await deployAgent(t, 'base-buyer', { dailyBudget: '5.00', maxPerPayment: '1.00' })).apiKey;
    expect((await t.api('POST', t.withOwner('/v1/agents/base-buyer/allocate'), { body: { amount: '2', rail: 'base' } })).status).toBe(200);
    agentBase = (await t.api('GET', t.withOwner('/v1/agents/base-buyer/balance'))).body.wallets.base;
  });
  afterAll(async () => {
    if (api) await close(api.server);
    store?.close();
  });

  /** The 402's terms for a route: its nonce, and where it is paid on Base. */
  const termsOf = async (path: string) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(402);
    return (await response.json()) as any;
  };
  const payOnBase = async (terms: any, overrides: Record<string, unknown> = {}) => {
    const paid = await payUsdc(t, 'base-buyer', apiKey, {
      service: 'demo-weather-on-base',
      recipient: terms.base.recipient,
      amount: terms.amount,
      nonce: terms.nonce,
      ...overrides,
    });
    expect(paid.status).toBe(200);
    return paid.body;
  };
  const call = (path: string, receipt: string) => fetch(`${api.url}${path}`, { headers: { 'x-payment': receipt } });

  it('offers Base beside Solana in its 402, and answers a Base receipt once', async () => {
    const terms = await termsOf('/weather?city=Lisbon');
    expect(terms.base).toEqual({ recipient: DEMO_BASE_PAY_TO, network: 'sim', chainId: EMBEDDED_EVM_CHAIN_ID });
    const paid = await payOnBase(terms);
    expect(paid.rail).toBe('base');
    const answered = await call('/weather?city=Lisbon', paid.xPaymentHeader);
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as any).paid).toEqual({
      amount: '0.01',
      by: agentBase,
      txSignature: paid.txSignature,
      rail: 'base',
      testMoney: true,
    });
    const again = await call('/weather?city=Lisbon', paid.xPaymentHeader);
    expect(again.status).toBe(402);
    expect(((await again.json()) as any).code).toBe('receipt_already_used');
  });

  it('refuses a receipt re-signed to claim another nonce: the chain holds the memo it paid', async () => {
    const first = await termsOf('/weather?city=Oslo');
    const second = await termsOf('/weather?city=Oslo');
    const paid = await payOnBase(first);
    const receipt = baseReceiptSchema.parse(JSON.parse(Buffer.from(paid.xPaymentHeader.slice(3), 'base64').toString('utf8')));
    // The payer's own key signs a receipt naming the other nonce: its proof holds, its memo does not.
    const { proof: _proof, ...claims } = { ...receipt, memo: second.nonce };
    const proof = await t.coffer.engine.ctx.vault.signEvmMessage(agentBase, baseReceiptProofMessage(claims));
    const forged = await call('/weather?city=Oslo', encodeBaseReceipt({ ...claims, proof }));
    expect(forged.status).toBe(402);
    expect(((await forged.json()) as any).code).toBe('memo_mismatch');
    // The true receipt still buys its answer.
    expect((await call('/weather?city=Oslo', paid.xPaymentHeader)).status).toBe(200);
  });

  it('refuses a Base payment to someone else, and a Base receipt of another chain', async () => {
    const terms = await termsOf('/quote?symbol=ACME');
    const elsewhere = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const paid = await payOnBase(terms, { recipient: elsewhere });
    const refused = await call('/quote?symbol=ACME', paid.xPaymentHeader);
    expect(((await refused.json()) as any).code).toBe('wrong_recipient');

    const receipt = baseReceiptSchema.parse(JSON.parse(Buffer.from(paid.xPaymentHeader.slice(3), 'base64').toString('utf8')));
    const { proof: _proof, ...claims } = { ...receipt, chainId: 84532, recipient: DEMO_BASE_PAY_TO };
    const proof = await t.coffer.engine.ctx.vault.signEvmMessage(agentBase, baseReceiptProofMessage(claims));
    const other = await call('/quote?symbol=ACME', encodeBaseReceipt({ ...claims, proof }));
    expect(((await other.json()) as any).code).toBe('wrong_network');
  });

  it('a Base receipt whose payer did not sign it is refused; Solana receipts are taken as before', async () => {
    const terms = await termsOf('/weather?city=Rome');
    const paid = await payOnBase(terms);
    const receipt = baseReceiptSchema.parse(JSON.parse(Buffer.from(paid.xPaymentHeader.slice(3), 'base64').toString('utf8')));
    const stranger = privateKeyToAccount(generatePrivateKey());
    const { proof: _proof, ...claims } = receipt;
    const strangers = encodeBaseReceipt({
      ...claims,
      proof: await stranger.signMessage({ message: { raw: baseReceiptProofMessage(claims) } }),
    });
    expect(((await (await call('/weather?city=Rome', strangers)).json()) as any).code).toBe('invalid_proof');

    expect((await t.api('POST', t.withOwner('/v1/agents/base-buyer/allocate'), { body: { amount: '1', rail: 'sol' } })).status).toBe(200);
    const solana = await termsOf('/weather?city=Rome');
    const onSolana = await payUsdc(t, 'base-buyer', apiKey, { service: 'demo-weather', amount: solana.amount, nonce: solana.nonce });
    expect(onSolana.body.rail).toBe('sol');
    expect((await call('/weather?city=Rome', onSolana.body.xPaymentHeader)).status).toBe(200);
  });

  it('payingFetch with rail "base" pays Coffer\'s 402 on Base where it offers Base, and refuses one that does not: nothing paid', async () => {
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'base-buyer', apiKey };
    const before = await payments();
    const { response, payment } = await payingFetch(`${api.url}/weather?city=Porto`, {}, { agent, rail: 'base' });
    expect(response.status).toBe(200);
    expect(payment).toMatchObject({ protocol: 'coffer', rail: 'base', network: 'sim', amount: '0.01' });
    expect(((await response.json()) as any).paid).toMatchObject({ by: agentBase });

    // A 402 that offers Solana alone: --rail base is refused in words, before anything is paid.
    const solanaOnly = await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), store }));
    try {
      await expect(payingFetch(`${solanaOnly.url}/weather?city=Porto`, {}, { agent, rail: 'base' })).rejects.toMatchObject({
        code: 'unsupported_offer',
        message: expect.stringMatching(/cannot be paid on Base: it offers no Base payment Coffer can read \(none, or .*\); not paid/),
      });
    } finally {
      await close(solanaOnly.server);
    }
    expect(await payments()).toBe(before + 1);
  });

  it('payingFetch with rail "base" refuses Base on another chain, and a listed service\'s 402 naming another Base recipient: nothing paid', async () => {
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'base-buyer', apiKey };
    const before = await payments();
    // A seller whose 402 is the demo API's, changed as each case needs.
    let change: (terms: any) => any = (terms) => terms;
    const seller = express().get('/weather', async (_req, res) => {
      res.status(402).json(change(await termsOf('/weather?city=Bergen')));
    });
    const served = await listen(seller);
    try {
      change = (terms) => ({ ...terms, base: { ...terms.base, chainId: 84532 } });
      await expect(payingFetch(`${served.url}/weather`, {}, { agent, rail: 'base' })).rejects.toMatchObject({
        code: 'unsupported_offer',
        message: expect.stringMatching(/asks for Base on chain 84532; this Coffer pays Base on chain 790526; not paid/),
      });
      const stranger = privateKeyToAccount(generatePrivateKey()).address;
      change = (terms) => ({ ...terms, base: { ...terms.base, recipient: stranger } });
      await expect(payingFetch(`${served.url}/weather`, {}, { agent, rail: 'base' })).rejects.toMatchObject({
        code: 'recipient_mismatch',
      });
    } finally {
      await close(served.server);
    }
    expect(await payments()).toBe(before);
  });

  it("payingFetch with no rail asked pays Coffer's 402 on the rail whose wallet holds it, Solana first; short on both, it names both", async () => {
    const onBaseOnly = await deployAgent(t, 'base-funds-only', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const allocate = async (amount: string, rail: 'sol' | 'base') =>
      expect((await t.api('POST', t.withOwner('/v1/agents/base-funds-only/allocate'), { body: { amount, rail } })).status).toBe(200);
    await allocate('0.5', 'base');
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'base-funds-only', apiKey: onBaseOnly.apiKey };
    // Its money is on Base alone: paid there, and the payment says so.
    const onBase = await payingFetch(`${api.url}/weather?city=Faro`, {}, { agent });
    expect(onBase.response.status).toBe(200);
    expect(onBase.payment).toMatchObject({ protocol: 'coffer', rail: 'base', amount: '0.01' });

    // Its wallets not read (Coffer's answer lost): paid on Solana as before, whose refusal says Base can pay it, and how.
    const balanceLost: typeof fetch = (input, init) =>
      new URL(String(input)).pathname.endsWith('/balance') ? Promise.resolve(new Response('{}', { status: 500 })) : fetch(input, init);
    await expect(payingFetch(`${api.url}/weather?city=Faro`, {}, { agent, fetch: balanceLost })).rejects.toMatchObject({
      code: 'payment_refused',
      details: { cofferCode: 'insufficient_funds' },
      message: expect.stringMatching(
        /available on Solana, less than 0\.01; the 402 can be paid on Base too: ask again with the rail "base" to pay it from the agent's Base wallet$/,
      ),
    });

    // Solana asked outright (its wallets not read): its refusal says Base can pay it too, as an x402 offer's does.
    await expect(payingFetch(`${api.url}/weather?city=Faro`, {}, { agent, rail: 'sol' })).rejects.toMatchObject({
      code: 'payment_refused',
      details: { cofferCode: 'insufficient_funds' },
      message: expect.stringMatching(
        /available on Solana, less than 0\.01; the 402 can be paid on Base too: ask again with the rail "base"/,
      ),
    });

    // Money on both rails: Solana first.
    await allocate('0.5', 'sol');
    const onSolana = await payingFetch(`${api.url}/weather?city=Faro`, {}, { agent });
    expect(onSolana.payment).toMatchObject({ protocol: 'coffer', rail: 'sol', amount: '0.01' });

    // Short on both: refused on Solana, naming what Base holds free.
    const broke = await deployAgent(t, 'no-funds', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const brokeAgent = { cofferUrl: t.url, owner: t.owner, agentId: 'no-funds', apiKey: broke.apiKey };
    await expect(payingFetch(`${api.url}/weather?city=Faro`, {}, { agent: brokeAgent })).rejects.toMatchObject({
      code: 'payment_refused',
      details: { cofferCode: 'insufficient_funds' },
      message: expect.stringMatching(/available on Solana, less than 0\.01; on Base, where the 402 is payable too, 0\.00 USDC available$/),
    });
    // A 402 on Solana alone says nothing of Base.
    const solanaOnly = await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), store }));
    try {
      const refused = await payingFetch(`${solanaOnly.url}/weather?city=Faro`, {}, { agent: brokeAgent }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ details: { cofferCode: 'insufficient_funds' } });
      expect((refused as Error).message).not.toMatch(/Base/);
    } finally {
      await close(solanaOnly.server);
    }
  });

  it('payingFetch with rail "base" asked, short there, says Solana pays it where its wallet holds it, and how (helper 189)', async () => {
    const { apiKey: solKey } = await deployAgent(t, 'sol-funds-only', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    expect((await t.api('POST', t.withOwner('/v1/agents/sol-funds-only/allocate'), { body: { amount: '0.5', rail: 'sol' } })).status).toBe(
      200,
    );
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'sol-funds-only', apiKey: solKey };
    const refused = await payingFetch(`${api.url}/weather?city=Faro`, {}, { agent, rail: 'base' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'payment_refused', details: { cofferCode: 'insufficient_funds', otherRail: 'sol' } });
    expect((refused as Error).message).toMatch(
      /available on Base, less than 0\.01; the 402 can be paid on Solana too: ask again with the rail "sol" to pay it from the agent's Solana wallet$/,
    );
    // Short on Solana too: what its wallet there holds, and no call offered.
    const { apiKey: brokeKey } = await deployAgent(t, 'sol-short-too', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const broke = { cofferUrl: t.url, owner: t.owner, agentId: 'sol-short-too', apiKey: brokeKey };
    const short = await payingFetch(`${api.url}/weather?city=Faro`, {}, { agent: broke, rail: 'base' }).catch((error: unknown) => error);
    expect((short as Error).message).toMatch(
      /available on Base, less than 0\.01; on Solana, where the 402 is payable too, 0\.00 USDC available$/,
    );
    expect((short as { details: object }).details).not.toHaveProperty('otherRail');
  });

  it("payingFetch with no rail asked pays Coffer's 402 on the owner's preferred rail where the wallet there holds it", async () => {
    const setPreferred = async (preferredRail: 'sol' | 'base' | null) =>
      expect((await t.api('POST', t.withOwner('/v1/settings'), { body: { preferredRail } })).status).toBe(200);
    const funded = async (agentId: string, rails: ('sol' | 'base')[]) => {
      const { apiKey } = await deployAgent(t, agentId, { dailyBudget: '5.00', maxPerPayment: '1.00' });
      for (const rail of rails) {
        expect((await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: '0.5', rail } })).status).toBe(200);
      }
      return { cofferUrl: t.url, owner: t.owner, agentId, apiKey };
    };
    const both = await funded('prefers-base', ['sol', 'base']);
    const solanaOnly = await funded('prefers-base-sol-only', ['sol']);
    await setPreferred('base');
    try {
      // The agent reads the owner's preference with its wallets.
      expect((await t.api('GET', t.withOwner('/v1/agents/prefers-base/balance'), { key: both.apiKey })).body.preferredRail).toBe('base');
      const preferred = await payingFetch(`${api.url}/weather?city=Porto`, {}, { agent: both });
      expect(preferred.payment).toMatchObject({ protocol: 'coffer', rail: 'base', amount: '0.01' });
      // Its Base wallet empty: the rail whose wallet holds it.
      const fallback = await payingFetch(`${api.url}/weather?city=Porto`, {}, { agent: solanaOnly });
      expect(fallback.payment).toMatchObject({ protocol: 'coffer', rail: 'sol', amount: '0.01' });
      // Solana preferred, or none: Solana first, as before.
      await setPreferred('sol');
      const onSolana = await payingFetch(`${api.url}/weather?city=Porto`, {}, { agent: both });
      expect(onSolana.payment).toMatchObject({ protocol: 'coffer', rail: 'sol' });
    } finally {
      await setPreferred(null);
    }
  });

  it("payingFetch with no rail asked holds a 402 to the registry on both of its rails, and keeps a listed service's Solana-only rail", async () => {
    const onBaseOnly = await deployAgent(t, 'base-money', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    expect((await t.api('POST', t.withOwner('/v1/agents/base-money/allocate'), { body: { amount: '1', rail: 'base' } })).status).toBe(200);
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'base-money', apiKey: onBaseOnly.apiKey };
    const made = async () =>
      (await t.api('GET', t.withOwner('/v1/agents/base-money/spend-history?limit=500'))).body.payments.length as number;
    let change: (terms: any) => any = (terms) => terms;
    const seller = express().get('/weather', async (_req, res) => {
      res.status(402).json(change(await termsOf('/weather?city=Tromso')));
    });
    const served = await listen(seller);
    try {
      // Naming no service, paid on Solana to the demo's wallet (listed at 0.01) and on Base to a
      // stranger: held to the Solana wallet's listed price, though its Base rail would pay it.
      const stranger = privateKeyToAccount(generatePrivateKey()).address;
      change = ({ service: _service, ...terms }) => ({ ...terms, amount: '0.30', base: { ...terms.base, recipient: stranger } });
      await expect(payingFetch(`${served.url}/weather`, {}, { agent })).rejects.toMatchObject({
        code: 'price_above_registry',
        message: expect.stringMatching(
          /asks 0\.30 USDC but the registry lists its wallet 93ug\w+ \(demo-quotes, demo-weather\) at 0\.01; not paid$/,
        ),
      });
      // Naming a listed service paid on Solana only: not chosen for Base, so Solana's want of funds is
      // what is said, not that the service is not on Base.
      // (Its nonce another seller's: this paywall's names its own price, 0.01, which 0.005 would not pay.)
      change = (terms) => ({
        ...terms,
        service: 'web-search',
        recipient: '7GrTWVNqLDmdBYR4X5WDpyqPhWUQjrun1cSFoFjNPw6Z',
        amount: '0.005',
        nonce: 'another-sellers-terms',
      });
      await expect(payingFetch(`${served.url}/weather`, {}, { agent })).rejects.toMatchObject({
        code: 'payment_refused',
        details: { cofferCode: 'insufficient_funds' },
        message: expect.not.stringMatching(/Base/),
      });
    } finally {
      await close(served.server);
    }
    expect(await made()).toBe(0);
  });

  it("payingFetch with no rail asked pays on Base a 402 whose Solana terms are another network's; with no Base to pay, it refuses before reading the registry", async () => {
    const twoRails = await deployAgent(t, 'two-rails', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    for (const rail of ['sol', 'base']) {
      expect((await t.api('POST', t.withOwner('/v1/agents/two-rails/allocate'), { body: { amount: '0.5', rail } })).status).toBe(200);
    }
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'two-rails', apiKey: twoRails.apiKey };
    // The demo API's 402 for one route, its Solana terms said to be mainnet's; a paid call is the demo API's.
    let change: (terms: any) => any = (terms) => ({ ...terms, network: 'mainnet' });
    const seller = express().get('/weather', async (req, res) => {
      const receipt = req.header('x-payment');
      if (receipt === undefined) return void res.status(402).json(change(await termsOf('/weather?city=Lima')));
      const paid = await fetch(`${api.url}/weather?city=Lima`, { headers: { 'x-payment': receipt } });
      res.status(paid.status).json(await paid.json());
    });
    const served = await listen(seller);
    let registryReads = 0;
    const counted: typeof fetch = (input, init) => {
      if (new URL(String(input)).pathname.startsWith('/v1/services')) registryReads += 1;
      return fetch(input, init);
    };
    try {
      // Its Solana wallet holds the amount, but Solana is not this Coffer's network there: paid on Base.
      const paid = await payingFetch(`${served.url}/weather`, {}, { agent, fetch: counted });
      expect(paid.response.status).toBe(200);
      expect(paid.payment).toMatchObject({ protocol: 'coffer', rail: 'base', amount: '0.01' });
      // Base on another chain too: nothing payable, said before the registry is read.
      registryReads = 0;
      change = (terms) => ({ ...terms, network: 'mainnet', base: { ...terms.base, chainId: 84532 } });
      await expect(payingFetch(`${served.url}/weather`, {}, { agent, fetch: counted })).rejects.toMatchObject({
        code: 'unsupported_offer',
        message: expect.stringMatching(/wants payment on mainnet; this Coffer pays on \w+/),
      });
      expect(registryReads).toBe(0);
    } finally {
      await close(served.server);
    }
    const made = (await t.api('GET', t.withOwner('/v1/agents/two-rails/spend-history?limit=500'))).body.payments as any[];
    expect(made.map((payment) => payment.rail)).toEqual(['base']);
  });

  it("payingFetch picks up a request held on Base because its Solana terms are another network's: the yes's payment presented, nothing paid again", async () => {
    const asking = await deployAgent(t, 'picks-up-base', { dailyBudget: '5.00', maxPerPayment: '1.00', askAbove: '0' });
    for (const rail of ['sol', 'base']) {
      expect((await t.api('POST', t.withOwner('/v1/agents/picks-up-base/allocate'), { body: { amount: '0.5', rail } })).status).toBe(200);
    }
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'picks-up-base', apiKey: asking.apiKey };
    const seller = express().get('/weather', async (req, res) => {
      const receipt = req.header('x-payment');
      if (receipt === undefined) return void res.status(402).json({ ...(await termsOf('/weather?city=Cusco')), network: 'mainnet' });
      const paid = await fetch(`${api.url}/weather?city=Cusco`, { headers: { 'x-payment': receipt } });
      res.status(paid.status).json(await paid.json());
    });
    const served = await listen(seller);
    try {
      // The first call is held on Base; the owner says yes, and the call goes away (killed) meanwhile.
      let yes: Promise<{ status: number; body: any }> | null = null;
      let approvalId = '';
      let told = 0;
      const gone = await payingFetch(
        `${served.url}/weather`,
        {},
        {
          agent,
          onHeld: (approval) => {
            told += 1;
            approvalId = approval.approvalId;
            yes = t.api('POST', t.withOwner(`/v1/approvals/${approval.approvalId}/approve`));
            throw new Error('killed');
          },
        },
      ).catch((error: unknown) => error);
      // The caller's own callback that threw, as it threw: not Coffer out of reach.
      expect(gone).not.toBeInstanceOf(PaymentError);
      expect((gone as Error).message).toBe('killed');
      // Not retried: the callback told once.
      expect(told).toBe(1);
      expect((await yes!).status).toBe(200);
      // Picked up with its request and no rail, as the waiting line and fetch_paid say to: the yes's payment.
      const picked = await payingFetch(`${served.url}/weather`, {}, { agent, approvalId });
      expect(picked.response.status).toBe(200);
      expect(picked.payment).toMatchObject({ protocol: 'coffer', rail: 'base', amount: '0.01' });
    } finally {
      await close(served.server);
    }
    const made = (await t.api('GET', t.withOwner('/v1/agents/picks-up-base/spend-history?limit=500'))).body.payments as any[];
    expect(made.map((payment) => payment.rail)).toEqual(['base']);
  });

  it('payingFetch says nothing of Base where the Solana refusal stopped the agent (its breaker): asking again pays nothing', async () => {
    const tripped = await deployAgent(t, 'trips-at-once', {
      dailyBudget: '5.00',
      maxPerPayment: '1.00',
      breaker: { refusals: { count: 1, minutes: 5 } },
    });
    expect((await t.api('POST', t.withOwner('/v1/agents/trips-at-once/allocate'), { body: { amount: '0.5', rail: 'base' } })).status).toBe(
      200,
    );
    const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'trips-at-once', apiKey: tripped.apiKey };
    // Its wallets not read, so Solana is asked, and refuses for want of funds: the breaker trips.
    const balanceLost: typeof fetch = (input, init) =>
      new URL(String(input)).pathname.endsWith('/balance') ? Promise.resolve(new Response('{}', { status: 500 })) : fetch(input, init);
    const refused = await payingFetch(`${api.url}/weather?city=Nuuk`, {}, { agent, fetch: balanceLost }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'payment_refused',
      details: { cofferCode: 'insufficient_funds', agentStopped: { reason: 'its breaker tripped: 1 refused payment within 5 minutes' } },
    });
    expect((refused as Error).message).toMatch(/is stopped, every payment refused until the owner resumes it$/);
    expect((refused as Error).message).not.toMatch(/Base/);
    // Asked again, on a wallet that could pay on Base: refused as stopped, and nothing paid on either rail.
    const again = await payingFetch(`${api.url}/weather?city=Nuuk`, {}, { agent }).catch((error: unknown) => error);
    expect(again).toMatchObject({ code: 'payment_refused', details: { cofferCode: 'agent_suspended' } });
    expect((await t.api('GET', t.withOwner('/v1/agents/trips-at-once/spend-history'))).body.payments).toEqual([]);
    expect((await t.api('GET', t.withOwner('/v1/agents/trips-at-once/balance'))).body.balances).toMatchObject({
      sol: '0.00',
      base: '0.50',
    });
  });

  /** How many payments the agent made. */
  const payments = async () =>
    (await t.api('GET', t.withOwner('/v1/agents/base-buyer/spend-history?limit=500'))).body.payments.length as number;
});
