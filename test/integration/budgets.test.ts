import { describeRequest } from '../../server/wire/describe-request.js';
import { describe, expect, it } from 'vitest';
import { deployAgent, fundedAgent, manualClock, signIn, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';

/** Budgets beyond the daily one (issue 25), over HTTP on the embedded chain. */
describe('budgets', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });
  const policyPath = (agentId: string) => t.withOwner(`/v1/agents/${agentId}/policy`);

  it('a payment must fit every budget it falls under; a refusal names the budget and moves nothing; the policy says what each spent', async () => {
    const agent = await fundedAgent(t, 'budgeted', '5.00');
    const set = await t.api('POST', policyPath('budgeted'), {
      body: {
        budgets: [
          { amount: '1', window: 'month' },
          { amount: '0.02', window: 'day', service: 'demo-weather' },
          { amount: '0.5', window: '7d', recipient: UNLISTED_API.recipient },
        ],
      },
    });
    expect(set.status).toBe(200);
    expect(set.body.policy.budgets).toEqual([
      { amount: '1.00', window: 'month' },
      { amount: '0.02', window: 'day', service: 'demo-weather' },
      { amount: '0.50', window: '7d', recipient: UNLISTED_API.recipient },
    ]);
    const weather = { service: 'demo-weather', amount: '0.01' };
    expect((await payUsdc(t, 'budgeted', agent.apiKey, weather)).status).toBe(200);
    expect((await payUsdc(t, 'budgeted', agent.apiKey, weather)).status).toBe(200);
    const third = await payUsdc(t, 'budgeted', agent.apiKey, weather);
    expectError(third, 402, 'budget_exceeded', /0\.02 USDC a day for demo-weather: 0\.02 USDC spent; it starts afresh at /);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    // The recipient's budget holds every payment to that wallet, under whatever name.
    expect((await payUsdc(t, 'budgeted', agent.apiKey, { ...UNLISTED_API, amount: '0.30' })).status).toBe(200);
    const renamed = { ...UNLISTED_API, service: 'renamed-api' };
    const over = await payUsdc(t, 'budgeted', agent.apiKey, { ...renamed, amount: '0.21' });
    expectError(over, 402, 'budget_exceeded', new RegExp(`to ${UNLISTED_API.recipient.slice(0, 4)}`));
    expect((await payUsdc(t, 'budgeted', agent.apiKey, { ...renamed, amount: '0.20' })).status).toBe(200);

    const read = await t.api('GET', policyPath('budgeted'));
    expect(read.body.budgets).toEqual([
      expect.objectContaining({ amount: '1.00', window: 'month', spent: '0.52', remaining: '0.48', resetsAt: expect.any(String) }),
      expect.objectContaining({ service: 'demo-weather', spent: '0.02', remaining: '0.00' }),
      expect.objectContaining({ recipient: UNLISTED_API.recipient, spent: '0.50', remaining: '0.00', resetsAt: null }),
    ]);
    expect(read.body.spent24h).toBe('0.52');
    const refusals = await t.api('GET', t.withOwner('/v1/dashboard'));
    expect(JSON.stringify(refusals.body)).toContain('budget_exceeded');
  });

  it('a count budget holds at most that many payments in its window, and says how many were made', async () => {
    const agent = await fundedAgent(t, 'counted', '1.00');
    expect(
      (await t.api('POST', policyPath('counted'), { body: { budgets: [{ count: 2, window: 'hour', service: 'demo-weather' }] } })).status,
    ).toBe(200);
    const weather = { service: 'demo-weather', amount: '0.01' };
    expect((await payUsdc(t, 'counted', agent.apiKey, weather)).status).toBe(200);
    expect((await payUsdc(t, 'counted', agent.apiKey, weather)).status).toBe(200);
    expectError(
      await payUsdc(t, 'counted', agent.apiKey, weather),
      402,
      'budget_exceeded',
      /2 payments in any hour for demo-weather: 2 made/,
    );
    // Other services are not held by it.
    expect((await payUsdc(t, 'counted', agent.apiKey, { ...UNLISTED_API, amount: '0.01' })).status).toBe(200);
    const read = await t.api('GET', policyPath('counted'));
    expect(read.body.budgets).toEqual([{ count: 2, window: 'hour', service: 'demo-weather', made: 2, remaining: 0, resetsAt: null }]);
    const both = await t.api('POST', policyPath('counted'), { body: { budgets: [{ count: 2, amount: '1', window: 'hour' }] } });
    expect(both.status).toBe(400);
  });

  it("a policy without budgets answers as it always has (and the owner's time zone)", async () => {
    await deployAgent(t, 'plain');
    const read = await t.api('GET', policyPath('plain'));
    // No `budgets` (held24h came with the held payments' figure, for every policy).
    expect(Object.keys(read.body).sort()).toEqual(['agentId', 'held24h', 'pending24h', 'policy', 'spent24h', 'timeZone']);
    expect(Object.keys(read.body.policy).sort()).toEqual(['allowedServices', 'cooldownSeconds', 'dailyBudget', 'maxPerPayment']);
  });

  it('bad budgets are a 400 with a code, and the policy is unchanged', async () => {
    await deployAgent(t, 'careful');
    const before = (await t.api('GET', policyPath('careful'))).body;
    const bad = [
      { budgets: [{ amount: '1', window: 'fortnight' }] },
      { budgets: [{ amount: '-1', window: 'day' }] },
      { budgets: [{ amount: '1', window: 'day', service: 'no-such-service' }] },
      { budgets: [{ amount: '1', window: 'day', recipient: 'not-an-address' }] },
      { budgets: [{ amount: '1', window: 'day', service: 'demo-weather', recipient: UNLISTED_API.recipient }] },
      { expiresAt: '2020-01-01' },
      { expiresAt: '2020-01-01T00:00:00Z', dailyBudget: '1' },
      { expiresAt: 'next friday' },
      { expiresAt: '2099-01-01T00:00:00' },
      { warnAt: [0] },
      { warnAt: [101] },
      { warnAt: [80.5] },
      { warnAt: [50, 50] },
      { breaker: {} },
      { breaker: { refusals: { count: 0, minutes: 10 } } },
      { breaker: { spending: { percent: 50 } } },
      { breaker: { refusals: { count: 3, minutes: 10, hours: 1 } } },
    ];
    for (const body of bad) {
      const response = await t.api('POST', policyPath('careful'), { body });
      expectError(response, 400, 'invalid_policy');
    }
    expect((await t.api('GET', policyPath('careful'))).body).toEqual(before);
  });

  it('an agent may add or lower a budget at once; removing or raising one waits for the owner', async () => {
    const agent = await deployAgent(t, 'selfish');
    const path = policyPath('selfish');
    const own = (body: unknown) => t.api('POST', path, { key: agent.apiKey, body });
    expect((await own({ budgets: [{ amount: '5', window: 'week' }] })).status).toBe(200);
    expect(
      (
        await own({
          budgets: [
            { amount: '4', window: 'week' },
            { amount: '1', window: 'day' },
          ],
        })
      ).status,
    ).toBe(200);
    const raise = await own({
      budgets: [
        { amount: '6', window: 'week' },
        { amount: '1', window: 'day' },
      ],
    });
    expect(raise.status).toBe(202);
    const drop = await own({ budgets: [{ amount: '4', window: 'week' }] });
    expect(drop.status).toBe(202);
    expect((await t.api('GET', path)).body.policy.budgets).toEqual([
      { amount: '4.00', window: 'week' },
      { amount: '1.00', window: 'day' },
    ]);
  });

  it('a policy that ended refuses every payment, 403 policy_expired; the policy says its end', async () => {
    const agent = await fundedAgent(t, 'ending', '1.00');
    const end = new Date(clock.now() + 60_000).toISOString();
    const set = await t.api('POST', policyPath('ending'), { body: { expiresAt: end } });
    expect(set.body.policy.expiresAt).toBe(end);
    const weather = { service: 'demo-weather', amount: '0.01' };
    expect((await payUsdc(t, 'ending', agent.apiKey, weather)).status).toBe(200);
    clock.advance(60_000);
    expectError(await payUsdc(t, 'ending', agent.apiKey, weather), 403, 'policy_expired', /policy ended at /);
  });

  it('the owner is warned on the event stream as a budget passes a share, and a tripped breaker stops the agent with its reason everywhere', async () => {
    const agent = await fundedAgent(t, 'watched', '1.00');
    const policy = await t.api('POST', policyPath('watched'), {
      body: { dailyBudget: '0.05', warnAt: [60], breaker: { refusals: { count: 2, minutes: 5 } } },
    });
    expect(policy.body.policy).toMatchObject({ warnAt: [60], breaker: { refusals: { count: 2, minutes: 5 } } });
    const stream = await fetch(`${t.url}${t.withOwner('/v1/events')}`, { headers: { authorization: `Bearer ${await signIn(t)}` } });
    const reader = stream.body!.getReader();
    const weather = { service: 'demo-weather', amount: '0.01' };
    for (let i = 0; i < 3; i += 1) expect((await payUsdc(t, 'watched', agent.apiKey, weather)).status).toBe(200);
    let text = '';
    while (!/event: warning/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toMatch(/event: warning\ndata: .*"message":"watched has used 60 % of its daily budget of 0.05 USDC \(0.03 USDC spent\)"/);

    const over = { service: 'demo-weather', amount: '0.03' };
    const first = await payUsdc(t, 'watched', agent.apiKey, over);
    expectError(first, 402, 'daily_budget_exceeded');
    expect(first.body.error).not.toMatch(/breaker/);
    expect(first.body).not.toHaveProperty('agentStopped');
    // The refusal that trips the breaker says so: the agent learns it is stopped from the answer it got,
    // with no Retry-After (waiting frees nothing). The refusal log keeps the refusal's own words.
    const tripping = await payUsdc(t, 'watched', agent.apiKey, { ...over, amount: '0.04' });
    // The one refusal whose answer has a field beside `error` and `code` (below).
    expect(tripping.status).toBe(402);
    expect(Object.keys(tripping.body).sort()).toEqual(['agentStopped', 'code', 'error']);
    expect(tripping.body.code).toBe('daily_budget_exceeded');
    const reason = 'its breaker tripped: 2 refused payments within 5 minutes';
    expect(tripping.body.error).toMatch(
      new RegExp(`^[^;]+; then ${reason}: agent "watched" is stopped, every payment refused until the owner resumes it$`),
    );
    expect(tripping.headers.get('retry-after')).toBeNull();
    // Said in a field too, as a payment that trips it says it: a client need not read the words.
    expect(tripping.body.agentStopped).toEqual({ reason });
    const kept = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals as {
      agent: string;
      amount: string;
      message: string;
    }[];
    const keptTripping = kept.find((refusal) => refusal.agent === 'watched' && refusal.amount === '0.04');
    expect(keptTripping?.message).toBe(tripping.body.error.split('; then ')[0]);
    const listed = await t.api('GET', t.withOwner('/v1/agents'));
    expect(listed.body.agents.find((row: { agentId: string }) => row.agentId === 'watched')).toMatchObject({
      status: 'suspended',
      statusReason: reason,
    });
    expectError(await payUsdc(t, 'watched', agent.apiKey, weather), 403, 'agent_suspended');
    // The agent cannot resume itself: its request waits for the owner, and says why it was stopped
    // (what the owner decides on).
    const asked = await t.api('POST', t.withOwner('/v1/agents/watched/resume'), { key: agent.apiKey });
    expect(asked.status).toBe(202);
    expect(asked.body.request).toEqual({ stoppedBecause: reason });
    expect(describeRequest(asked.body.kind, asked.body.request)).toBe(`Resume itself (payments allowed again): ${reason}`);
    expect((await t.api('POST', t.withOwner('/v1/agents/watched/resume'))).status).toBe(200);
    const after = await t.api('GET', t.withOwner('/v1/agents'));
    expect(after.body.agents.find((row: { agentId: string }) => row.agentId === 'watched')).not.toHaveProperty('statusReason');
  });

  it('the payment that trips the spending breaker is made, and its answer says the agent is stopped and why', async () => {
    const agent = await fundedAgent(t, 'spender', '1.00');
    await t.api('POST', policyPath('spender'), { body: { dailyBudget: '0.04', breaker: { spending: { percent: 50, minutes: 15 } } } });
    const weather = { service: 'demo-weather', amount: '0.01' };
    const first = await payUsdc(t, 'spender', agent.apiKey, weather);
    expect(first.status).toBe(200);
    expect(first.body).not.toHaveProperty('agentStopped');
    // 0.02 of 0.04 within 15 minutes: the money moved (it was within the policy), then the breaker tripped.
    const tripping = await payUsdc(t, 'spender', agent.apiKey, weather);
    expect(tripping.status).toBe(200);
    expect(tripping.body.status).toBe('confirmed');
    const reason = 'its breaker tripped: 0.02 USDC spent within 15 minutes, 50 % or more of its daily budget of 0.04 USDC';
    expect(tripping.body.agentStopped).toEqual({ reason });
    const listed = await t.api('GET', t.withOwner('/v1/agents'));
    expect(listed.body.agents.find((row: { agentId: string }) => row.agentId === 'spender')).toMatchObject({
      status: 'suspended',
      statusReason: reason,
    });
    expectError(await payUsdc(t, 'spender', agent.apiKey, weather), 403, 'agent_suspended');
  });

  it('what-if: a policy change tried on the last 30 days over HTTP, before it is saved; bad input is a 400', async () => {
    const agent = await fundedAgent(t, 'tried', '1.00');
    const weather = { service: 'demo-weather', amount: '0.01' };
    for (let i = 0; i < 3; i += 1) expect((await payUsdc(t, 'tried', agent.apiKey, weather)).status).toBe(200);
    const path = t.withOwner('/v1/agents/tried/policy/what-if');
    const tried = await t.api('POST', path, { body: { budgets: [{ count: 2, window: 'day' }] } });
    expect(tried.status).toBe(200);
    expect(tried.body).toMatchObject({
      agentId: 'tried',
      payments: 3,
      wouldRefuse: {
        payments: 1,
        amount: '0.01',
        byCode: { budget_exceeded: 1 },
        examples: [{ service: 'demo-weather', code: 'budget_exceeded' }],
      },
    });
    // The agent may ask too; nothing was saved.
    expect((await t.api('POST', path, { key: agent.apiKey, body: { dailyBudget: '0.01' } })).body.wouldRefuse.payments).toBe(2);
    expect((await t.api('GET', policyPath('tried'))).body.policy).not.toHaveProperty('budgets');
    expectError(await t.api('POST', path, { body: { budgets: [{ amount: '-1', window: 'day' }] } }), 400, 'invalid_policy');
    expectError(await t.api('POST', path, { body: { maxPerPayment: 'lots' } }), 400, 'invalid_amount');
  });
});
