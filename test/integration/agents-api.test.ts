import { describe, expect, it } from 'vitest';
import { deployAgent, fundedAgent, micro, type TestCoffer, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { CofferError } from '../../server/wire/errors.js';

/** Every agent endpoint over real HTTP, checked against API.md (which wins over spec/interface.md). */

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const DECIMAL = /^\d+\.\d{2,6}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** A stop's answer where no x402 payment the agents signed may still land. */
const NOTHING_LANDING = { payments: 0, amount: '0.00', until: null, agents: [] };

let counter = 0;
/** A fresh agent id per use, so tests never share agents. */
const freshId = (label: string) => `${label}-${++counter}`;

async function treasuryMicro(t: TestCoffer): Promise<bigint> {
  const dashboard = await t.api('GET', t.withOwner('/v1/dashboard'));
  expect(dashboard.status).toBe(200);
  return BigInt(dashboard.body.treasury.amount as string);
}

async function listedAgent(t: TestCoffer, agentId: string) {
  const list = await t.api('GET', t.withOwner('/v1/agents'));
  expect(list.status).toBe(200);
  return (list.body.agents as Array<Record<string, unknown>>).find((agent) => agent.agentId === agentId);
}

describe('agents API', () => {
  const t = useCoffer();

  describe('deploy', () => {
    it('returns agent, a one-time agent key, the policy with defaults and an mcpConfig', async () => {
      const agentId = freshId('deploy-shape');
      const before = Date.now();
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '25', maxPerPayment: '2.5' },
      });
      expect(response.status).toBe(200);
      const { agent, apiKey, policy, mcpConfig } = response.body;

      expect(agent).toMatchObject({ agentId, displayName: agentId, status: 'active' });
      expect(agent.walletAddress).toMatch(BASE58_ADDRESS);
      expect(agent.walletAddress).not.toBe(t.owner);
      expect(agent.createdAt).toMatch(ISO_UTC);
      expect(Date.parse(agent.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(agent.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

      expect(apiKey).toMatch(/^cof_agt_[1-9A-HJ-NP-Za-km-z]{32,}$/);

      expect(policy).toEqual({ dailyBudget: '25.00', maxPerPayment: '2.50', cooldownSeconds: 0, allowedServices: [] });

      expect(typeof mcpConfig.command).toBe('string');
      expect(mcpConfig.command.length).toBeGreaterThan(0);
      expect(Array.isArray(mcpConfig.args)).toBe(true);
      for (const arg of mcpConfig.args) expect(typeof arg).toBe('string');
      expect(mcpConfig.env).toEqual({
        COFFER_URL: t.url,
        COFFER_OWNER: t.owner,
        COFFER_AGENT_ID: agentId,
        COFFER_API_KEY: apiKey,
      });
    });

    it('keeps cooldownSeconds, allowedServices and displayName when they are sent', async () => {
      const agentId = freshId('deploy-full');
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: {
          agentId,
          dailyBudget: '10.00',
          maxPerPayment: '0.125',
          cooldownSeconds: 30,
          allowedServices: ['demo-weather'],
          displayName: 'Weather bot',
        },
      });
      expect(response.status).toBe(200);
      expect(response.body.agent.displayName).toBe('Weather bot');
      expect(response.body.policy).toEqual({
        dailyBudget: '10.00',
        maxPerPayment: '0.125',
        cooldownSeconds: 30,
        allowedServices: ['demo-weather'],
      });
    });

    it('gives every agent its own wallet and its own key', async () => {
      const a = await deployAgent(t, freshId('distinct'));
      const b = await deployAgent(t, freshId('distinct'));
      expect(a.walletAddress).not.toBe(b.walletAddress);
      expect(a.apiKey).not.toBe(b.apiKey);
    });

    it('answers 409 agent_exists on a second deploy of the same id and keeps the first agent', async () => {
      const agentId = freshId('dup');
      const first = await deployAgent(t, agentId, { dailyBudget: '20.00', maxPerPayment: '2.00' });
      const second = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '99.00', maxPerPayment: '9.00' },
      });
      expectError(second, 409, 'agent_exists');
      // What to do where the first deploy's answer was lost, in words that name the agent.
      expect(second.body.error).toContain(`coffer key ${agentId} hands out a new key and coffer allocate ${agentId} AMOUNT funds it`);

      const policy = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/policy`));
      expect(policy.body.policy.dailyBudget).toBe('20.00');
      const balance = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`), { key: first.apiKey });
      expect(balance.status).toBe(200);
      expect(balance.body.walletAddress).toBe(first.walletAddress);
    });

    it('two deploys under one Idempotency-Key at once: one agent, its funds moved once, the last key answered the one that works', async () => {
      const agentId = freshId('twice');
      const before = await treasuryMicro(t);
      const body = { agentId, dailyBudget: '5.00', maxPerPayment: '1.00', fund: '2.5' };
      const deploy = () => t.api('POST', t.withOwner('/v1/agents/deploy'), { body, headers: { 'idempotency-key': `both-${agentId}` } });
      const answers = await Promise.all([deploy(), deploy()]);
      expect(answers.map((a) => [a.status, a.body.funding?.status])).toEqual([
        [200, 'funded'],
        [200, 'funded'],
      ]);
      expect(answers[0]!.body.funding.allocation.allocationId).toBe(answers[1]!.body.funding.allocation.allocationId);
      expect(before - (await treasuryMicro(t))).toBe(micro('2.5'));
      const working = await Promise.all(
        answers.map(async (a) => (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`), { key: a.body.apiKey })).status),
      );
      expect(working.filter((status) => status === 200)).toHaveLength(1);
      expect(working.filter((status) => status === 401)).toHaveLength(1);
      // Under another key, or none, the id is taken.
      expectError(
        await t.api('POST', t.withOwner('/v1/agents/deploy'), { body, headers: { 'idempotency-key': 'another' } }),
        409,
        'agent_exists',
      );
    });

    it('a retry while its allocation still waits for the chain answers that allocation, never a failure to fund again', async () => {
      const agentId = freshId('waiting');
      const body = { agentId, dailyBudget: '5.00', maxPerPayment: '1.00', fund: '0.75', fundRail: 'base' };
      const deploy = () => t.api('POST', t.withOwner('/v1/agents/deploy'), { body, headers: { 'idempotency-key': `wait-${agentId}` } });
      const base = t.coffer.engine.ctx.base!;
      const submit = base.submitTransfer;
      // Signed and reserved, then its node stops answering: the allocation waits for the chain.
      base.submitTransfer = () => Promise.reject(new CofferError('chain_unavailable', 'the node did not answer'));
      try {
        const first = await deploy();
        expect(first.status).toBe(200);
        const waiting = (await t.api('GET', t.withOwner(`/v1/treasury/allocations?agentId=${agentId}`))).body.allocations;
        expect(waiting.map((m: { status: string; amount: string }) => [m.status, m.amount])).toEqual([['pending', '0.75']]);
        const retried = await deploy();
        expect(retried.status).toBe(200);
        expect(retried.body.funding).toMatchObject({
          status: 'funded',
          allocation: { allocationId: waiting[0].id, amount: '0.75', rail: 'base' },
        });
      } finally {
        base.submitTransfer = submit;
      }
    });

    it("answers 409 agent_exists for an archived agent's id, saying it is archived", async () => {
      const agentId = freshId('gone');
      await deployAgent(t, agentId);
      expect((await t.api('POST', t.withOwner(`/v1/agents/${agentId}/archive`))).status).toBe(200);
      const again = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '1.00', maxPerPayment: '0.10' },
      });
      expectError(again, 409, 'agent_exists');
      expect(again.body.error).toBe(`an archived agent "${agentId}" keeps that id (its history stays under it): choose another id`);
    });

    it.each([
      ['uppercase', 'UpperCase'],
      ['spaces', 'has space'],
      ['65 characters', 'a'.repeat(65)],
      ['empty', ''],
      ['a leading dash', '-dash'],
      ['a leading underscore', '_under'],
      ['a dot', 'a.b'],
      ['a slash', 'a/b'],
      ['non-ASCII', 'agént'],
    ])('answers 400 invalid_agent_id for an id with %s', async (_label, agentId) => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '10.00', maxPerPayment: '1.00' },
      });
      expectError(response, 400, 'invalid_agent_id');
    });

    it('answers 400 invalid_agent_id when agentId is not a string', async () => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: 42, dailyBudget: '10.00', maxPerPayment: '1.00' },
      });
      expectError(response, 400, 'invalid_agent_id');
    });

    it('accepts ids at the edges of the pattern (64 characters, digits first, _ and -)', async () => {
      for (const agentId of [`e${'x'.repeat(63)}`, `9-edge_${++counter}`]) {
        const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
          body: { agentId, dailyBudget: '10.00', maxPerPayment: '1.00' },
        });
        expect(response.status).toBe(200);
        expect(response.body.agent.agentId).toBe(agentId);
      }
    });

    it.each([
      ['zero', '0'],
      ['zero with decimals', '0.00'],
      ['negative', '-5'],
      ['words', 'ten'],
      ['7 fractional digits', '1.1234567'],
      ['over 1,000,000,000', '1000000000.01'],
      ['exponent notation', '1e3'],
      ['empty string', ''],
      ['a number instead of a string', 5],
      ['null', null],
      ['a comma decimal', '1,5'],
    ])('answers 400 invalid_amount for a dailyBudget that is %s', async (_label, dailyBudget) => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: freshId('bad-budget'), dailyBudget, maxPerPayment: '1.00' },
      });
      expectError(response, 400, 'invalid_amount');
    });

    it.each([
      ['zero', '0'],
      ['negative', '-1.00'],
      ['7 fractional digits', '0.0000001'],
      ['a number instead of a string', 1],
    ])('answers 400 invalid_amount for a maxPerPayment that is %s', async (_label, maxPerPayment) => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: freshId('bad-max'), dailyBudget: '10.00', maxPerPayment },
      });
      expectError(response, 400, 'invalid_amount');
    });

    it('does not create an agent when the deploy is rejected', async () => {
      const agentId = freshId('rejected');
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '-1', maxPerPayment: '1.00' },
      });
      expect(response.status).toBe(400);
      expect(await listedAgent(t, agentId)).toBeUndefined();
      expectError(await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`)), 404, 'agent_not_found');
    });

    it('accepts the largest amount, 1,000,000,000 with 6 decimals at most', async () => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: freshId('max-amount'), dailyBudget: '1000000000', maxPerPayment: '0.000001' },
      });
      expect(response.status).toBe(200);
      expect(response.body.policy.dailyBudget).toBe('1000000000.00');
      expect(response.body.policy.maxPerPayment).toBe('0.000001');
    });

    it('accepts maxPerPayment over dailyBudget: a payment is bounded by both', async () => {
      const agentId = freshId('max-over-budget');
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '5.00', maxPerPayment: '5.01' },
      });
      expect(response.status).toBe(200);
      expect(response.body.policy).toMatchObject({ dailyBudget: '5.00', maxPerPayment: '5.01' });
    });

    it('accepts maxPerPayment equal to dailyBudget', async () => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: freshId('equal'), dailyBudget: '5', maxPerPayment: '5.00' },
      });
      expect(response.status).toBe(200);
      expect(response.body.policy).toMatchObject({ dailyBudget: '5.00', maxPerPayment: '5.00' });
    });

    it.each([
      ['a negative cooldown', { cooldownSeconds: -1 }],
      ['a fractional cooldown', { cooldownSeconds: 1.5 }],
      ['a string cooldown', { cooldownSeconds: '10' }],
      ['allowedServices that is not an array', { allowedServices: 'demo-weather' }],
    ])('answers 400 for %s', async (_label, extra) => {
      const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: freshId('bad-policy'), dailyBudget: '10.00', maxPerPayment: '1.00', ...extra },
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
    });
  });

  describe('list', () => {
    it('lists the owner’s agents with status, balance, spent24h and policy', async () => {
      const agentId = freshId('listed');
      await fundedAgent(t, agentId, '3', { dailyBudget: '40.00', maxPerPayment: '4.00', cooldownSeconds: 0 });
      const entry = await listedAgent(t, agentId);
      expect(entry).toBeDefined();
      expect(entry).toMatchObject({
        agentId,
        displayName: agentId,
        status: 'active',
        balance: '3.00',
        spent24h: '0.00',
        policy: { dailyBudget: '40.00', maxPerPayment: '4.00', cooldownSeconds: 0, allowedServices: [] },
      });
      expect(entry?.walletAddress).toMatch(BASE58_ADDRESS);
      expect(entry?.createdAt).toMatch(ISO_UTC);
    });

    it('counts a payment in spent24h and in the balance', async () => {
      const agentId = freshId('spender');
      const agent = await fundedAgent(t, agentId, '2');
      const paid = await pay(t, agentId, agent.apiKey, { ...UNLISTED_API, amount: '0.25', currency: 'USDC', description: 'forecast' });
      expect(paid.status).toBe(200);
      const entry = await listedAgent(t, agentId);
      expect(entry).toMatchObject({ spent24h: '0.25', balance: '1.75', status: 'active' });
    });

    it('answers {agents: [...]} with every deployed agent', async () => {
      const ids = [freshId('many'), freshId('many')];
      for (const id of ids) await deployAgent(t, id);
      const list = await t.api('GET', t.withOwner('/v1/agents'));
      expect(list.status).toBe(200);
      expect(Array.isArray(list.body.agents)).toBe(true);
      const listed = (list.body.agents as Array<{ agentId: string }>).map((agent) => agent.agentId);
      expect(listed).toEqual(expect.arrayContaining(ids));
      expect(new Set(listed).size).toBe(listed.length);
    });
  });

  describe('balance', () => {
    it('answers the balance record of a new agent: 0.00 USDC', async () => {
      const agent = await deployAgent(t, freshId('balance'));
      const response = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        agentId: agent.agentId,
        walletAddress: agent.walletAddress,
        balance: '0.00',
        currency: 'USDC',
      });
    });

    it('is readable with the agent’s own key', async () => {
      const agent = await fundedAgent(t, freshId('own-balance'), '1.5');
      const response = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`), { key: agent.apiKey });
      expect(response.status).toBe(200);
      expect(response.body.balance).toBe('1.50');
      expect(response.body.balance).toMatch(DECIMAL);
    });
  });

  describe('policy', () => {
    it('reads {agentId, policy, spent24h}', async () => {
      const agent = await deployAgent(t, freshId('policy-read'), { dailyBudget: '12.00', maxPerPayment: '3.00' });
      const response = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/policy`));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        agentId: agent.agentId,
        policy: { dailyBudget: '12.00', maxPerPayment: '3.00', cooldownSeconds: 0, allowedServices: [] },
        spent24h: '0.00',
        held24h: '0.00',
        pending24h: '0.00',
        timeZone: new Intl.DateTimeFormat().resolvedOptions().timeZone,
      });
      // What counts against the daily budget: the payments of the last 24 h.
      await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), { body: { amount: '1' } });
      await pay(t, agent.agentId, agent.apiKey, { service: 'demo-weather', amount: '0.01' });
      expect((await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/policy`))).body.spent24h).toBe('0.01');
    });

    it('changes only the sent fields and answers the whole policy', async () => {
      const agent = await deployAgent(t, freshId('policy-update'), { dailyBudget: '50.00', maxPerPayment: '5.00' });
      const path = t.withOwner(`/v1/agents/${agent.agentId}/policy`);

      const cooldown = await t.api('POST', path, { body: { cooldownSeconds: 30 } });
      expect(cooldown.status).toBe(200);
      expect(cooldown.body).toEqual({
        agentId: agent.agentId,
        policy: { dailyBudget: '50.00', maxPerPayment: '5.00', cooldownSeconds: 30, allowedServices: [] },
        spent24h: '0.00',
        held24h: '0.00',
        pending24h: '0.00',
        timeZone: new Intl.DateTimeFormat().resolvedOptions().timeZone,
      });

      const services = await t.api('POST', path, { body: { allowedServices: ['demo-weather', 'web-search'] } });
      expect(services.status).toBe(200);
      expect(services.body.policy).toEqual({
        dailyBudget: '50.00',
        maxPerPayment: '5.00',
        cooldownSeconds: 30,
        allowedServices: ['demo-weather', 'web-search'],
      });

      const budget = await t.api('POST', path, { body: { dailyBudget: '75', maxPerPayment: '0.125' } });
      expect(budget.status).toBe(200);
      expect(budget.body.policy).toEqual({
        dailyBudget: '75.00',
        maxPerPayment: '0.125',
        cooldownSeconds: 30,
        allowedServices: ['demo-weather', 'web-search'],
      });

      const read = await t.api('GET', path);
      expect(read.body).toEqual(budget.body);
    });

    it('treats an empty update as no change', async () => {
      const agent = await deployAgent(t, freshId('policy-empty'), { dailyBudget: '9.00', maxPerPayment: '1.00' });
      const path = t.withOwner(`/v1/agents/${agent.agentId}/policy`);
      const before = await t.api('GET', path);
      const response = await t.api('POST', path, { body: {} });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(before.body);
    });

    it('can widen allowedServices back to [] (every service) with the owner key', async () => {
      const agent = await deployAgent(t, freshId('policy-widen'), { allowedServices: ['demo-weather'] });
      const path = t.withOwner(`/v1/agents/${agent.agentId}/policy`);
      const response = await t.api('POST', path, { body: { allowedServices: [] } });
      expect(response.status).toBe(200);
      expect(response.body.policy.allowedServices).toEqual([]);
    });

    it('never refuses a tightening: the budget may go below maxPerPayment, by the owner or the agent itself, and both still bound a payment', async () => {
      const agent = await fundedAgent(t, freshId('policy-brake'), '5.00', { dailyBudget: '10.00', maxPerPayment: '2.00' });
      const path = t.withOwner(`/v1/agents/${agent.agentId}/policy`);
      // In an incident the agent (or the owner) cuts the budget to almost nothing: that must go through.
      const cut = await t.api('POST', path, { key: agent.apiKey, body: { dailyBudget: '0.50' } });
      expect(cut.status).toBe(200);
      expect(cut.body.policy).toMatchObject({ dailyBudget: '0.50', maxPerPayment: '2.00' });
      const payAmount = (amount: string) => pay(t, agent.agentId, agent.apiKey, { ...UNLISTED_API, amount, currency: 'USDC' });
      expectError(await payAmount('0.60'), 402, 'daily_budget_exceeded');
      expect((await payAmount('0.50')).status).toBe(200);
      const owner = await t.api('POST', path, { body: { dailyBudget: '0.000001', maxPerPayment: '3.00' } });
      expect(owner.status).toBe(200);
      expect(owner.body.policy).toMatchObject({ dailyBudget: '0.000001', maxPerPayment: '3.00' });
      const loosen = await t.api('POST', path, { body: { dailyBudget: '20.00' } });
      expect(loosen.body.policy).toMatchObject({ dailyBudget: '20.00', maxPerPayment: '3.00' });
      expectError(await payAmount('3.01'), 402, 'max_per_payment_exceeded');
    });

    it.each([
      ['a NUL', 'demo-weather\u0000'],
      ['a bidi override', 'demo-\u202Erehtaew'],
      ['a lone surrogate', '\uDC00'],
    ])('answers 400 invalid_policy for allowedServices with %s, at deploy and in an update, changing nothing', async (_label, entry) => {
      const agentId = freshId('policy-lying');
      expectError(
        await t.api('POST', t.withOwner('/v1/agents/deploy'), {
          body: { agentId, dailyBudget: '5.00', maxPerPayment: '1.00', allowedServices: [entry] },
        }),
        400,
        'invalid_policy',
      );
      expect(await listedAgent(t, agentId)).toBeUndefined();
      await deployAgent(t, agentId, { allowedServices: ['demo-weather'] });
      const path = t.withOwner(`/v1/agents/${agentId}/policy`);
      expectError(await t.api('POST', path, { body: { allowedServices: ['demo-weather', entry] } }), 400, 'invalid_policy');
      expect((await t.api('GET', path)).body.policy.allowedServices).toEqual(['demo-weather']);
    });

    it('refuses an allowedServices entry that matches nothing (not a registry id, not an address), saying how to list them', async () => {
      const agentId = freshId('policy-unknown-service');
      const typo = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId, dailyBudget: '5.00', maxPerPayment: '1.00', allowedServices: ['demo-weather', 'demo-wether'] },
      });
      expectError(typo, 400, 'invalid_policy');
      expect(typo.body.error).toContain('"demo-wether"');
      expect(typo.body.error).toContain('/v1/services/search');
      expect(await listedAgent(t, agentId)).toBeUndefined();

      const seller = 'CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx';
      await deployAgent(t, agentId, { allowedServices: ['demo-weather', seller] });
      const path = t.withOwner(`/v1/agents/${agentId}/policy`);
      expectError(await t.api('POST', path, { body: { allowedServices: ['my-api'] } }), 400, 'invalid_policy');
      expect((await t.api('GET', path)).body.policy.allowedServices).toEqual(['demo-weather', seller]);
      // Registry ids (services and models) and any Solana address are accepted.
      const fine = await t.api('POST', path, {
        body: { allowedServices: ['web-search', 'image-generate', 'model:sdxl', '7GrTWVNqLDmdBYR4X5WDpyqPhWUQjrun1cSFoFjNPw6Z'] },
      });
      expect(fine.status).toBe(200);
    });

    it('answers 400 invalid_amount for a bad amount in an update, changing nothing', async () => {
      const agent = await deployAgent(t, freshId('policy-bad-amount'), { dailyBudget: '10.00', maxPerPayment: '2.00' });
      const path = t.withOwner(`/v1/agents/${agent.agentId}/policy`);
      expectError(await t.api('POST', path, { body: { dailyBudget: '0' } }), 400, 'invalid_amount');
      expectError(await t.api('POST', path, { body: { maxPerPayment: 'lots' } }), 400, 'invalid_amount');
      const read = await t.api('GET', path);
      expect(read.body.policy).toMatchObject({ dailyBudget: '10.00', maxPerPayment: '2.00' });
    });
  });

  describe('allocate', () => {
    it('takes an Idempotency-Key: the same key moves money once and answers the first result; another request under it is 409', async () => {
      const agent = await deployAgent(t, freshId('allocate-idem'));
      const treasuryBefore = await treasuryMicro(t);
      const path = t.withOwner(`/v1/agents/${agent.agentId}/allocate`);
      const headers = { 'idempotency-key': 'fund-1' };
      const answers = await Promise.all(Array.from({ length: 5 }, () => t.api('POST', path, { body: { amount: '1.50' }, headers })));
      for (const answer of answers) expect(answer.status).toBe(200);
      expect(new Set(answers.map((a) => a.body.allocationId)).size).toBe(1);
      expect(new Set(answers.map((a) => a.body.txSignature)).size).toBe(1);
      const later = await t.api('POST', path, { body: { amount: '1.5' }, headers });
      expect(later.body.allocationId).toBe(answers[0]!.body.allocationId);
      expect(await treasuryMicro(t)).toBe(treasuryBefore - micro('1.50'));
      expect((await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`))).body.balance).toBe('1.50');
      expectError(await t.api('POST', path, { body: { amount: '2.00' }, headers }), 409, 'idempotency_key_reused');
      expectError(
        await t.api('POST', path, { body: { amount: '2.00' }, headers: { 'idempotency-key': 'has space' } }),
        400,
        'invalid_idempotency_key',
      );
      // Keys are per agent: the same key for another agent is another allocation.
      const other = await deployAgent(t, freshId('allocate-idem-other'));
      const theirs = await t.api('POST', t.withOwner(`/v1/agents/${other.agentId}/allocate`), { body: { amount: '1.50' }, headers });
      expect(theirs.status).toBe(200);
      expect(theirs.body.allocationId).not.toBe(answers[0]!.body.allocationId);
    });

    it('moves USDC from the treasury to the agent: {agentId, amount, currency, txSignature, balance}', async () => {
      const agent = await deployAgent(t, freshId('allocate'));
      const treasuryBefore = await treasuryMicro(t);
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), { body: { amount: '2.5' } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ agentId: agent.agentId, amount: '2.50', currency: 'USDC', balance: '2.50' });
      expect(response.body.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

      const again = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), { body: { amount: '0.125' } });
      expect(again.status).toBe(200);
      expect(again.body.balance).toBe('2.625');
      expect(again.body.txSignature).not.toBe(response.body.txSignature);

      const balance = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`));
      expect(balance.body.balance).toBe('2.625');
      expect(await treasuryMicro(t)).toBe(treasuryBefore - micro('2.625'));
    });

    it('answers 402 insufficient_treasury_funds when the treasury is short, moving nothing', async () => {
      const agent = await deployAgent(t, freshId('broke'));
      const treasuryBefore = await treasuryMicro(t);
      expect(treasuryBefore).toBeLessThanOrEqual(micro('1000.00'));
      const oneMicroMore = (treasuryBefore + 1n).toString().padStart(7, '0');
      const tooMuch = `${oneMicroMore.slice(0, -6)}.${oneMicroMore.slice(-6)}`;

      for (const amount of [tooMuch, '1000.01', '1000000']) {
        const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), { body: { amount } });
        expectError(response, 402, 'insufficient_treasury_funds');
      }
      expect(await treasuryMicro(t)).toBe(treasuryBefore);
      const balance = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`));
      expect(balance.body.balance).toBe('0.00');
    });

    it.each([['0'], ['-1'], ['abc'], ['1.0000001'], ['1000000001'], [''], [7]])(
      'answers 400 invalid_amount for amount %j',
      async (amount) => {
        const agent = await deployAgent(t, freshId('alloc-bad'));
        const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), { body: { amount } });
        expectError(response, 400, 'invalid_amount');
      },
    );
  });

  describe('kill and resume', () => {
    it('kill answers {agentId, status: "suspended"} and is idempotent; resume answers "active" and is idempotent', async () => {
      const agent = await deployAgent(t, freshId('switch'));
      const kill = t.withOwner(`/v1/agents/${agent.agentId}/kill`);
      const resume = t.withOwner(`/v1/agents/${agent.agentId}/resume`);

      // Each answer says what the agent was before it: the second changed nothing.
      for (const was of ['active', 'suspended']) {
        const response = await t.api('POST', kill);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          agentId: agent.agentId,
          status: 'suspended',
          was,
          withdrawn: { requests: 0, heldPayments: 0 },
          stillLanding: NOTHING_LANDING,
        });
      }
      expect((await listedAgent(t, agent.agentId))?.status).toBe('suspended');

      for (const was of ['suspended', 'active']) {
        const response = await t.api('POST', resume);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ agentId: agent.agentId, status: 'active', was });
      }
      expect((await listedAgent(t, agent.agentId))?.status).toBe('active');
    });

    it('resume on an active agent answers active', async () => {
      const agent = await deployAgent(t, freshId('already-active'));
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/resume`));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ agentId: agent.agentId, status: 'active', was: 'active' });
    });

    it('kill blocks payments (403 agent_suspended) and keeps wallet and balance; resume allows them again', async () => {
      const agent = await fundedAgent(t, freshId('suspended-pay'), '1');
      const payOnce = () =>
        pay(t, agent.agentId, agent.apiKey, { service: 'demo-weather', amount: '0.01', currency: 'USDC', description: 'x' });
      await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/kill`));
      expectError(await payOnce(), 403, 'agent_suspended');
      const balance = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`));
      expect(balance.body).toMatchObject({ walletAddress: agent.walletAddress, balance: '1.00' });

      await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/resume`));
      const paid = await payOnce();
      expect(paid.status).toBe(200);
      expect(paid.body.status).toBe('confirmed');
    });
  });

  describe('a new API key', () => {
    it('replaces every key of the agent: the old one stops at once, the new one works, with its MCP config', async () => {
      const agent = await deployAgent(t, freshId('rekey'));
      const path = (p: string) => t.withOwner(`/v1/agents/${agent.agentId}/${p}`);
      expect((await t.api('GET', path('balance'), { key: agent.apiKey })).status).toBe(200);

      const replaced = await t.api('POST', path('key'));
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ agentId: agent.agentId, apiKey: expect.stringMatching(/^cof_agt_/) });
      expect(replaced.body.mcpConfig.env).toMatchObject({ COFFER_AGENT_ID: agent.agentId, COFFER_API_KEY: replaced.body.apiKey });
      expect(replaced.body.apiKey).not.toBe(agent.apiKey);

      expectError(await t.api('GET', path('balance'), { key: agent.apiKey }), 401, 'unauthorized');
      expect((await t.api('GET', path('balance'), { key: replaced.body.apiKey })).status).toBe(200);
      // Only the new key's hash is stored, never the key.
      const hashes = t.coffer.db.prepare('SELECT hash FROM api_keys WHERE agent_id = ?').pluck().all(agent.agentId) as string[];
      expect(hashes).toHaveLength(1);
      expect(hashes[0]).not.toContain(replaced.body.apiKey);
    });

    it("is the owner's: an agent key cannot replace keys, an unknown agent is 404, and nothing changes", async () => {
      const agent = await deployAgent(t, freshId('rekey-self'));
      expectError(await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/key`), { key: agent.apiKey }), 403, 'owner_only');
      expect((await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`), { key: agent.apiKey })).status).toBe(200);
      expectError(await t.api('POST', t.withOwner('/v1/agents/nobody-here/key')), 404, 'agent_not_found');
    });
  });

  describe('rename', () => {
    it('answers {agentId, displayName} and changes only the label', async () => {
      const agent = await deployAgent(t, freshId('rename'));
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/rename`), {
        body: { displayName: 'Research assistant' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ agentId: agent.agentId, displayName: 'Research assistant' });

      const entry = await listedAgent(t, agent.agentId);
      expect(entry).toMatchObject({ agentId: agent.agentId, displayName: 'Research assistant', walletAddress: agent.walletAddress });
      const balance = await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`), { key: agent.apiKey });
      expect(balance.status).toBe(200);
      expect(balance.body.agentId).toBe(agent.agentId);
      expectError(await t.api('GET', t.withOwner('/v1/agents/research-assistant/balance')), 404, 'agent_not_found');
    });

    it('accepts names the agentId pattern forbids (spaces, capitals, unicode)', async () => {
      const agent = await deployAgent(t, freshId('rename-unicode'));
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/rename`), {
        body: { displayName: 'Café Bot — №1' },
      });
      expect(response.status).toBe(200);
      expect((await listedAgent(t, agent.agentId))?.displayName).toBe('Café Bot — №1');
    });

    it.each([
      ['an empty name', { displayName: '' }],
      ['a blank name', { displayName: '   ' }],
      ['no name', {}],
      ['a non-string name', { displayName: 7 }],
      ['a name with a bidi override', { displayName: 'invoice\u202Efdp.exe' }],
      ['a name with a NUL', { displayName: 'trusted\u0000bot' }],
      ['a name with a lone surrogate', { displayName: 'bot \uD83D' }],
    ])('answers 400 for %s and keeps the old label', async (_label, body) => {
      const agent = await deployAgent(t, freshId('rename-bad'));
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/rename`), { body });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
      expect((await listedAgent(t, agent.agentId))?.displayName).toBe(agent.agentId);
    });
  });

  describe('unknown agent', () => {
    const missing = 'no-such-agent';
    it.each([
      ['GET', 'balance', undefined],
      ['GET', 'policy', undefined],
      ['POST', 'policy', { dailyBudget: '5.00' }],
      ['POST', 'allocate', { amount: '1.00' }],
      ['POST', 'kill', undefined],
      ['POST', 'resume', undefined],
      ['POST', 'rename', { displayName: 'Ghost' }],
      ['GET', 'spend-history', undefined],
      ['POST', 'pay', { service: 'demo-weather', amount: '0.01', currency: 'USDC', description: 'x' }],
    ])('%s /v1/agents/:agentId/%s answers 404 agent_not_found', async (method, endpoint, body) => {
      const response = await t.api(method, t.withOwner(`/v1/agents/${missing}/${endpoint}`), { body });
      expectError(response, 404, 'agent_not_found');
    });

    it.each([
      ['GET', 'balance', undefined],
      ['POST', 'policy', { dailyBudget: '5.00' }],
      ['POST', 'allocate', { amount: '1.00' }],
      ['POST', 'kill', undefined],
      ['POST', 'key', undefined],
      ['GET', 'spend-history', undefined],
      ['POST', 'pay', { service: 'demo-weather', amount: '0.01' }],
      ['POST', 'generate', { prompt: 'x', modelId: 'sdxl', resolution: '1k' }],
      ['GET', 'tasks', undefined],
      ['GET', 'tasks/tsk_x', undefined],
    ])('%s /v1/agents/<malformed id>/%s answers 400 invalid_agent_id', async (method, endpoint, body) => {
      const response = await t.api(method, t.withOwner(`/v1/agents/Not%20An%20Id/${endpoint}`), { body });
      expectError(response, 400, 'invalid_agent_id');
    });

    it('does not create the agent or move treasury funds on any of those calls', async () => {
      const before = await treasuryMicro(t);
      await t.api('POST', t.withOwner(`/v1/agents/${missing}/allocate`), { body: { amount: '1.00' } });
      await t.api('POST', t.withOwner(`/v1/agents/${missing}/policy`), { body: { dailyBudget: '5.00' } });
      expect(await treasuryMicro(t)).toBe(before);
      expect(await listedAgent(t, missing)).toBeUndefined();
    });
  });
});

