import { describe, expect, it } from 'vitest';
import { fundedAgent, manualClock, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';

const HOUR = 60 * 60 * 1000;

describe('dailyBudget is a rolling 24 h window and cooldown a spacing', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });

  const pay = (key: string, agentId: string, amount: string) => payUsdc(t, agentId, key, { ...UNLISTED_API, amount });

  it('frees budget exactly 24 h after a payment, not at midnight', async () => {
    const agent = await fundedAgent(t, 'rolling', '10.00', { dailyBudget: '1.00', maxPerPayment: '1.00' });
    expect((await pay(agent.apiKey, 'rolling', '0.70')).status).toBe(200);
    clock.advance(12 * HOUR);
    expect((await pay(agent.apiKey, 'rolling', '0.30')).status).toBe(200);
    expect((await pay(agent.apiKey, 'rolling', '0.01')).body.code).toBe('daily_budget_exceeded');

    clock.advance(12 * HOUR - 1); // 1 ms before the first payment leaves the window
    expect((await pay(agent.apiKey, 'rolling', '0.01')).body.code).toBe('daily_budget_exceeded');
    clock.advance(1);
    expect((await pay(agent.apiKey, 'rolling', '0.70')).status).toBe(200);
    expect((await pay(agent.apiKey, 'rolling', '0.01')).body.code).toBe('daily_budget_exceeded');

    const agents = await t.api('GET', t.withOwner('/v1/agents'));
    const row = agents.body.agents.find((a: { agentId: string }) => a.agentId === 'rolling');
    expect(row.spent24h).toBe('1.00');
    expect(row.lifetimeSpent).toBe('1.70');
  });

  it('cooldown opens again after cooldownSeconds', async () => {
    const agent = await fundedAgent(t, 'spaced', '10.00', { cooldownSeconds: 30 });
    expect((await pay(agent.apiKey, 'spaced', '0.01')).status).toBe(200);
    clock.advance(29_000);
    const early = await pay(agent.apiKey, 'spaced', '0.01');
    expect(early.body.code).toBe('cooldown_active');
    expect(early.headers.get('retry-after')).toBe('1');
    clock.advance(1_000);
    expect((await pay(agent.apiKey, 'spaced', '0.01')).status).toBe(200);
  });
});
