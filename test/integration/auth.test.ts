import { beforeAll, describe, expect, it } from 'vitest';
import { deployAgent, fundedAgent, ownerState, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { hashApiKey, newApiKey } from '../../server/core/ids.js';

/** The auth rows of API.md's error table, over real HTTP. */

/** A well-formed address that is not an owner here (the demo weather API's recipient). */
const UNKNOWN_OWNER = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
/** A second owner, inserted straight into the store for the wrong_owner rows. */
const OTHER_OWNER = '7GrTWVNqLDmdBYR4X5WDpyqPhWUQjrun1cSFoFjNPw6Z';
const OTHER_AGENT_WALLET = 'CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx';

type Endpoint = { method: 'GET' | 'POST'; path: string; body?: unknown };

/** Every endpoint that takes `owner`, aimed at agent `agentId`. */
const ownerEndpoints = (agentId: string): Endpoint[] => [
  { method: 'GET', path: '/v1/dashboard' },
  { method: 'GET', path: '/v1/treasury/deposits' },
  { method: 'POST', path: '/v1/treasury/faucet', body: { amount: '1.00' } },
  { method: 'GET', path: '/v1/agents' },
  { method: 'POST', path: '/v1/kill-all' },
  { method: 'POST', path: '/v1/agents/deploy', body: { agentId: 'never-made', dailyBudget: '1', maxPerPayment: '1' } },
  { method: 'GET', path: `/v1/agents/${agentId}/balance` },
  { method: 'GET', path: `/v1/agents/${agentId}/policy` },
  { method: 'POST', path: `/v1/agents/${agentId}/policy`, body: { dailyBudget: '1.00' } },
  { method: 'POST', path: `/v1/agents/${agentId}/allocate`, body: { amount: '1.00' } },
  { method: 'POST', path: `/v1/agents/${agentId}/kill` },
  { method: 'POST', path: `/v1/agents/${agentId}/resume` },
  { method: 'POST', path: `/v1/agents/${agentId}/rename`, body: { displayName: 'Nope' } },
  { method: 'GET', path: `/v1/agents/${agentId}/spend-history` },
  { method: 'POST', path: `/v1/agents/${agentId}/pay`, body: { service: 'demo-weather', amount: '0.01', currency: 'USDC' } },
];

const label = (endpoint: Endpoint) => `${endpoint.method} ${endpoint.path.replace(/\/agents\/[^/]+\//, '/agents/:agentId/')}`;

describe('auth', () => {
  const t = useCoffer();
  let otherOwnerKey: string;
  let otherAgentKey: string;
  /** An agent of the test's owner that every rejected call aims at; it must never change. */
  let target: { agentId: string; walletAddress: string; apiKey: string };

  const snapshot = () => ownerState(t);

  beforeAll(async () => {
    target = await fundedAgent(t, 'target', '2', { dailyBudget: '10.00', maxPerPayment: '1.00' });

    const store = t.coffer.engine.ctx.store;
    const now = Date.now();
    otherOwnerKey = newApiKey('owner');
    otherAgentKey = newApiKey('agent');
    store.insertOwner({ address: OTHER_OWNER, createdAt: now });
    store.insertApiKey(hashApiKey(otherOwnerKey), { kind: 'owner', owner: OTHER_OWNER }, now);
    // The other owner has an agent with the same id as ours.
    store.insertAgent(
      {
        owner: OTHER_OWNER,
        agentId: 'target',
        walletAddress: OTHER_AGENT_WALLET,
        displayName: 'theirs',
        status: 'active',
        createdAt: now,
        statusReason: null,
        statusChangedAt: null,
        archivedAt: null,
      },
      {
        dailyBudget: 77_000_000n,
        maxPerPayment: 7_000_000n,
        cooldownSeconds: 7,
        allowedServices: ['web-search'],
        budgets: [],
        expiresAt: null,
        warnAt: [80, 95],
        breaker: null,
        askAbove: null,
        askNewRecipient: false,
      },
    );
    store.insertApiKey(hashApiKey(otherAgentKey), { kind: 'agent', owner: OTHER_OWNER, agentId: 'target' }, now);
  });

  describe('owner parameter', () => {
    it.each(ownerEndpoints('target').map((e) => [label(e), e] as const))('%s without owner: 400 owner_required', async (_l, endpoint) => {
      const before = await snapshot();
      expectError(await t.api(endpoint.method, endpoint.path, { body: endpoint.body }), 400, 'owner_required');
      expect(await snapshot()).toEqual(before);
    });

    it('an empty owner is missing: 400 owner_required', async () => {
      expectError(await t.api('GET', '/v1/dashboard?owner='), 400, 'owner_required');
    });

    it('checks owner before the key: no owner and no key is 400 owner_required', async () => {
      expectError(await t.api('GET', '/v1/agents/target/balance', { key: null }), 400, 'owner_required');
    });

    it.each([
      ['not base58 at all', 'not-a-wallet'],
      ['base58 but with a 0', '0'.repeat(44)],
      ['base58 but with an l', `l${UNKNOWN_OWNER.slice(1)}`],
      ['too short', UNKNOWN_OWNER.slice(0, 20)],
      ['too long', `${UNKNOWN_OWNER}abcd`],
      ['with spaces', ` ${UNKNOWN_OWNER} `],
    ])('a malformed owner (%s): 400 invalid_owner', async (_l, owner) => {
      for (const endpoint of ownerEndpoints('target')) {
        const response = await t.api(endpoint.method, `${endpoint.path}?owner=${encodeURIComponent(owner)}`, { body: endpoint.body });
        expectError(response, 400, 'invalid_owner');
      }
    });

    it('an owner given twice is malformed: 400 invalid_owner', async () => {
      expectError(await t.api('GET', `/v1/dashboard?owner=${t.owner}&owner=${t.owner}`), 400, 'invalid_owner');
    });

    it.each(ownerEndpoints('target').map((e) => [label(e), e] as const))(
      '%s with a well-formed unknown owner: 404 owner_not_found',
      async (_l, endpoint) => {
        const response = await t.api(endpoint.method, `${endpoint.path}?owner=${UNKNOWN_OWNER}`, { body: endpoint.body });
        expectError(response, 404, 'owner_not_found');
      },
    );
  });

  describe('API key', () => {
    it.each(ownerEndpoints('target').map((e) => [label(e), e] as const))('%s without a key: 401 unauthorized', async (_l, endpoint) => {
      const before = await snapshot();
      expectError(await t.api(endpoint.method, t.withOwner(endpoint.path), { body: endpoint.body, key: null }), 401, 'unauthorized');
      expect(await snapshot()).toEqual(before);
    });

    it.each(ownerEndpoints('target').map((e) => [label(e), e] as const))(
      '%s with an unknown key: 401 unauthorized',
      async (_l, endpoint) => {
        const before = await snapshot();
        expectError(
          await t.api(endpoint.method, t.withOwner(endpoint.path), { body: endpoint.body, key: newApiKey('owner') }),
          401,
          'unauthorized',
        );
        expect(await snapshot()).toEqual(before);
      },
    );

    it.each([
      ['an unknown agent-shaped key', () => newApiKey('agent')],
      ['the owner key with one more character', () => `${t.ownerKey}x`],
      ['the owner key cut short', () => t.ownerKey.slice(0, -1)],
      ['garbage', () => 'hunter2'],
    ])('%s is 401 unauthorized', async (_l, makeKey) => {
      expectError(await t.api('GET', t.withOwner('/v1/dashboard'), { key: makeKey() }), 401, 'unauthorized');
    });

    it.each([
      ['an empty Authorization header', ''],
      ['a bare "Bearer"', 'Bearer'],
      ['"Bearer " with nothing after it', 'Bearer '],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['the key without a scheme', '__OWNER_KEY__'],
      ['two keys', 'Bearer __OWNER_KEY__ __OWNER_KEY__'],
    ])('%s is 401 unauthorized', async (_l, header) => {
      const response = await t.api('GET', t.withOwner('/v1/dashboard'), {
        key: null,
        headers: { authorization: header.replaceAll('__OWNER_KEY__', t.ownerKey) },
      });
      expectError(response, 401, 'unauthorized');
    });

    it("a key revoked says why, still 401 unauthorized: its agent's key replaced, its agent archived; garbage says nothing more", async () => {
      const agent = await deployAgent(t, 'revoked-keys');
      const balance = (key: string) => t.api('GET', t.withOwner('/v1/agents/revoked-keys/balance'), { key });
      const replaced = await t.api('POST', t.withOwner('/v1/agents/revoked-keys/key'));
      expect(replaced.status).toBe(200);
      const old = await balance(agent.apiKey);
      expectError(old, 401, 'unauthorized');
      expect(old.body.error).toMatch(
        /^this API key of agent "revoked-keys" was replaced by a new one at \S+Z: the owner has it \(coffer key revoked-keys makes another\)$/,
      );
      expect((await t.api('POST', t.withOwner('/v1/agents/revoked-keys/archive'))).status).toBe(200);
      const archived = await balance(replaced.body.apiKey);
      expectError(archived, 401, 'unauthorized');
      expect(archived.body.error).toMatch(/^this API key of agent "revoked-keys" was revoked at \S+Z: the owner archived the agent$/);
      // A key never issued learns nothing of any agent.
      expect((await balance(newApiKey('agent'))).body.error).toBe('invalid API key');
    });

    it('accepts the owner key with any case of "Bearer"', async () => {
      const response = await t.api('GET', t.withOwner('/v1/dashboard'), { key: null, headers: { authorization: `bearer ${t.ownerKey}` } });
      expect(response.status).toBe(200);
    });
  });

  describe('wrong_owner', () => {
    it.each(ownerEndpoints('target').map((e) => [label(e), e] as const))(
      "%s with another owner's key: 403 wrong_owner, nothing changes",
      async (_l, endpoint) => {
        const before = await snapshot();
        const response = await t.api(endpoint.method, t.withOwner(endpoint.path), { body: endpoint.body, key: otherOwnerKey });
        expectError(response, 403, 'wrong_owner');
        expect(await snapshot()).toEqual(before);
      },
    );

    it("another owner's agent key on our agent of the same id: 403 wrong_owner", async () => {
      for (const endpoint of ownerEndpoints('target')) {
        const response = await t.api(endpoint.method, t.withOwner(endpoint.path), { body: endpoint.body, key: otherAgentKey });
        expectError(response, 403, 'wrong_owner');
      }
    });

    it("our keys against the other owner's address: 403 wrong_owner", async () => {
      const path = `/v1/agents/target/policy?owner=${OTHER_OWNER}`;
      expectError(await t.api('GET', path), 403, 'wrong_owner');
      expectError(await t.api('GET', path, { key: target.apiKey }), 403, 'wrong_owner');
      expectError(await t.api('GET', `/v1/dashboard?owner=${OTHER_OWNER}`), 403, 'wrong_owner');
    });

    it('each owner sees only its own agent behind the same id', async () => {
      const ours = await t.api('GET', t.withOwner('/v1/agents/target/policy'));
      const theirs = await t.api('GET', `/v1/agents/target/policy?owner=${OTHER_OWNER}`, { key: otherOwnerKey });
      expect(ours.status).toBe(200);
      expect(theirs.status).toBe(200);
      expect(ours.body.policy.dailyBudget).toBe('10.00');
      expect(theirs.body.policy).toEqual({
        dailyBudget: '77.00',
        maxPerPayment: '7.00',
        cooldownSeconds: 7,
        allowedServices: ['web-search'],
      });
    });
  });

  describe('agent keys', () => {
    it('an agent key works on its own agent-scope endpoints', async () => {
      const agent = await fundedAgent(t, 'self-scope', '1');
      const key = agent.apiKey;
      const balance = await t.api('GET', t.withOwner('/v1/agents/self-scope/balance'), { key });
      expect(balance.status).toBe(200);
      expect(balance.body.balance).toBe('1.00');
      const policy = await t.api('GET', t.withOwner('/v1/agents/self-scope/policy'), { key });
      expect(policy.status).toBe(200);
      const paid = await pay(t, 'self-scope', key, { service: 'demo-weather', amount: '0.01', currency: 'USDC', description: 'own key' });
      expect(paid.status).toBe(200);
      const history = await t.api('GET', t.withOwner('/v1/agents/self-scope/spend-history'), { key });
      expect(history.status).toBe(200);
      expect(history.body.payments).toHaveLength(1);
    });

    it.each([
      ['GET', 'balance', undefined],
      ['GET', 'policy', undefined],
      ['POST', 'policy', { dailyBudget: '1.00' }],
      ['POST', 'pay', { service: 'demo-weather', amount: '0.01', currency: 'USDC' }],
      ['GET', 'spend-history', undefined],
      ['POST', 'kill', undefined],
    ] as const)("agent A's key on agent B's %s %s: 403 wrong_agent, B unchanged", async (method, endpoint, body) => {
      const a = await deployAgent(t, `wa-${method.toLowerCase()}-${endpoint}`);
      const before = await snapshot();
      const response = await t.api(method, t.withOwner(`/v1/agents/target/${endpoint}`), { key: a.apiKey, body });
      // Whose the key is, and that it acts for that agent alone: not that the key is someone else's.
      expectError(
        response,
        403,
        'wrong_agent',
        `this API key is agent "wa-${method.toLowerCase()}-${endpoint}"'s and acts for that agent alone, not for "target"`,
      );
      expect(await snapshot()).toEqual(before);
    });

    it("agent A's key on an agent that does not exist is still refused (403)", async () => {
      const a = await deployAgent(t, 'wa-ghost');
      const response = await t.api('GET', t.withOwner('/v1/agents/ghost/balance'), { key: a.apiKey });
      expect(response.status).toBe(403);
      expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
    });

    it.each([
      ['GET', '/v1/dashboard', undefined],
      ['GET', '/v1/treasury/deposits', undefined],
      ['POST', '/v1/treasury/faucet', { amount: '5.00' }],
      ['GET', '/v1/agents', undefined],
      ['POST', '/v1/kill-all', undefined],
      ['GET', '/v1/approvals', undefined],
      ['POST', '/v1/agents/__SELF__/rename', { displayName: 'I renamed myself' }],
      ['POST', '/v1/agents/target/rename', { displayName: 'Renamed by another agent' }],
    ] as const)('an agent key on owner-only %s %s: 403 owner_only, nothing changes', async (method, path, body) => {
      const self = `oo-${path.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`;
      const agent = await deployAgent(t, self);
      const before = await snapshot();
      const response = await t.api(method, t.withOwner(path.replace('__SELF__', self)), { key: agent.apiKey, body });
      expectError(response, 403, 'owner_only');
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['POST', '/v1/agents/deploy', { agentId: 'spawned-by-agent', dailyBudget: '1.00', maxPerPayment: '1.00' }, 'deploy'],
      ['POST', '/v1/agents/__SELF__/allocate', { amount: '1.00' }, 'allocate'],
      ['POST', '/v1/agents/__SELF__/resume', undefined, 'resume'],
    ] as const)('an agent key asking %s %s: 202 pending approval, nothing changes', async (method, path, body, kind) => {
      const self = `ap-${kind}`;
      const agent = await deployAgent(t, self);
      // Only a stopped agent has a resume to ask for (an active one is told so at once, below).
      if (kind === 'resume') expect((await t.api('POST', t.withOwner(`/v1/agents/${self}/kill`))).status).toBe(200);
      const before = await snapshot();
      const response = await t.api(method, t.withOwner(path.replace('__SELF__', self)), { key: agent.apiKey, body });
      expect(response.status).toBe(202);
      expect(response.body).toMatchObject({ approvalId: expect.stringMatching(/^apr_/), status: 'pending', kind, agentId: self });
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['POST', '/v1/agents/target/allocate', { amount: '1.00' }],
      ['POST', '/v1/agents/target/resume', undefined],
    ] as const)("an agent key on another agent's %s %s: 403 wrong_agent, nothing asked", async (method, path, body) => {
      const agent = await deployAgent(t, `wa-${path.split('/').pop()}`);
      const before = await snapshot();
      expectError(await t.api(method, t.withOwner(path), { key: agent.apiKey, body }), 403, 'wrong_agent');
      expect(await snapshot()).toEqual(before);
    });

    it('an agent may kill itself (200); resuming itself waits for the owner', async () => {
      const agent = await fundedAgent(t, 'self-kill', '1');
      const killed = await t.api('POST', t.withOwner('/v1/agents/self-kill/kill'), { key: agent.apiKey });
      expect(killed.status).toBe(200);
      expect(killed.body).toEqual({
        agentId: 'self-kill',
        status: 'suspended',
        was: 'active',
        withdrawn: { requests: 0, heldPayments: 0 },
        stillLanding: { payments: 0, amount: '0.00', until: null, agents: [] },
      });
      const again = await t.api('POST', t.withOwner('/v1/agents/self-kill/kill'), { key: agent.apiKey });
      expect(again.body).toEqual({
        agentId: 'self-kill',
        status: 'suspended',
        was: 'suspended',
        withdrawn: { requests: 0, heldPayments: 0 },
        stillLanding: { payments: 0, amount: '0.00', until: null, agents: [] },
      });

      const paid = await pay(t, 'self-kill', agent.apiKey, { service: 'demo-weather', amount: '0.01', currency: 'USDC' });
      expectError(paid, 403, 'agent_suspended');

      const asked = await t.api('POST', t.withOwner('/v1/agents/self-kill/resume'), { key: agent.apiKey });
      expect(asked.status).toBe(202);
      expect(asked.body.status).toBe('pending');
      const policy = await t.api('GET', t.withOwner('/v1/agents/self-kill/policy'), { key: agent.apiKey });
      expect(policy.status).toBe(200);
      const listed = await t.api('GET', t.withOwner('/v1/agents'));
      expect((listed.body.agents as Array<{ agentId: string; status: string }>).find((a) => a.agentId === 'self-kill')?.status).toBe(
        'suspended',
      );

      const resumed = await t.api('POST', t.withOwner('/v1/agents/self-kill/resume'));
      expect(resumed.body).toEqual({ agentId: 'self-kill', status: 'active', was: 'suspended' });
      // Active again, it has nothing to ask: told so at once, and the owner is asked nothing.
      const before = await snapshot();
      const asActive = await t.api('POST', t.withOwner('/v1/agents/self-kill/resume'), { key: agent.apiKey });
      expect({ status: asActive.status, body: asActive.body }).toEqual({
        status: 200,
        body: { agentId: 'self-kill', status: 'active', was: 'active' },
      });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('an agent tightening or loosening its own policy', () => {
    const start = { dailyBudget: '20.00', maxPerPayment: '5.00', cooldownSeconds: 60, allowedServices: ['web-search', 'translate'] };

    const policyOf = async (agentId: string) => (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/policy`))).body.policy;

    it.each([
      ['lowers dailyBudget', { dailyBudget: '15.00' }, { dailyBudget: '15.00' }],
      ['lowers maxPerPayment', { maxPerPayment: '0.5' }, { maxPerPayment: '0.50' }],
      ['raises cooldownSeconds', { cooldownSeconds: 120 }, { cooldownSeconds: 120 }],
      ['narrows allowedServices', { allowedServices: ['web-search'] }, { allowedServices: ['web-search'] }],
      [
        'tightens everything at once',
        { dailyBudget: '6.00', maxPerPayment: '1.00', cooldownSeconds: 600, allowedServices: ['translate'] },
        { dailyBudget: '6.00', maxPerPayment: '1.00', cooldownSeconds: 600, allowedServices: ['translate'] },
      ],
    ])('%s: 200 and applied at once', async (name, update, changed) => {
      const agentId = `tight-${name.replace(/[^a-z]+/gi, '-').toLowerCase()}`;
      const agent = await deployAgent(t, agentId, start);
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/policy`), { key: agent.apiKey, body: update });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        agentId,
        policy: { ...start, ...changed },
        spent24h: '0.00',
        held24h: '0.00',
        pending24h: '0.00',
        timeZone: new Intl.DateTimeFormat().resolvedOptions().timeZone,
      });
      expect(await policyOf(agentId)).toEqual({ ...start, ...changed });
    });

    it.each([
      ['raises dailyBudget', { dailyBudget: '20.01' }],
      ['raises maxPerPayment', { maxPerPayment: '6.00' }],
      ['lowers cooldownSeconds', { cooldownSeconds: 59 }],
      ['sets cooldownSeconds to 0', { cooldownSeconds: 0 }],
      ['widens allowedServices with a new id', { allowedServices: ['web-search', 'translate', 'geocode'] }],
      ['swaps an allowed service for another', { allowedServices: ['web-search', 'geocode'] }],
      ['widens allowedServices to [] (every service)', { allowedServices: [] }],
      ['tightens one field but loosens another', { dailyBudget: '10.00', maxPerPayment: '9.00' }],
    ])('%s: 202 pending approval and the policy is unchanged', async (name, update) => {
      const agentId = `loose-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`.replace(/-$/, '');
      const agent = await deployAgent(t, agentId, start);
      const response = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/policy`), { key: agent.apiKey, body: update });
      expect(response.status).toBe(202);
      expect(response.body).toMatchObject({ status: 'pending', kind: 'policy', request: update });
      expect(await policyOf(agentId)).toEqual(start);
    });

    it("widens ['web-search'] to ['web-search', 'translate'] or to []: waits for approval; the owner may", async () => {
      const agent = await deployAgent(t, 'widen-a', { dailyBudget: '10.00', maxPerPayment: '1.00', allowedServices: ['web-search'] });
      const path = t.withOwner('/v1/agents/widen-a/policy');
      expect((await t.api('POST', path, { key: agent.apiKey, body: { allowedServices: ['web-search', 'translate'] } })).status).toBe(202);
      expect((await t.api('POST', path, { key: agent.apiKey, body: { allowedServices: [] } })).status).toBe(202);
      expect((await policyOf('widen-a')).allowedServices).toEqual(['web-search']);

      const owner = await t.api('POST', path, { body: { allowedServices: ['web-search', 'translate'] } });
      expect(owner.status).toBe(200);
      expect(owner.body.policy.allowedServices).toEqual(['web-search', 'translate']);
    });

    it('a tightened dailyBudget applies to the next payment', async () => {
      const agent = await fundedAgent(t, 'tight-pay', '3', { dailyBudget: '2.00', maxPerPayment: '1.00' });
      const tightened = await t.api('POST', t.withOwner('/v1/agents/tight-pay/policy'), {
        key: agent.apiKey,
        body: { dailyBudget: '1.00', maxPerPayment: '1.00' },
      });
      expect(tightened.status).toBe(200);
      const payAmount = (amount: string) => pay(t, 'tight-pay', agent.apiKey, { ...UNLISTED_API, amount, currency: 'USDC' });
      expect((await payAmount('0.60')).status).toBe(200);
      expectError(await payAmount('0.60'), 402, 'daily_budget_exceeded');
    });
  });
});
