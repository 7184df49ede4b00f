import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { deployAgent, manualClock, micro } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { expectError } from '../helpers/expect-error.js';

describe('link sessions', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });

  const create = () => t.api('POST', '/v1/link-sessions', { key: null, body: { name: 'coffer-cli', hostname: 'laptop', user: 'ada' } });
  const poll = (token: string) => t.api('GET', `/v1/link-sessions/${token}`, { key: null });

  it('create, poll (not faster than every 2 s), complete by the owner, collect the credentials once', async () => {
    const created = await create();
    expect(created.status).toBe(200);
    const { token, linkUrl, expiresAt, code } = created.body;
    expect(token).toMatch(/^lnk_[A-Za-z0-9_-]{20,}$/);
    expect(linkUrl).toBe(`${t.url}/link?token=${token}`);
    expect(new Date(expiresAt).getTime() - clock.now()).toBe(10 * 60 * 1000);
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

    expect((await poll(token)).body).toMatchObject({ status: 'pending', code });
    const tooFast = await poll(token);
    expectError(tooFast, 429, 'slow_down');
    expect(Number(tooFast.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.advance(2000);
    expect((await poll(token)).status).toBe(200);

    const details = await t.api('GET', t.withOwner(`/v1/link-sessions/${token}/details`));
    expect(details.body).toMatchObject({ code, client: { name: 'coffer-cli', hostname: 'laptop', user: 'ada' }, status: 'pending' });

    const completed = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), {
      body: { agentId: 'laptop-agent', displayName: "Ada's laptop", dailyBudget: '3.00', maxPerPayment: '0.25' },
    });
    expect(completed.body).toEqual({ status: 'completed', agentId: 'laptop-agent' });

    clock.advance(2000);
    const collected = await poll(token);
    expect(collected.body).toMatchObject({ status: 'completed', agentId: 'laptop-agent', owner: t.owner, url: t.url });
    expect(collected.body.apiKey).toMatch(/^cof_agt_/);
    expect(collected.body.walletAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const policy = await t.api('GET', t.withOwner('/v1/agents/laptop-agent/policy'), { key: collected.body.apiKey });
    expect(policy.body.policy).toMatchObject({ dailyBudget: '3.00', maxPerPayment: '0.25' });

    clock.advance(2000);
    const used = await poll(token);
    expectError(used, 410, 'link_used');
    const again = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: {} });
    expect(again.status).toBe(410);
  });

  it('an unused session expires (410), an unknown token is 404, and only the owner completes', async () => {
    const { token } = (await create()).body;
    const agent = await deployAgent(t, 'not-the-owner');
    const byAgent = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { key: agent.apiKey, body: {} });
    expectError(byAgent, 403, 'owner_only');

    clock.advance(10 * 60 * 1000 + 1);
    const expired = await poll(token);
    expectError(expired, 410, 'link_expired');
    expect((await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: {} })).body.code).toBe('link_expired');
    expect((await poll('lnk_unknown')).body.code).toBe('link_not_found');
    expect((await poll('not-a-token')).status).toBe(404);
  });

  it('the owner denies a request: its terminal is told there is no such session; only the owner may, and not a completed one', async () => {
    const { token } = (await create()).body;
    const agent = await deployAgent(t, 'would-deny');
    const byAgent = await t.api('POST', `/v1/link-sessions/${token}/deny`, { key: agent.apiKey });
    expect(byAgent.body.code).toBe('owner_only');
    const denied = await t.api('POST', `/v1/link-sessions/${token}/deny`);
    expect(denied.status).toBe(200);
    expect(denied.body).toEqual({ status: 'denied' });
    clock.advance(2000);
    const polled = await poll(token);
    expect(polled.status).toBe(404);
    expect(polled.body).toMatchObject({ code: 'link_not_found', error: expect.stringMatching(/denied/) });
    expect((await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: {} })).body.code).toBe('link_not_found');

    const other = (await create()).body.token;
    expect((await t.api('POST', t.withOwner(`/v1/link-sessions/${other}/complete`), { body: { agentId: 'kept-link' } })).status).toBe(200);
    expect((await t.api('POST', `/v1/link-sessions/${other}/deny`)).body.code).toBe('link_used');
    expect((await t.api('POST', '/v1/link-sessions/lnk_nothing/deny')).body.code).toBe('link_not_found');
  });

  it('completing needs no owner parameter (the key or sign-in names the owner): no key is 401, an unknown token 404', async () => {
    const { token, code } = (await create()).body;
    const noKey = await t.api('POST', `/v1/link-sessions/${token}/complete`, { key: null, body: {} });
    expectError(noKey, 401, 'unauthorized');
    const badKey = await t.api('POST', `/v1/link-sessions/${token}/complete`, { key: 'cof_own_nope', body: {} });
    expect(badKey.status).toBe(401);
    const unknown = await t.api('POST', '/v1/link-sessions/lnk_unknown/complete', { body: {} });
    expectError(unknown, 404, 'link_not_found');
    expect((await t.api('GET', `/v1/link-sessions/${token}/details`)).body).toMatchObject({ code, status: 'pending' });
    expect((await t.api('GET', '/v1/link-sessions/lnk_unknown/details')).body.code).toBe('link_not_found');
    const completed = await t.api('POST', `/v1/link-sessions/${token}/complete`, { body: { agentId: 'no-owner-param' } });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ status: 'completed', agentId: 'no-owner-param' });
    // An owner parameter that is given must still be this key's owner.
    const { token: other } = (await create()).body;
    const wrong = await t.api('POST', `/v1/link-sessions/${other}/complete?owner=${'9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'}`, {
      body: {},
    });
    expectError(wrong, 404, 'owner_not_found');
  });

  it('two completions racing create one agent', async () => {
    const { token } = (await create()).body;
    const [a, b] = await Promise.all([
      t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: { agentId: 'tab-a' } }),
      t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: { agentId: 'tab-b' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 410]);
    const agents = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents.map((x: { agentId: string }) => x.agentId);
    expect(agents.filter((id: string) => id === 'tab-a' || id === 'tab-b')).toHaveLength(1);
  });

  it('a limit left out gets a default that fits the one the owner chose', async () => {
    const cases = [
      { body: {}, policy: { dailyBudget: '5.00', maxPerPayment: '0.50' } },
      { body: { dailyBudget: '0.25' }, policy: { dailyBudget: '0.25', maxPerPayment: '0.25' } },
      { body: { dailyBudget: '20' }, policy: { dailyBudget: '20.00', maxPerPayment: '0.50' } },
      { body: { maxPerPayment: '6' }, policy: { dailyBudget: '6.00', maxPerPayment: '6.00' } },
      { body: { maxPerPayment: '0.10' }, policy: { dailyBudget: '5.00', maxPerPayment: '0.10' } },
    ];
    for (const [i, { body, policy }] of cases.entries()) {
      const { token } = (await create()).body;
      const agentId = `limits-${i}`;
      const completed = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: { agentId, ...body } });
      expect(completed.status, JSON.stringify(body)).toBe(200);
      expect((await t.api('GET', t.withOwner(`/v1/agents/${agentId}/policy`))).body.policy).toMatchObject(policy);
    }
  });

  it('bad completion input is a 400 and changes nothing', async () => {
    const { token } = (await create()).body;
    const bad = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: { agentId: 'Bad Id', dailyBudget: 'x' } });
    expect(bad.status).toBe(400);
    clock.advance(2000);
    expect((await poll(token)).body.status).toBe('pending');
  });
});

