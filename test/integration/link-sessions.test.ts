import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoffer, deployAgent, manualClock, type TestCoffer } from '../helpers/coffer.js';

describe('link sessions', () => {
  const clock = manualClock();
  let t: TestCoffer;
  beforeAll(async () => {
    t = await startCoffer({ clock });
  });
  afterAll(async () => t.stop());

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
    expect(tooFast.status).toBe(429);
    expect(tooFast.body.code).toBe('slow_down');
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
    expect(used.status).toBe(410);
    expect(used.body.code).toBe('link_used');
    const again = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: {} });
    expect(again.status).toBe(410);
  });

  it('an unused session expires (410), an unknown token is 404, and only the owner completes', async () => {
    const { token } = (await create()).body;
    const agent = await deployAgent(t, 'not-the-owner');
    const byAgent = await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { key: agent.apiKey, body: {} });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.code).toBe('owner_only');
    expect((await t.api('POST', `/v1/link-sessions/${token}/complete`, { body: {} })).body.code).toBe('owner_required');

    clock.advance(10 * 60 * 1000 + 1);
    const expired = await poll(token);
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('link_expired');
    expect((await t.api('POST', t.withOwner(`/v1/link-sessions/${token}/complete`), { body: {} })).body.code).toBe('link_expired');
    expect((await poll('lnk_unknown')).body.code).toBe('link_not_found');
    expect((await poll('not-a-token')).status).toBe(404);
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
  let t: TestCoffer;
  beforeAll(async () => {
    t = await startCoffer({ clock });
  });
  afterAll(async () => t.stop());
  const create = () => t.api('POST', '/v1/link-sessions', { key: null, body: { name: 'flood' } });

  it('at most 20 polled sessions wait at once (then 429 with Retry-After); abandoned and expired ones free their place', async () => {
    const poll = (token: string) => t.api('GET', `/v1/link-sessions/${token}`, { key: null });
    const tokens: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await create();
      expect(created.status).toBe(200);
      tokens.push(created.body.token);
      clock.advance(1000);
    }
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_requests');
    // The first one stops holding a place 30 s after its last sign of life, 20 s ago.
    expect(Number(refused.headers.get('retry-after'))).toBe(10);

    // Completing one frees a place.
    expect((await t.api('POST', t.withOwner(`/v1/link-sessions/${tokens[0]}/complete`), { body: { agentId: 'linked-one' } })).status).toBe(200);
    const replacement = (await create()).body.token as string;
    expect((await create()).status).toBe(429);

    // Terminals that keep polling keep their place; the ones that went quiet lose it after 30 s.
    for (let second = 0; second < 15; second++) {
      clock.advance(2000);
      for (const token of [...tokens.slice(1, 6), replacement]) expect((await poll(token)).status).toBe(200);
    }
    const fresh: number[] = [];
    for (let i = 0; i < 20; i++) fresh.push((await create()).status);
    // 6 still polled: 14 new ones fit, then the cap again.
    expect(fresh.filter((status) => status === 200)).toHaveLength(14);
    expect(fresh.at(-1)).toBe(429);
    // An abandoned session can still be completed in its ten minutes: only its place in the count went.
    expect((await t.api('POST', t.withOwner(`/v1/link-sessions/${tokens[10]}/complete`), { body: { agentId: 'linked-late' } })).status).toBe(200);

    // A day past expiry the sessions are gone (404, not 410).
    clock.advance(11 * 60 * 1000);
    expect((await poll(tokens[12]!)).body.code).toBe('link_expired');
    clock.advance(24 * 60 * 60 * 1000);
    expect((await create()).status).toBe(200);
    expect((await poll(tokens[12]!)).status).toBe(404);
    expect(t.coffer.db.prepare('SELECT COUNT(*) FROM link_sessions').pluck().get()).toBe(1);
  });
});

describe('link sessions created in bursts', () => {
  const clock = manualClock();
  let t: TestCoffer;
  beforeAll(async () => {
    t = await startCoffer({ clock });
  });
  afterAll(async () => t.stop());

  it('at most 200 wait in all, polled or not', async () => {
    const create = () => t.api('POST', '/v1/link-sessions', { key: null, body: { name: 'burst' } });
    for (let burst = 0; burst < 10; burst++) {
      for (let i = 0; i < 20; i++) expect((await create()).status).toBe(200);
      clock.advance(31_000); // abandoned: they stop counting against the 20
    }
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_requests');
    // When they expire, linking works again.
    clock.advance(10 * 60 * 1000);
    expect((await create()).status).toBe(200);
  });
});
