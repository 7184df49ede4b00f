import { describe, expect, it } from 'vitest';
import { UNLISTED_SELLER, fundedAgent, deployAgent, micro } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay, payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { decodeReceipt } from '../../server/wire/receipts.js';
import { paymentRow } from '../fixtures/transfer-rows.js';

/** An API outside the registry: any price goes (a registry service, and its address by any name, is capped at its listed price). */
const SELLER = UNLISTED_SELLER;
const weather = (amount = '0.01') => ({ service: 'forecast-api', recipient: SELLER, amount, currency: 'USDC', description: 'forecast' });
/** demo-quotes, a registry service, paid at its registry address. */
const quotes = (amount = '0.01') => ({ service: 'demo-quotes', amount, currency: 'USDC', description: 'quote' });

describe('payments over HTTP on the sim chain', () => {
  const t = useCoffer();

  it('returns the payment result of the spec, with a receipt naming a real on-chain transfer', async () => {
    const agent = await fundedAgent(t, 'receipts', '5.00');
    const response = await pay(t, 'receipts', agent.apiKey, {
      service: 'demo-weather',
      amount: '0.005',
      currency: 'USDC',
      nonce: 'nonce-from-402',
    });
    expect(response.status).toBe(200);
    const result = response.body;
    expect(result).toMatchObject({ amount: '0.005', currency: 'USDC', status: 'confirmed' });
    expect(result.paymentId).toMatch(/^pay_/);
    expect(new Date(result.timestamp).toISOString()).toBe(result.timestamp);
    expect(result.xPaymentHeader.startsWith('v1.')).toBe(true);

    const receipt = decodeReceipt(result.xPaymentHeader);
    expect(receipt).not.toBeNull();
    expect(receipt).toEqual({
      v: 1,
      network: 'sim',
      txSignature: result.txSignature,
      amount: '0.005',
      currency: 'USDC',
      timestamp: result.timestamp,
      recipient: '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx',
      payer: agent.walletAddress,
      paymentId: result.paymentId,
      memo: 'nonce-from-402',
      proof: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/),
    });

    // The transaction the receipt names is on the chain, with that amount, recipient and memo.
    const onChain = await t.coffer.chain.findTransfer(receipt!.txSignature);
    expect(onChain).toMatchObject({
      succeeded: true,
      from: agent.walletAddress,
      to: receipt!.recipient,
      amount: micro('0.005'),
      memo: 'nonce-from-402',
      mint: t.coffer.chain.usdc,
    });
    expect(await t.coffer.chain.usdcBalance(receipt!.recipient)).toBeGreaterThanOrEqual(micro('0.005'));
  });

  it('uses the payment id as memo when no nonce is given', async () => {
    const agent = await fundedAgent(t, 'memo-default', '1.00');
    const { body } = await pay(t, 'memo-default', agent.apiKey, weather());
    const onChain = await t.coffer.chain.findTransfer(body.txSignature);
    expect(onChain?.memo).toBe(body.paymentId);
  });

  it('rule 1: over maxPerPayment is 402 max_per_payment_exceeded and moves nothing', async () => {
    const agent = await fundedAgent(t, 'rule1', '10.00', { maxPerPayment: '1.00' });
    const response = await pay(t, 'rule1', agent.apiKey, weather('1.000001'));
    expectError(response, 402, 'max_per_payment_exceeded');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('10'));
    expect((await pay(t, 'rule1', agent.apiKey, weather('1.00'))).status).toBe(200);
  });

  it('rule 2: passing dailyBudget in the last 24 h is 402 daily_budget_exceeded', async () => {
    const agent = await fundedAgent(t, 'rule2', '10.00', { dailyBudget: '1.00', maxPerPayment: '0.60' });
    expect((await pay(t, 'rule2', agent.apiKey, weather('0.60'))).status).toBe(200);
    const over = await pay(t, 'rule2', agent.apiKey, weather('0.41'));
    expectError(over, 402, 'daily_budget_exceeded');
    // Exactly up to the budget is allowed.
    expect((await pay(t, 'rule2', agent.apiKey, weather('0.40'))).status).toBe(200);
    expect((await pay(t, 'rule2', agent.apiKey, weather('0.01'))).body.code).toBe('daily_budget_exceeded');
  });

  it('rule 3: a payment inside cooldownSeconds is 402 cooldown_active with Retry-After', async () => {
    const agent = await fundedAgent(t, 'rule3', '10.00', { cooldownSeconds: 60 });
    expect((await pay(t, 'rule3', agent.apiKey, weather())).status).toBe(200);
    const second = await pay(t, 'rule3', agent.apiKey, weather());
    expectError(second, 402, 'cooldown_active');
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('rule 4: a service outside a non-empty allowedServices is 402 service_not_allowed', async () => {
    const agent = await fundedAgent(t, 'rule4', '10.00', { allowedServices: ['demo-quotes'] });
    const refused = await pay(t, 'rule4', agent.apiKey, weather());
    expectError(refused, 402, 'service_not_allowed');
    expect((await pay(t, 'rule4', agent.apiKey, quotes())).status).toBe(200);
  });

  it('rule 5: a suspended agent cannot pay (403 agent_suspended) until resumed', async () => {
    const agent = await fundedAgent(t, 'rule5', '10.00');
    expect((await t.api('POST', t.withOwner('/v1/agents/rule5/kill'))).status).toBe(200);
    const blocked = await pay(t, 'rule5', agent.apiKey, weather());
    expectError(blocked, 403, 'agent_suspended');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('10'));
    expect((await t.api('POST', t.withOwner('/v1/agents/rule5/resume'))).body.status).toBe('active');
    expect((await pay(t, 'rule5', agent.apiKey, weather())).status).toBe(200);
  });

  it('checks in the order of API.md: active before allowed before max before cooldown before budget before balance', async () => {
    await deployAgent(t, 'order', { dailyBudget: '1.00', maxPerPayment: '1.00', allowedServices: ['demo-quotes'] });
    // Unfunded, not allowed, over max: the service check wins over max and balance.
    const key = t.ownerKey;
    expect((await pay(t, 'order', key, weather('2.00'))).body.code).toBe('service_not_allowed');
    expect((await pay(t, 'order', key, quotes('2.00'))).body.code).toBe('max_per_payment_exceeded');
    expect((await pay(t, 'order', key, quotes('0.01'))).body.code).toBe('insufficient_funds');
    await t.api('POST', t.withOwner('/v1/agents/order/kill'));
    expect((await pay(t, 'order', key, weather('2.00'))).body.code).toBe('agent_suspended');
  });

  it('policy refusals come before anything about the recipient: an unknown service, a wrong or unready recipient', async () => {
    await deployAgent(t, 'order-first', { dailyBudget: '1.00', maxPerPayment: '0.50', allowedServices: ['demo-quotes'] });
    const key = t.ownerKey;
    const fresh = await t.coffer.engine.ctx.vault.createWallet({ kind: 'random' });
    // Not in the registry, no recipient: still "not allowed" first, since the list does not name it.
    expect((await pay(t, 'order-first', key, { ...weather('0.10'), service: 'no-such-service' })).body.code).toBe('service_not_allowed');
    // A recipient contradicting the registry, over max: the policy speaks first.
    const mismatch = { ...weather('0.90'), service: 'demo-quotes', recipient: fresh };
    expect((await pay(t, 'order-first', key, mismatch)).body.code).toBe('max_per_payment_exceeded');
    // An allowed recipient without a USDC account, over max: refused by max, with no chain lookup needed.
    expect(
      (await t.api('POST', t.withOwner('/v1/agents/order-first/policy'), { body: { allowedServices: ['demo-quotes', fresh] } })).status,
    ).toBe(200);
    expect((await pay(t, 'order-first', key, { service: 'my-api', recipient: fresh, amount: '0.90' })).body.code).toBe(
      'max_per_payment_exceeded',
    );
    // Within policy, the recipient's own problems are reported.
    expect((await pay(t, 'order-first', key, { service: 'my-api', recipient: fresh, amount: '0.10' })).body.code).toBe(
      'recipient_not_ready',
    );
    expect((await pay(t, 'order-first', key, { ...mismatch, amount: '0.01' })).body.code).toBe('recipient_mismatch');
    expect(t.coffer.db.prepare("SELECT COUNT(*) FROM payments WHERE agent_id = 'order-first'").pluck().get()).toBe(0);
  });

  it('refuses a payment larger than the wallet with 402 insufficient_funds', async () => {
    const agent = await fundedAgent(t, 'poor', '0.50');
    const response = await pay(t, 'poor', agent.apiKey, weather('0.51'));
    expectError(response, 402, 'insufficient_funds');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.50'));
  });

  it('refuses paying a registry service more than its listed price (402 price_above_registry), moving nothing; the price goes through, less only with a nonce', async () => {
    const agent = await fundedAgent(t, 'overpayer', '2.00');
    const before = await t.coffer.chain.usdcBalance(agent.walletAddress);
    const over = await pay(t, 'overpayer', agent.apiKey, { service: 'demo-quotes', amount: '0.45', currency: 'USDC' });
    expectError(over, 402, 'price_above_registry');
    expect(over.body.error).toMatch(/0\.45.*0\.01/);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(before);
    expect(t.coffer.db.prepare("SELECT COUNT(*) FROM payments WHERE agent_id = 'overpayer'").pluck().get()).toBe(0);
    // The owner sees it among the refusals.
    const dashboard = await t.api('GET', t.withOwner('/v1/dashboard'));
    expect(dashboard.body.recentRefusals[0]).toMatchObject({
      agent: 'overpayer',
      service: 'demo-quotes',
      venue: 'Coffer demo quotes',
      code: 'price_above_registry',
    });
    // One micro-USDC over a per-resolution price too; the owner's key is held to the same rule.
    const image = await pay(t, 'overpayer', undefined, { service: 'model:sdxl', amount: '0.032001' });
    expect(image.body.code).toBe('price_above_registry');
    expect((await pay(t, 'overpayer', agent.apiKey, { service: 'demo-quotes', amount: '0.01' })).status).toBe(200);
    // Less than the listed price: only with the nonce of a seller's 402 (its terms name the price);
    // without one the payment could buy no call, so it is refused before anything moves.
    expect((await pay(t, 'overpayer', agent.apiKey, { service: 'demo-quotes', amount: '0.005', nonce: 'a-402-nonce' })).status).toBe(200);
    const paidSoFar = await t.coffer.chain.usdcBalance(agent.walletAddress);
    const under = await pay(t, 'overpayer', agent.apiKey, { service: 'demo-quotes', amount: '0.005' });
    expectError(under, 400, 'price_below_registry');
    expect(under.body.error).toMatch(/0\.005.*0\.01/);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(paidSoFar);
    // At its price a model is still not paid through /pay: /generate buys the image with that payment.
    expectError(
      await pay(t, 'overpayer', undefined, { service: 'model:sdxl', amount: '0.032' }),
      400,
      'invalid_recipient',
      /by POST \/v1\/agents\/:agentId\/generate/,
    );
  });

  it('only USDC: an Ethereum currency is told that USDC on Base is paid to an EVM address', async () => {
    const agent = await fundedAgent(t, 'currency', '1.00');
    const eth = await pay(t, 'currency', agent.apiKey, { ...weather(), currency: 'ETH-USDC' });
    expectError(eth, 400, 'unsupported_currency');
    expect(eth.body.error).toMatch(/"USDC" on either rail.*EVM address.*Base/i);
    expect((await pay(t, 'currency', agent.apiKey, { ...weather(), currency: 'EUR' })).body.code).toBe('unsupported_currency');
  });

  it('pays a service outside the registry only with a recipient, and refuses a recipient that contradicts the registry', async () => {
    const agent = await fundedAgent(t, 'custom', '1.00');
    const unknown = await pay(t, 'custom', agent.apiKey, { service: 'my-own-api', amount: '0.01' });
    expectError(unknown, 404, 'service_not_found');
    const recipient = UNLISTED_SELLER;
    const custom = await pay(t, 'custom', agent.apiKey, { ...weather(), service: 'my-own-api', recipient });
    expect(custom.status).toBe(200);
    expect(decodeReceipt(custom.body.xPaymentHeader)?.recipient).toBe(recipient);
    const mismatch = await pay(t, 'custom', agent.apiKey, { service: 'demo-weather', amount: '0.01', recipient });
    expectError(mismatch, 400, 'recipient_mismatch');
    const badRecipient = await pay(t, 'custom', agent.apiKey, { ...weather(), service: 'x', recipient: 'not-an-address' });
    expect(badRecipient.body.code).toBe('invalid_recipient');
  });

  it('rejects bad amounts with 400 invalid_amount', async () => {
    const agent = await fundedAgent(t, 'amounts', '1.00');
    for (const amount of ['0', '-1', '0.0000001', '1e3', 'abc', '', '1000000000.000001', 5]) {
      const response = await pay(t, 'amounts', agent.apiKey, { ...weather(), amount });
      expect(response.status, `amount ${JSON.stringify(amount)}`).toBe(400);
      expect(response.body.code).toBe('invalid_amount');
    }
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1'));
  });

  it('the same Idempotency-Key twice moves money once and returns the same paymentId', async () => {
    const agent = await fundedAgent(t, 'idem', '1.00');
    const headers = { 'idempotency-key': 'call-42' };
    const first = await pay(t, 'idem', agent.apiKey, weather('0.10'), headers);
    const second = await pay(t, 'idem', agent.apiKey, weather('0.10'), headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.paymentId).toBe(first.body.paymentId);
    expect(second.body.txSignature).toBe(first.body.txSignature);
    expect(second.body.xPaymentHeader).toBe(first.body.xPaymentHeader);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
    const history = await t.api('GET', t.withOwner('/v1/agents/idem/spend-history'), { key: agent.apiKey });
    expect(history.body.payments).toHaveLength(1);

    // Sent concurrently, still once.
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => pay(t, 'idem', agent.apiKey, weather('0.10'), { 'idempotency-key': 'burst' })),
    );
    expect(new Set(burst.map((r) => r.body.paymentId)).size).toBe(1);
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.80'));

    // The same key for a different payment is a conflict, and moves nothing.
    const reused = await pay(t, 'idem', agent.apiKey, weather('0.20'), headers);
    expectError(reused, 409, 'idempotency_key_reused');
    const badKey = await pay(t, 'idem', agent.apiKey, weather(), { 'idempotency-key': 'has space' });
    expect(badKey.body.code).toBe('invalid_idempotency_key');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.80'));
  });

  it('spend history: newest first, default limit 20, bounded 1..500', async () => {
    const agent = await fundedAgent(t, 'history', '5.00');
    for (let i = 0; i < 23; i++) {
      expect((await pay(t, 'history', agent.apiKey, { service: 'demo-weather', amount: '0.01', description: `call ${i}` })).status).toBe(
        200,
      );
    }
    const byDefault = await t.api('GET', t.withOwner('/v1/agents/history/spend-history'), { key: agent.apiKey });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.payments).toHaveLength(20);
    const first = byDefault.body.payments[0];
    expect(first).toMatchObject({ service: 'Coffer demo weather', amount: '0.01', currency: 'USDC', status: 'confirmed' });
    expect(first.description).toBe('call 22');
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['id', 'service', 'amount', 'currency', 'status', 'timestamp']));
    const all = await t.api('GET', t.withOwner('/v1/agents/history/spend-history?limit=500'), { key: agent.apiKey });
    expect(all.body.payments).toHaveLength(23);
    expect((await t.api('GET', t.withOwner('/v1/agents/history/spend-history?limit=3'))).body.payments).toHaveLength(3);
    for (const limit of ['0', '501', 'ten', '-1', '2.5']) {
      const response = await t.api('GET', t.withOwner(`/v1/agents/history/spend-history?limit=${limit}`));
      expect(response.status, `limit=${limit}`).toBe(400);
      expect(response.body.code).toBe('invalid_limit');
    }
  });

  it('the dashboard has the spec shapes', async () => {
    await fundedAgent(t, 'dash', '2.00');
    await pay(t, 'dash', t.ownerKey, { service: 'demo-weather', amount: '0.01' });
    const { status, body } = await t.api('GET', t.withOwner('/v1/dashboard'));
    expect(status).toBe(200);
    expect(body.treasury).toMatchObject({ walletAddress: t.owner, currency: 'USDC', decimals: 6 });
    expect(body.treasury.amount).toMatch(/^\d+$/);
    expect(BigInt(body.treasury.amount)).toBe(await t.coffer.chain.usdcBalance(t.owner));
    const entry = body.agents.find((a: { agentId: string }) => a.agentId === 'dash');
    expect(entry).toMatchObject({ walletAddress: expect.any(String), lifetimeSpent: '0.01', lifetimePayments: 1 });
    expect(entry.policy.dailyBudget).toBe('100.00');
    expect(new Date(entry.createdAt).toISOString()).toBe(entry.createdAt);
    const activity = body.recentActivity.find((a: { agent: string }) => a.agent === 'dash');
    expect(activity).toMatchObject({ venue: 'Coffer demo weather', amount: '0.01', rail: 'sol', status: 'approved' });
    expect(activity.time).toMatch(/^\d{2}:\d{2}$/);
    expect(activity.id).toMatch(/^pay_/);
  });

  it('the dashboard lists what the policy refused, newest first, and keeps only the latest 500', async () => {
    const agent = await fundedAgent(t, 'refused', '1.00');
    expect((await pay(t, 'refused', agent.apiKey, weather('20'))).body.code).toBe('max_per_payment_exceeded');
    await t.api('POST', t.withOwner('/v1/agents/refused/kill'));
    expect((await pay(t, 'refused', agent.apiKey, weather('0.5'))).body.code).toBe('agent_suspended');
    const { recentRefusals } = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
    const mine = recentRefusals.filter((r: { agent: string }) => r.agent === 'refused');
    expect(mine).toEqual([
      {
        agent: 'refused',
        service: 'forecast-api',
        venue: 'forecast-api',
        amount: '0.50',
        currency: 'USDC',
        rail: 'sol',
        code: 'agent_suspended',
        message: expect.stringMatching(/is stopped/),
        timestamp: expect.any(String),
      },
      {
        agent: 'refused',
        service: 'forecast-api',
        venue: 'forecast-api',
        amount: '20.00',
        currency: 'USDC',
        rail: 'sol',
        code: 'max_per_payment_exceeded',
        message: expect.stringMatching(/max per payment/),
        timestamp: expect.any(String),
      },
    ]);
    // The same refusal repeated at once (an agent retrying in a loop) is written once.
    for (let i = 0; i < 5; i++) expect((await pay(t, 'refused', agent.apiKey, weather('0.5'))).body.code).toBe('agent_suspended');
    const refusalsOf = async () =>
      (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals.filter((r: { agent: string }) => r.agent === 'refused');
    expect(await refusalsOf()).toHaveLength(2);
    // A payment that goes through in between: the same refusal after it is new, and written.
    await t.api('POST', t.withOwner('/v1/agents/refused/resume'));
    expect((await pay(t, 'refused', agent.apiKey, weather('0.5'))).status).toBe(200);
    await t.api('POST', t.withOwner('/v1/agents/refused/kill'));
    expect((await pay(t, 'refused', agent.apiKey, weather('0.5'))).body.code).toBe('agent_suspended');
    expect(await refusalsOf()).toHaveLength(3);
    // Input errors are not refusals; a flood of refusals stays bounded.
    expect((await pay(t, 'refused', agent.apiKey, { ...weather('1'), currency: 'EUR' })).status).toBe(400);
    for (let i = 0; i < 510; i++)
      t.coffer.engine.ctx.store.recordRefusal(
        { owner: t.owner, agentId: 'refused', service: 'x', amount: '1.00', rail: 'sol', code: 'cooldown_active', message: 'm', at: i },
        { perOwner: 500, perAgent: 500 },
      );
    expect(t.coffer.db.prepare('SELECT COUNT(*) FROM refusals WHERE owner = ?').pluck().get(t.owner)).toBe(500);
    expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals).toHaveLength(20);
  });

  it("an agent looping over several refused payments is written once for each, and a stopped one once whatever it asks: other agents' refusals stay", async () => {
    const loud = await fundedAgent(t, 'loud', '1.00');
    const quiet = await fundedAgent(t, 'quiet', '1.00');
    expect((await pay(t, 'quiet', quiet.apiKey, weather('20'))).body.code).toBe('max_per_payment_exceeded');
    // Two refused payments in turn (helper 166's loop): each is the same refusal again.
    for (let i = 0; i < 6; i++) {
      expect((await pay(t, 'loud', loud.apiKey, weather('20'))).body.code).toBe('max_per_payment_exceeded');
      expect((await pay(t, 'loud', loud.apiKey, weather('30'))).body.code).toBe('max_per_payment_exceeded');
    }
    const refusals = async () =>
      (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals as { agent: string; code: string }[];
    expect((await refusals()).filter((r) => r.agent === 'loud')).toHaveLength(2);
    // Stopped, whatever it asks is one refusal: it is stopped.
    await t.api('POST', t.withOwner('/v1/agents/loud/kill'));
    for (let i = 0; i < 25; i++) expect((await pay(t, 'loud', loud.apiKey, weather(`0.${10 + i}`))).body.code).toBe('agent_suspended');
    const after = await refusals();
    expect(after.filter((r) => r.agent === 'loud' && r.code === 'agent_suspended')).toHaveLength(1);
    expect(after.filter((r) => r.agent === 'quiet')).toHaveLength(1);
  });

  it('the sim faucet takes an Idempotency-Key: the same key mints once and answers the first deposit; another amount under it is 409', async () => {
    const treasuryBefore = await t.coffer.chain.usdcBalance(t.owner);
    const path = t.withOwner('/v1/treasury/faucet');
    const headers = { 'idempotency-key': 'mint-7' };
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.api('POST', path, { body: { amount: '7' }, headers })));
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(new Set(answers.map((a) => a.body.deposit.id)).size).toBe(1);
    expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasuryBefore + micro('7'));
    const again = await t.api('POST', path, { body: { amount: '7.00' }, headers });
    expect(again.body.deposit).toEqual(answers[0]!.body.deposit);
    const reused = await t.api('POST', path, { body: { amount: '8' }, headers });
    expectError(reused, 409, 'idempotency_key_reused');
    expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasuryBefore + micro('7'));
    const deposits = (await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits;
    expect(deposits.filter((d: { id: string }) => d.id === answers[0]!.body.deposit.id)).toHaveLength(1);
  });

  it('deposits and the sim faucet', async () => {
    const before = await t.api('GET', t.withOwner('/v1/treasury/deposits'));
    expect(before.status).toBe(200);
    // The first start funded the treasury with 1,000 test USDC, shown as a deposit.
    expect(before.body.deposits.at(-1)).toMatchObject({ amount: '1000.00', currency: 'USDC' });
    const treasuryBefore = await t.coffer.chain.usdcBalance(t.owner);
    const faucet = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '25.5' } });
    expect(faucet.status).toBe(200);
    expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasuryBefore + micro('25.5'));
    const after = await t.api('GET', t.withOwner('/v1/treasury/deposits'));
    expect(after.body.deposits[0]).toMatchObject({ amount: '25.50', currency: 'USDC', txSignature: faucet.body.deposit.txSignature });
    expect(after.body.deposits).toHaveLength(before.body.deposits.length + 1);
    expect((await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '0' } })).body.code).toBe('invalid_amount');
  });
});

