/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { createPublicClient, getAddress, http, keccak256, stringToHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { createDemoApi, DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { cofferBaseTransferLookup, cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { close, listen } from '../helpers/http-server.js';
import { deployAgent } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';

/**
 * Registry services paid on Base (issue 49, point 5): a service the registry lists with a Base address
 * (`base: {payTo, network}`) is paid there as the service it is, `rail: "base"` or its Base address as
 * the recipient, so its service budget, `allowedServices` and the registry's price cap hold its
 * payments on both rails. The demo API takes the receipt.
 */
describe('registry services paid on Base', () => {
  const t = useCoffer();
  const chain = () => createPublicClient({ transport: http(`${t.url}/evm-rpc`, { retryCount: 0 }) });
  const usdcOf = async (address: string) => {
    const usdc = (await t.api('GET', '/v1/health')).body.base.usdc;
    return chain().readContract({ address: usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [getAddress(address)] });
  };
  const history = async (agentId: string, apiKey: string) =>
    (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history?limit=100`), { key: apiKey })).body.payments as any[];

  async function fundedAgent(agentId: string, policy: Record<string, unknown> = {}) {
    const { apiKey } = await deployAgent(t, agentId, { dailyBudget: '10', maxPerPayment: '1' });
    if (Object.keys(policy).length > 0) {
      const set = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/policy`), { body: policy });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
    }
    for (const rail of ['sol', 'base']) {
      const allocated = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: '2', rail } });
      expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    }
    return { apiKey, pay: (body: Record<string, unknown>) => payUsdc(t, agentId, apiKey, body) };
  }

  beforeAll(async () => {
    const minted = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '50', rail: 'base' } });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  });

  it('lists where a service is paid on Base, and finds it by that address', async () => {
    const weather = await t.api('GET', '/v1/services/demo-weather');
    expect(weather.body).toMatchObject({ payTo: expect.any(String), network: 'sim', base: { payTo: DEMO_BASE_PAY_TO, network: 'sim' } });
    // No key is behind it: the last 20 bytes of a hash, as the Solana demo address is nobody's.
    expect(DEMO_BASE_PAY_TO).toBe(getAddress(`0x${keccak256(stringToHex('coffer demo-api pay-to on Base')).slice(-40)}`));
    // A service paid on Solana only says so.
    const searched = await t.api('GET', '/v1/services/search?q=search');
    expect(searched.body.results.find((service: any) => service.id === 'web-search')).toMatchObject({ base: null });
    for (const spelled of [DEMO_BASE_PAY_TO, DEMO_BASE_PAY_TO.toLowerCase()]) {
      const paidTo = await t.api('GET', `/v1/services?payTo=${spelled}`);
      expect(paidTo.status).toBe(200);
      expect(paidTo.body.results.map((service: any) => service.id)).toEqual(['demo-quotes', 'demo-weather']);
    }
    expectError(await t.api('GET', '/v1/services?payTo=0x12'), 400, 'invalid_recipient');
  });

  it('pays a registry service on Base, by rail or by its Base address, as that service', async () => {
    const agent = await fundedAgent('base-weather');
    const before = await usdcOf(DEMO_BASE_PAY_TO);
    const byRail = await agent.pay({ service: 'demo-weather', amount: '0.01', rail: 'base' });
    expect(byRail.status, JSON.stringify(byRail.body)).toBe(200);
    expect(byRail.body).toMatchObject({ rail: 'base', recipient: DEMO_BASE_PAY_TO, service: 'demo-weather', status: 'confirmed' });
    const byAddress = await agent.pay({ service: 'demo-quotes', amount: '0.01', recipient: DEMO_BASE_PAY_TO.toLowerCase() });
    expect(byAddress.status, JSON.stringify(byAddress.body)).toBe(200);
    expect(byAddress.body).toMatchObject({ rail: 'base', recipient: DEMO_BASE_PAY_TO, service: 'demo-quotes' });
    // Left out, and asked for by name, Solana is paid.
    for (const rail of [undefined, 'sol']) {
      const onSolana = await agent.pay({ service: 'demo-weather', amount: '0.01', ...(rail ? { rail } : {}) });
      expect(onSolana.status, JSON.stringify(onSolana.body)).toBe(200);
      expect(onSolana.body.rail).toBe('sol');
    }
    expect(await usdcOf(DEMO_BASE_PAY_TO)).toBe(before + 20_000n);
    const listed = await history('base-weather', agent.apiKey);
    expect(listed.filter((payment) => payment.serviceId === 'demo-weather').map((payment) => payment.service)).toEqual([
      'Coffer demo weather',
      'Coffer demo weather',
      'Coffer demo weather',
    ]);
  });

  it("refuses, and writes nothing for, a rail a service is not paid on, an address not the service's, a rail not the address's", async () => {
    const agent = await fundedAgent('base-refusals');
    const stranger = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    expectError(await agent.pay({ service: 'web-search', amount: '0.005', rail: 'base' }), 400, 'service_not_on_rail', /Solana only/);
    expectError(await agent.pay({ service: 'web-search', amount: '0.005', recipient: stranger }), 400, 'recipient_mismatch');
    expectError(
      await agent.pay({ service: 'demo-weather', amount: '0.01', recipient: stranger }),
      400,
      'recipient_mismatch',
      new RegExp(`${DEMO_BASE_PAY_TO} on Base`),
    );
    expectError(
      await agent.pay({ service: 'demo-weather', amount: '0.01', recipient: DEMO_BASE_PAY_TO, rail: 'sol' }),
      400,
      'recipient_mismatch',
    );
    expectError(
      await agent.pay({ service: 'an-api', amount: '0.01', recipient: stranger, rail: 'sol' }),
      400,
      'recipient_mismatch',
      /on Base, not on Solana/,
    );
    expectError(await agent.pay({ service: 'demo-weather', amount: '0.01', rail: 'eth' }), 400, 'invalid_request');
    expect(await history('base-refusals', agent.apiKey)).toEqual([]);
  });

  it('short on Solana with no rail asked, a service paid on Base too says so where the Base wallet holds it (helper 189)', async () => {
    // An agent with money on Base only: its payment with no rail goes on Solana (the default) and is
    // refused; the words told it to ask the owner for money it had.
    const { apiKey } = await deployAgent(t, 'base-only-payer', { dailyBudget: '10', maxPerPayment: '1' });
    const allocated = await t.api('POST', t.withOwner('/v1/agents/base-only-payer/allocate'), { body: { amount: '0.5', rail: 'base' } });
    expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    const pay = (body: Record<string, unknown>) => payUsdc(t, 'base-only-payer', apiKey, body);
    const refused = await pay({ service: 'demo-weather', amount: '0.01' });
    expectError(refused, 402, 'insufficient_funds');
    expect(refused.body.error).toBe(
      'the agent\'s wallet holds 0.00 USDC available on Solana, less than 0.01; the service is paid on Base too, where this wallet holds 0.50 USDC free: asked with rail "base", it is paid there',
    );
    // A service paid on Solana only says why Base does not pay it (helper 192: images, a Base-only agent).
    expect((await pay({ service: 'web-search', amount: '0.005' })).body.error).toBe(
      "the agent's wallet holds 0.00 USDC available on Solana, less than 0.005; the service is paid on Solana only: the 0.50 USDC free in this wallet on Base cannot pay it",
    );
    // Nothing of Base where Base is short too.
    const short = await deployAgent(t, 'base-short-payer', { dailyBudget: '10', maxPerPayment: '1' });
    const some = await t.api('POST', t.withOwner('/v1/agents/base-short-payer/allocate'), { body: { amount: '0.005', rail: 'base' } });
    expect(some.status, JSON.stringify(some.body)).toBe(200);
    expect((await payUsdc(t, 'base-short-payer', short.apiKey, { service: 'demo-weather', amount: '0.01' })).body.error).toBe(
      "the agent's wallet holds 0.00 USDC available on Solana, less than 0.01",
    );
    // As said, it is paid there.
    const paid = await pay({ service: 'demo-weather', amount: '0.01', rail: 'base' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it("holds a service's budget, allowedServices and the registry's price over its payments on both rails", async () => {
    const agent = await fundedAgent('base-budgeted', {
      allowedServices: ['demo-weather'],
      budgets: [{ amount: '0.02', window: 'day', service: 'demo-weather' }],
    });
    expectError(await agent.pay({ service: 'demo-weather', amount: '0.02', rail: 'base' }), 402, 'price_above_registry');
    expectError(await agent.pay({ service: 'demo-weather', amount: '0.005', rail: 'base' }), 400, 'price_below_registry');
    expect((await agent.pay({ service: 'demo-weather', amount: '0.01' })).status).toBe(200);
    expectError(await agent.pay({ service: 'demo-quotes', amount: '0.01', rail: 'base' }), 402, 'service_not_allowed');
    expect((await agent.pay({ service: 'demo-weather', amount: '0.01', rail: 'base' })).status).toBe(200);
    // 0.01 on each rail: the service's 0.02 a day is spent on either.
    for (const rail of ['base', 'sol']) {
      expectError(
        await agent.pay({ service: 'demo-weather', amount: '0.01', rail }),
        402,
        'budget_exceeded',
        /0\.02 USDC a day for demo-weather/,
      );
    }
    const policy = await t.api('GET', t.withOwner('/v1/agents/base-budgeted/policy'));
    expect(policy.body.budgets).toEqual([expect.objectContaining({ service: 'demo-weather', spent: '0.02', remaining: '0.00' })]);
  });

  describe('the demo API', () => {
    let store: PaywallStore;
    let api: { url: string; server: Server };
    beforeAll(async () => {
      store = openPaywallStore(':memory:');
      const base = await cofferBaseTransferLookup(t.url);
      api = await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), base: { lookup: base! }, store }));
    });
    afterAll(async () => {
      if (api) await close(api.server);
      store?.close();
    });

    it("takes the receipt of its registry listing paid on Base with its 402's nonce", async () => {
      const agent = await fundedAgent('base-demo');
      const terms = (await (await fetch(`${api.url}/quote?symbol=SOL`)).json()) as any;
      expect(terms.base.recipient).toBe(DEMO_BASE_PAY_TO);
      const paid = await agent.pay({ service: 'demo-quotes', amount: terms.amount, nonce: terms.nonce, rail: 'base' });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const answered = await fetch(`${api.url}/quote?symbol=SOL`, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect(answered.status).toBe(200);
    });
  });
});

describe('registry services where the Base rail is off', () => {
  const t = useCoffer({ baseRpc: 'off' });

  it('lists no Base terms, as this Coffer cannot pay there: a rail it would refuse (helper 183)', async () => {
    const weather = await t.api('GET', '/v1/services/demo-weather');
    expect(weather.body).toMatchObject({ id: 'demo-weather', network: 'sim', base: null });
    const searched = await t.api('GET', '/v1/services/search?q=weather');
    expect(searched.body.results.find((service: any) => service.id === 'demo-weather')).toMatchObject({ base: null });
    // Nor is a service found by the Base address it is not listed with here (helper 186).
    expect((await t.api('GET', `/v1/services?payTo=${DEMO_BASE_PAY_TO}`)).body).toEqual({ results: [] });
    // The rail such terms would be paid on is refused indeed.
    const { apiKey } = await deployAgent(t, 'rail-off', { dailyBudget: '10', maxPerPayment: '1' });
    expectError(await payUsdc(t, 'rail-off', apiKey, { service: 'demo-weather', amount: '0.01', rail: 'base' }), 503, 'rail_unavailable');
  });
});
