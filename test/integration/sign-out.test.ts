import { describe, expect, it } from 'vitest';
import { fundedAgent, manualClock, micro, signIn, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';

/**
 * Issue 22, point 6: a dashboard session had no sign-out, and one signed in hours ago could still
 * loosen a policy, allocate and pay an outside address (a stolen session token moved 400 USDC).
 * Sign-out kills the token at once and ends its event streams; what moves money out of the owner's
 * reach, or lets an agent do so, needs a sign-in from the last ten minutes; and a session cannot
 * make itself fresh again by minting its own login links.
 */
const MINUTE = 60 * 1000;

describe('signing out of the dashboard', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });
  const as = (session: string) => ({ key: session });

  /** An open event stream, and when it ended (null while open). */
  async function openStream(session: string) {
    const response = await fetch(`${t.url}${t.withOwner('/v1/events')}`, { headers: { authorization: `Bearer ${session}` } });
    expect(response.status).toBe(200);
    const state = { endedAt: null as number | null };
    const reader = response.body!.getReader();
    void (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // a reset ends it too
      }
      state.endedAt = Date.now();
    })();
    return { state, cancel: () => reader.cancel().catch(() => undefined) };
  }

  it('kills the token at once, everywhere, and ends its open event streams (and only its own)', async () => {
    const session = await signIn(t);
    const other = await signIn(t);
    const mine = await openStream(session);
    const theirs = await openStream(other);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const signedOutAt = Date.now();
    const out = await t.api('DELETE', '/v1/session', as(session));
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signedOut: true });
    for (const answer of [
      await t.api('GET', '/v1/session', as(session)),
      await t.api('GET', t.withOwner('/v1/dashboard'), as(session)),
      await t.api('POST', t.withOwner('/v1/kill-all'), as(session)),
      await t.api('DELETE', '/v1/session', as(session)),
    ]) {
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    }
    // Well before the stream's 15 s heartbeat would have noticed.
    for (let i = 0; i < 100 && mine.state.endedAt === null; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(mine.state.endedAt).not.toBeNull();
    expect(mine.state.endedAt! - signedOutAt).toBeLessThan(5_000);
    expect(theirs.state.endedAt).toBeNull();
    expect((await t.api('GET', '/v1/session', as(other))).status).toBe(200);
    await theirs.cancel();
  });

  it('is for a session only: the owner key, an agent key, a body or nothing are refused and sign no one out', async () => {
    const session = await signIn(t);
    expect((await t.api('DELETE', '/v1/session', { key: t.ownerKey })).status).toBe(401);
    expect((await t.api('DELETE', '/v1/session', { key: null })).status).toBe(401);
    const withBody = await t.api('DELETE', '/v1/session', { ...as(session), body: { everyone: true } });
    expect({ status: withBody.status, code: withBody.body.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect((await t.api('GET', '/v1/session', as(session))).status).toBe(200);
  });
});

describe('what a session signed in more than ten minutes ago may do', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });
  const as = (session: string) => ({ key: session });

  it('moves no money and loosens nothing: allocate, pay as the owner, loosen a policy, resume, approve; all 403 confirmation_required, nothing changed', async () => {
    const agent = await fundedAgent(t, 'guarded', '5', { dailyBudget: '10', maxPerPayment: '2' });
    await fundedAgent(t, 'stopped', '1');
    await t.api('POST', t.withOwner('/v1/agents/stopped/kill'));
    const asked = await t.api('POST', t.withOwner('/v1/agents/guarded/allocate'), { key: agent.apiKey, body: { amount: '1' } });
    expect(asked.status).toBe(202);
    const session = await signIn(t);
    clock.advance(10 * MINUTE + 1);
    const treasury = await t.coffer.chain.usdcBalance(t.owner);
    const wallet = await t.coffer.chain.usdcBalance(agent.walletAddress);
    const refused = [
      await t.api('POST', t.withOwner('/v1/agents/guarded/allocate'), { ...as(session), body: { amount: '1' } }),
      await pay(t, 'guarded', session, { ...UNLISTED_API, amount: '0.50' }),
      await t.api('POST', t.withOwner('/v1/agents/guarded/policy'), { ...as(session), body: { dailyBudget: '400' } }),
      await t.api('POST', t.withOwner('/v1/agents/stopped/resume'), as(session)),
      await t.api('POST', t.withOwner('/v1/resume-all'), as(session)),
      await t.api('POST', t.withOwner(`/v1/approvals/${asked.body.approvalId}/approve`), as(session)),
    ];
    for (const answer of refused) {
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 403, code: 'confirmation_required' });
      expect(answer.body.error).toMatch(/sign in again/);
    }
    expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasury);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(wallet);
    expect((await t.api('GET', t.withOwner('/v1/agents/guarded/policy'))).body.policy.dailyBudget).toBe('10.00');
    const agents = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents as { agentId: string; status: string }[];
    expect(agents.find((a) => a.agentId === 'stopped')?.status).toBe('suspended');
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`))).body.status).toBe('pending');

    // What reads, tightens or brings money home still works: the brake is never behind a sign-in.
    expect((await t.api('POST', t.withOwner('/v1/agents/guarded/policy'), { ...as(session), body: { dailyBudget: '5' } })).status).toBe(
      200,
    );
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${asked.body.approvalId}/deny`), as(session))).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/guarded/return'), { ...as(session), body: { amount: '1' } })).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/kill-all'), as(session))).status).toBe(200);

    // Signed in again (or with the owner key), the same moves go through.
    const fresh = await signIn(t);
    expect((await t.api('POST', t.withOwner('/v1/agents/guarded/resume'), as(fresh))).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/guarded/allocate'), { ...as(fresh), body: { amount: '1' } })).status).toBe(200);
    expect((await pay(t, 'guarded', fresh, { ...UNLISTED_API, amount: '0.50' })).status).toBe(200);
    clock.advance(60 * MINUTE);
    expect((await t.api('POST', t.withOwner('/v1/agents/guarded/allocate'), { body: { amount: '1' } })).status).toBe(200);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(wallet - micro('1') + micro('1') - micro('0.5') + micro('1'));
  });

  it('cannot be renewed by the session itself: a login link it mints signs in as of its own sign-in, and expires with it', async () => {
    const first = await signIn(t);
    const signedInAt = (await t.api('GET', '/v1/session', as(first))).body.signedInAt as string;
    clock.advance(9 * MINUTE);
    const link = await t.api('POST', t.withOwner('/v1/session/login-link'), as(first));
    expect(link.status).toBe(200);
    const loginToken = new URL(link.body.url as string).searchParams.get('token');
    const second = await t.api('POST', '/v1/session', { key: null, body: { loginToken } });
    expect(second.status).toBe(200);
    expect(second.body.signedInAt).toBe(signedInAt);
    expect(second.body.expiresAt).toBe(new Date(Date.parse(signedInAt) + 12 * 60 * MINUTE).toISOString());
    clock.advance(2 * MINUTE);
    const renewed = await t.api('POST', t.withOwner('/v1/session/login-link'), as(second.body.sessionToken as string));
    expect({ status: renewed.status, code: renewed.body.code }).toEqual({ status: 403, code: 'confirmation_required' });
    // A link the owner key mints (coffer open, the tray) is a new sign-in.
    const byKey = await signIn(t);
    expect((await t.api('GET', '/v1/session', as(byKey))).body.signedInAt).toBe(new Date(clock.now()).toISOString());
  });
});