describe('deploy with funds in the same step', () => {
  const t = useCoffer();

  it('moves the funds on chain with the deploy, and answers the key beside the allocation', async () => {
    const deployed = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      body: { agentId: 'funded-at-birth', dailyBudget: '5', maxPerPayment: '1', fund: '7.5' },
    });
    expect(deployed.status).toBe(200);
    expect(deployed.body.apiKey).toMatch(/^cof_agt_/);
    expect(deployed.body.funding).toMatchObject({
      status: 'funded',
      allocation: { amount: '7.50', balance: '7.50', txSignature: expect.any(String) },
    });
    expect(await t.coffer.chain.usdcBalance(deployed.body.agent.walletAddress)).toBe(micro('7.5'));
    expect((await t.api('GET', t.withOwner('/v1/agents/funded-at-birth/balance'))).body.balance).toBe('7.50');
  });

  it('asking for more than the treasury holds creates nothing', async () => {
    const before = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents.length;
    const refused = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      body: { agentId: 'too-rich', dailyBudget: '5', maxPerPayment: '1', fund: '999999' },
    });
    expectError(refused, 402, 'insufficient_treasury_funds');
    expect(refused.body.error).toMatch(/nothing was created/);
    expect((await t.api('GET', t.withOwner('/v1/agents'))).body.agents.length).toBe(before);
    expectError(
      await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: 'bad-fund', dailyBudget: '5', maxPerPayment: '1', fund: '-1' },
      }),
      400,
      'invalid_amount',
    );
  });

  it('a link completed with funds funds the new agent', async () => {
    const { token } = (await t.api('POST', '/v1/link-sessions', { key: null, body: { name: 'coffer-cli' } })).body;
    const completed = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), {
      body: { agentId: 'linked-funded', fund: '2' },
    });
    expect(completed.body).toMatchObject({
      status: 'completed',
      agentId: 'linked-funded',
      funding: { status: 'funded', allocation: { amount: '2.00' } },
    });
    expect((await t.api('GET', t.withOwner('/v1/agents/linked-funded/balance'))).body.balance).toBe('2.00');
  });
});