describe('link sessions anyone on the machine may start', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });
  const create = (name = 'flood') => t.api('POST', '/v1/link-sessions', { key: null, body: { name } });
  const poll = (token: string) => t.api('GET', `/v1/link-sessions/${token}`, { key: null });
  const waiting = async () =>
    (await t.api('GET', '/v1/link-sessions')).body.sessions as { id: string; code: string; client: { name?: string } }[];

  it('a process holding many sessions and polling them every 2 s never locks out a real link request', async () => {
    const held: string[] = [];
    for (let i = 0; i < 40; i++) {
      const created = await create();
      expect(created.status).toBe(200);
      held.push(created.body.token);
    }
    for (let round = 0; round < 5; round++) {
      clock.advance(2000);
      for (const token of held) expect((await poll(token)).status).toBe(200);
    }
    const real = await create('coffer-cli');
    expect(real.status).toBe(200);
    const completed = await t.api('POST', `/v1/link-sessions/${real.body.token}/complete`, { body: { agentId: 'real-terminal' } });
    expect(completed.status).toBe(200);
    clock.advance(2000);
    expect((await poll(real.body.token)).body).toMatchObject({ status: 'completed', agentId: 'real-terminal' });
  });

  it('the owner sees what waits (code, who asks, since when) and clears it: one, or all at once', async () => {
    const before = await waiting();
    expect(before.length).toBeGreaterThanOrEqual(40);
    expect(before[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      code: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/),
      client: { name: 'flood' },
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastPolledAt: expect.any(String),
      opened: false,
    });
    // Newest first; the completed one is not waiting any more.
    expect(before.some((session) => session.client.name === 'coffer-cli')).toBe(false);
    const { token: mine } = (await create('coffer-cli')).body;
    const listed = await waiting();
    expect(listed[0]?.client.name).toBe('coffer-cli');

    const one = await t.api('POST', '/v1/link-sessions/clear', { body: { ids: [listed[0]!.id] } });
    expect(one.body).toEqual({ cleared: 1 });
    clock.advance(2000);
    expect((await poll(mine)).body.code).toBe('link_not_found');

    const all = await t.api('POST', '/v1/link-sessions/clear', { body: {} });
    expect(all.body.cleared).toBe(listed.length - 1);
    expect(await waiting()).toEqual([]);
    // Agents and strangers may not look or clear.
    const agent = await deployAgent(t, 'curious');
    expect((await t.api('GET', '/v1/link-sessions', { key: agent.apiKey })).body.code).toBe('owner_only');
    expect((await t.api('POST', '/v1/link-sessions/clear', { key: agent.apiKey, body: {} })).body.code).toBe('owner_only');
    expect((await t.api('GET', '/v1/link-sessions', { key: null })).status).toBe(401);
    expect((await t.api('POST', '/v1/link-sessions/clear', { body: { ids: ['not an id'] } })).status).toBe(400);
  });

  it('what waits stays bounded: past 500, the oldest sessions the owner has not opened give way; one the owner opened stays', async () => {
    const { token: opened, code } = (await create('coffer-cli')).body;
    expect((await t.api('GET', `/v1/link-sessions/${opened}/details`)).body.code).toBe(code);
    for (let i = 0; i < 520; i++) expect((await create()).status).toBe(200);
    expect(t.coffer.db.prepare("SELECT COUNT(*) FROM link_sessions WHERE status = 'pending'").pluck().get()).toBe(500);
    expect((await t.api('POST', `/v1/link-sessions/${opened}/complete`, { body: { agentId: 'opened-early' } })).status).toBe(200);
    const sessions = await waiting();
    expect(sessions).toHaveLength(499);

    // Expired sessions go too: a day past expiry they are forgotten (404, not 410).
    clock.advance(11 * 60 * 1000);
    const { token: late } = (await create()).body;
    clock.advance(24 * 60 * 60 * 1000);
    expect((await create()).status).toBe(200);
    expect((await poll(late)).status).toBe(410);
    expect(t.coffer.db.prepare("SELECT COUNT(*) FROM link_sessions WHERE status = 'pending'").pluck().get()).toBe(2);
  });
});

