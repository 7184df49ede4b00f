import { describe, expect, it } from 'vitest';
import { deployAgent, manualClock, signIn } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';

/**
 * The dashboard's sign-in: a one-time login link traded for a session token that only the page holds
 * (sessionStorage) and sends in the Authorization header. Nothing rides in a cookie, and a session
 * may mint what outlives it (API keys, login links) only within ten minutes of signing in.
 */
describe('dashboard sign-in', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });

  const asSession = (session: string) => ({ key: session });

  it('GET /v1/session says who a session token signs in as; nothing else signs in to it', async () => {
    const session = await signIn(t);
    const who = await t.api('GET', '/v1/session', asSession(session));
    expect(who.status).toBe(200);
    expect(who.body).toEqual({
      owner: t.owner,
      network: 'sim',
      usdcMint: t.coffer.chain.usdc,
      signedInAt: new Date(clock.now()).toISOString(),
      expiresAt: new Date(clock.now() + 12 * 60 * 60 * 1000).toISOString(),
    });
    expect((await t.api('GET', '/v1/session', { key: t.ownerKey })).status).toBe(401);
    expect((await t.api('GET', '/v1/session', { key: null, headers: { cookie: `coffer_session=${session}` } })).status).toBe(401);
    expect((await t.api('GET', '/v1/session', { key: 'cof_ses_forged' })).status).toBe(401);
    // The session token works where the owner key does, and only for its owner.
    expect((await t.api('GET', t.withOwner('/v1/dashboard'), asSession(session))).status).toBe(200);
    const other = await t.api('GET', '/v1/dashboard?owner=9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', asSession(session));
    expect(other.body.code).toBe('owner_not_found');
  });

  it('a login token signs in once: "used" after, "expired" after ten minutes, 400 for a bad body', async () => {
    const link = await t.api('POST', t.withOwner('/v1/session/login-link'));
    const loginToken = new URL(link.body.url).searchParams.get('token');
    const redeem = (body: unknown) => t.api('POST', '/v1/session', { key: null, body });
    expect((await redeem({ loginToken })).status).toBe(200);
    const used = await redeem({ loginToken });
    expect({ status: used.status, code: used.body.code }).toEqual({ status: 410, code: 'link_used' });
    const late = new URL((await t.api('POST', t.withOwner('/v1/session/login-link'))).body.url).searchParams.get('token');
    clock.advance(10 * 60 * 1000 + 1);
    const expired = await redeem({ loginToken: late });
    expect({ status: expired.status, code: expired.body.code }).toEqual({ status: 410, code: 'link_expired' });
    expect((await redeem({})).status).toBe(400);
    expect((await redeem({ loginToken: 'x', extra: 1 })).status).toBe(400);
  });

  it('an expired session is 401 everywhere', async () => {
    const session = await signIn(t);
    clock.advance(12 * 60 * 60 * 1000 + 1);
    const answer = await t.api('GET', t.withOwner('/v1/dashboard'), asSession(session));
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    expect(answer.body.error).toMatch(/coffer open/);
  });

  it('a session older than ten minutes reads and steers, but mints no key or login link until signed in again', async () => {
    const agent = await deployAgent(t, 'minted');
    const session = await signIn(t);
    clock.advance(10 * 60 * 1000 + 1);
    const refused = [
      await t.api('POST', t.withOwner('/v1/session/login-link'), asSession(session)),
      await t.api('POST', t.withOwner('/v1/agents/minted/key'), asSession(session)),
      await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        ...asSession(session),
        body: { agentId: 'late', dailyBudget: '1', maxPerPayment: '1' },
      }),
    ];
    const link = (await t.api('POST', '/v1/link-sessions', { key: null, body: { name: 'cli' } })).body.token;
    refused.push(await t.api('POST', `/v1/link-sessions/${link}/complete`, { ...asSession(session), body: { agentId: 'linked-late' } }));
    const asked = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      key: agent.apiKey,
      body: { agentId: 'asked-for', dailyBudget: '1', maxPerPayment: '1' },
    });
    refused.push(await t.api('POST', t.withOwner(`/v1/approvals/${asked.body.approvalId}/approve`), asSession(session)));
    for (const answer of refused) {
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 403, code: 'confirmation_required' });
      expect(answer.body.error).toMatch(/coffer open/);
    }
    // Nothing was minted or changed: the agent's key still works, no agent was made, the request waits.
    expect((await t.api('GET', t.withOwner('/v1/agents/minted/balance'), { key: agent.apiKey })).status).toBe(200);
    const ids = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents.map((a: { agentId: string }) => a.agentId);
    expect(ids).not.toContain('late');
    expect(ids).not.toContain('linked-late');
    expect(ids).not.toContain('asked-for');
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`))).body.status).toBe('pending');
    // The old session still steers: stop an agent (another one: stopping withdraws what it asked for).
    await deployAgent(t, 'steered');
    expect((await t.api('POST', t.withOwner('/v1/agents/steered/kill'), asSession(session))).status).toBe(200);

    // Signed in again, the same actions go through; the owner key never needs to.
    const fresh = await signIn(t);
    expect((await t.api('POST', t.withOwner('/v1/agents/minted/key'), asSession(fresh))).status).toBe(200);
    expect(
      (await t.api('POST', `/v1/link-sessions/${link}/complete`, { ...asSession(fresh), body: { agentId: 'linked-late' } })).status,
    ).toBe(200);
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${asked.body.approvalId}/approve`), asSession(fresh))).body.status).toBe(
      'approved',
    );
    expect((await t.api('POST', t.withOwner('/v1/session/login-link'), asSession(fresh))).status).toBe(200);
    clock.advance(60 * 60 * 1000);
    expect(
      (await t.api('POST', t.withOwner('/v1/agents/deploy'), { body: { agentId: 'by-key', dailyBudget: '1', maxPerPayment: '1' } })).status,
    ).toBe(200);
  });
});