describe('kill-all', () => {
  const t = useCoffer();

  it('answers {suspended: []} when there is no agent', async () => {
    const response = await t.api('POST', t.withOwner('/v1/kill-all'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ suspended: [], withdrawn: { requests: 0, heldPayments: 0 }, stillLanding: NOTHING_LANDING });
  });

  it('suspends every active agent at once and names them', async () => {
    const ids = ['fleet-a', 'fleet-b', 'fleet-c'];
    for (const id of ids) await fundedAgent(t, id, '1');
    const response = await t.api('POST', t.withOwner('/v1/kill-all'));
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body.suspended)).toBe(true);
    expect([...response.body.suspended].sort()).toEqual(ids);

    const list = await t.api('GET', t.withOwner('/v1/agents'));
    for (const entry of list.body.agents as Array<{ agentId: string; status: string; balance: string }>) {
      expect(entry.status).toBe('suspended');
      expect(entry.balance).toBe('1.00');
    }

    // Only agents that existed are suspended: an agent deployed afterwards starts active.
    const later = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      body: { agentId: 'fleet-later', dailyBudget: '1', maxPerPayment: '1' },
    });
    expect(later.body.agent.status).toBe('active');
  });

  it('blocks the suspended agents’ payments, and resume brings back one agent only', async () => {
    const a = await fundedAgent(t, 'block-a', '1');
    const b = await fundedAgent(t, 'block-b', '1');
    const kill = await t.api('POST', t.withOwner('/v1/kill-all'));
    expect(kill.body.suspended).toEqual(expect.arrayContaining(['block-a', 'block-b']));

    const payAs = (agent: { agentId: string; apiKey: string }) =>
      pay(t, agent.agentId, agent.apiKey, { service: 'demo-weather', amount: '0.01', currency: 'USDC' });
    expectError(await payAs(a), 403, 'agent_suspended');
    expectError(await payAs(b), 403, 'agent_suspended');

    const resumed = await t.api('POST', t.withOwner('/v1/agents/block-a/resume'));
    expect(resumed.body).toEqual({ agentId: 'block-a', status: 'active', was: 'suspended' });
    expect((await payAs(a)).status).toBe(200);
    expectError(await payAs(b), 403, 'agent_suspended');
  });

  it('resume-all is its counterpart: every stopped agent pays again, only the owner may, and it names only those it resumed', async () => {
    const a = await fundedAgent(t, 'again-a', '1');
    await fundedAgent(t, 'again-b', '1');
    await t.api('POST', t.withOwner('/v1/kill-all'));
    expectError(await t.api('POST', t.withOwner('/v1/resume-all'), { key: a.apiKey }), 403, 'owner_only');
    const resumed = await t.api('POST', t.withOwner('/v1/resume-all'));
    expect(resumed.status).toBe(200);
    expect(resumed.body.resumed).toEqual(expect.arrayContaining(['again-a', 'again-b']));
    const list = await t.api('GET', t.withOwner('/v1/agents'));
    for (const entry of list.body.agents as Array<{ status: string }>) expect(entry.status).toBe('active');
    const paid = await pay(t, 'again-a', a.apiKey, { service: 'demo-weather', amount: '0.01' });
    expect(paid.status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/resume-all'))).body).toEqual({ resumed: [], breakerStops: [] });
  });

  it('resume-all says which of them their breaker had stopped, and why: undone with the rest (helper 190)', async () => {
    const tripped = await fundedAgent(t, 'tripped-twice', '1');
    const set = await t.api('POST', t.withOwner('/v1/agents/tripped-twice/policy'), {
      body: { maxPerPayment: '0.005', breaker: { refusals: { count: 1, minutes: 5 } } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expectError(
      await pay(t, 'tripped-twice', tripped.apiKey, { service: 'demo-weather', amount: '0.01' }),
      402,
      'max_per_payment_exceeded',
    );
    await fundedAgent(t, 'stopped-by-hand', '1');
    await t.api('POST', t.withOwner('/v1/agents/stopped-by-hand/kill'));
    const resumed = await t.api('POST', t.withOwner('/v1/resume-all'));
    expect(resumed.body.resumed).toEqual(expect.arrayContaining(['tripped-twice', 'stopped-by-hand']));
    // A person's stop has no why; the breaker's is named, as the agent's statusReason said it.
    expect(resumed.body.breakerStops).toEqual([
      { agentId: 'tripped-twice', reason: 'its breaker tripped: 1 refused payment within 5 minutes' },
    ]);
  });
});

describe('sim treasury', () => {
  const t = useCoffer();

  it('starts with 1000.00 USDC in the treasury, all of which can be allocated and no more', async () => {
    const dashboard = await t.api('GET', t.withOwner('/v1/dashboard'));
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.treasury).toMatchObject({ amount: '1000000000', currency: 'USDC', decimals: 6 });
    const agent = await deployAgent(t, 'all-in');
    const all = await t.api('POST', t.withOwner('/v1/agents/all-in/allocate'), { body: { amount: '1000.00' } });
    expect(all.status).toBe(200);
    expect(all.body.balance).toBe('1000.00');
    const more = await t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), { body: { amount: '0.01' } });
    expectError(more, 402, 'insufficient_treasury_funds');
    expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.amount).toBe('0');
  });
});