describe('a link funded on Base', () => {
  let node: TestEvmNode;
  beforeAll(async () => {
    node = await TestEvmNode.start();
  });
  afterAll(async () => {
    await node.stop();
  });
  const clock = manualClock();
  const t = useCoffer(() => ({ clock, baseRpc: node.url }));

  it('is still pending while its funding moves: the terminal is never told an empty wallet the owner funded (helper 183)', async () => {
    const treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base;
    await node.fundEth(treasury, parseEther('1'));
    await node.mint(treasury, micro('10'));
    const { token } = (await t.api('POST', '/v1/link-sessions', { key: null, body: { name: 'coffer-cli' } })).body;
    const poll = () => t.api('GET', `/v1/link-sessions/${token}`, { key: null });
    // The funding's transfer waits to be mined: the agent exists, its money not yet moved.
    await node.setAutomine(false);
    const completing = t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), {
      body: { agentId: 'funded-link', dailyBudget: '3.00', maxPerPayment: '0.25', fund: '1', fundRail: 'base' },
    });
    try {
      const agentIds = async () =>
        ((await t.api('GET', t.withOwner('/v1/agents'))).body.agents as { agentId: string }[]).map((a) => a.agentId);
      await expect.poll(agentIds).toContain('funded-link');
      clock.advance(2000);
      expect((await poll()).body.status).toBe('pending');
    } finally {
      await node.setAutomine(true);
      await node.mine(1);
    }
    const completed = await completing;
    expect(completed.body).toMatchObject({
      status: 'completed',
      funding: { status: 'funded', allocation: { rail: 'base', amount: '1.00' } },
    });
    clock.advance(2000);
    const collected = await poll();
    expect(collected.body.status).toBe('completed');
    const balance = await t.api('GET', t.withOwner('/v1/agents/funded-link/balance'), { key: collected.body.apiKey });
    expect(balance.body.balances.base).toBe('1.00');
  });
});