describe('payments: edges found in review', () => {
  const t = useCoffer();

  it('paying the same nonce twice is refused with 409, not a 500, and leaves nothing pending', async () => {
    const agent = await fundedAgent(t, 'twice', '2.00');
    const body = { service: 'demo-weather', amount: '0.01', nonce: 'n-twice' };
    expect((await payUsdc(t, 'twice', agent.apiKey, body)).status).toBe(200);
    const again = await payUsdc(t, 'twice', agent.apiKey, body);
    expectError(again, 409, 'nonce_already_paid');
    expect(t.coffer.db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'pending'").pluck().get()).toBe(0);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.99'));
  });

  it('a nonce whose first payment failed can be paid again', async () => {
    const agent = await fundedAgent(t, 'retry-nonce', '0.005');
    const body = { service: 'demo-weather', amount: '0.01', nonce: 'n-retry' };
    expect((await payUsdc(t, 'retry-nonce', agent.apiKey, body)).body.code).toBe('insufficient_funds');
    await t.api('POST', t.withOwner('/v1/agents/retry-nonce/allocate'), { body: { amount: '1' } });
    expect((await payUsdc(t, 'retry-nonce', agent.apiKey, body)).status).toBe(200);
  });

  it('an unlisted recipient with no USDC account is refused (the treasury pays no rent for it)', async () => {
    const agent = await fundedAgent(t, 'dust', '1.00');
    const fresh = await t.coffer.engine.ctx.vault.createWallet({ kind: 'random' });
    const lamportsBefore = t.coffer.db.prepare('SELECT lamports FROM sim_accounts WHERE address = ?').pluck().get(t.owner);
    const response = await payUsdc(t, 'dust', agent.apiKey, { service: 'my-api', recipient: fresh, amount: '0.000001' });
    expectError(response, 409, 'recipient_not_ready');
    expect(t.coffer.db.prepare('SELECT lamports FROM sim_accounts WHERE address = ?').pluck().get(t.owner)).toBe(lamportsBefore);
  });

  it('rejects a recipient that looks like base58 but is not 32 bytes', async () => {
    const agent = await fundedAgent(t, 'bad-address', '1.00');
    const response = await payUsdc(t, 'bad-address', agent.apiKey, { service: 'x', recipient: 'z'.repeat(44), amount: '0.01' });
    expectError(response, 400, 'invalid_recipient');
    expect(t.coffer.db.prepare("SELECT COUNT(*) FROM payments WHERE agent_id = 'bad-address'").pluck().get()).toBe(0);
  });

  it('allowedServices pins unlisted services by recipient address, not by the name the agent chose', async () => {
    const seller = UNLISTED_SELLER;
    const other = '7GrTWVNqLDmdBYR4X5WDpyqPhWUQjrun1cSFoFjNPw6Z';
    const agent = await fundedAgent(t, 'pinned', '1.00', { allowedServices: [seller] });
    const byLabel = await payUsdc(t, 'pinned', agent.apiKey, { service: 'my-api', recipient: other, amount: '0.01' });
    expectError(byLabel, 402, 'service_not_allowed');
    expect((await payUsdc(t, 'pinned', agent.apiKey, { service: 'my-api', recipient: seller, amount: '0.01' })).status).toBe(200);
    expect((await payUsdc(t, 'pinned', agent.apiKey, { service: 'anything', recipient: seller, amount: '0.01' })).status).toBe(200);
  });

  it('the same Idempotency-Key returns the first result even after a kill, and currency spelled out or not is the same request', async () => {
    const agent = await fundedAgent(t, 'idem-kill', '1.00');
    const headers = { 'idempotency-key': 'k-kill' };
    const first = await pay(t, 'idem-kill', agent.apiKey, { service: 'demo-weather', amount: '0.01' }, headers);
    expect(first.status).toBe(200);
    await t.api('POST', t.withOwner('/v1/agents/idem-kill/kill'));
    const replayed = await payUsdc(t, 'idem-kill', agent.apiKey, { service: 'demo-weather', amount: '0.01' }, headers);
    expect(replayed.status).toBe(200);
    expect(replayed.body.paymentId).toBe(first.body.paymentId);
    // A new payment is still blocked.
    expect((await payUsdc(t, 'idem-kill', agent.apiKey, { service: 'demo-weather', amount: '0.01' })).body.code).toBe('agent_suspended');
  });

  it('a payment a crash left signed and never sent is paid when its Idempotency-Key comes again, once; a different request under that key is 409', async () => {
    const agent = await fundedAgent(t, 'lost', '1.00');
    const { store, chain } = t.coffer.engine.ctx;
    const { hashRequest } = await import('../../server/core/ids.js');
    const body = { service: 'demo-weather', amount: '0.01' };
    // As if the process died after the payment's row was written and before its transaction was sent.
    const unsent = async (id: string, key: string) =>
      store.insertTransfer(
        paymentRow({
          id,
          owner: t.owner,
          agentId: 'lost',
          serviceId: 'demo-weather',
          serviceName: 'Coffer demo weather',
          recipient: SELLER,
          amount: micro('0.01'),
          ...(await chain.prepareTransfer({
            from: agent.walletAddress,
            to: SELLER,
            amount: micro('0.01'),
            memo: id,
            reference: id,
            feePayer: t.owner,
            createRecipientAccount: true,
          })),
          idempotencyKey: key,
          requestHash: hashRequest(['demo-weather', micro('0.01').toString(), '', null, null, null]),
          createdAt: Date.now(),
        }),
      );
    await unsent('pay_lost1', 'k-lost');
    // The embedded chain never saw it: it can no longer land.
    expect((await t.coffer.engine.reconcile()).failed).toBe(1);
    expect(store.getPayment('pay_lost1')).toMatchObject({ status: 'failed', errorCode: 'dropped' });
    // Nothing was sent, so the retry is paid now (the client never got an answer)...
    const retried = await payUsdc(t, 'lost', agent.apiKey, body, { 'idempotency-key': 'k-lost' });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('confirmed');
    expect(retried.body.paymentId).not.toBe('pay_lost1');
    // ...once: the key now names that payment.
    const again = await payUsdc(t, 'lost', agent.apiKey, body, { 'idempotency-key': 'k-lost' });
    expect(again.body.paymentId).toBe(retried.body.paymentId);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.99'));
    // A different request under the key of an unsent payment is still a conflict, not a payment.
    await unsent('pay_lost2', 'k-lost2');
    await t.coffer.engine.reconcile();
    const other = await payUsdc(t, 'lost', agent.apiKey, { ...body, amount: '0.005' }, { 'idempotency-key': 'k-lost2' });
    expectError(other, 409, 'idempotency_key_reused');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.99'));
    // The spend history keeps the attempts never sent as failed, beside the payment that went through.
    const history = await t.api('GET', t.withOwner('/v1/agents/lost/spend-history'));
    expect(history.body.payments.map((p: { status: string }) => p.status).sort()).toEqual(['confirmed', 'failed', 'failed']);
  });
});
