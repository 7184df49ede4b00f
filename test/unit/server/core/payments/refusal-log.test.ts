import { afterEach, describe, expect, it } from 'vitest';
import { coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { REFUSALS_KEPT_PER_AGENT } from '../../../../../server/core/payments/refusal-log.js';

/**
 * The refusal log (server/core/payments/refusal-log.ts): a refusal whose answer is the same whatever
 * is asked (a stopped agent, an ended policy) is written once while it repeats, however the asks
 * vary, so no looping agent pushes another agent's refusals out of the owner's list.
 */
const SELLER = randomAddress();
let core: CoreEngine;
afterEach(() => core?.close());

describe('the refusal log, an agent looping on a refusal', () => {
  it.each([
    ['stopped', 'agent_suspended'],
    ['whose policy ended', 'policy_expired'],
  ])('an agent %s, varying every amount, is written once; another agent’s refusal stays', async (_what, code) => {
    core = await coreEngine({ store: 'memory', treasury: '100' });
    const now = core.clock.now();
    await core.fundedAgent('quiet', '1', { maxPerPayment: '0.10' });
    await core.fundedAgent('loud', '1', code === 'policy_expired' ? { expiresAt: new Date(now + 60_000).toISOString() } : {});
    const pay = (agentId: string, amount: string) =>
      core.engine.pay(core.asAgent(agentId), agentId, { service: 'forecast-api', recipient: SELLER, amount }, null).catch((e) => e);
    expect(await pay('quiet', '0.50')).toMatchObject({ code: 'max_per_payment_exceeded' });
    if (code === 'agent_suspended') await core.engine.kill(core.asOwner, 'loud');
    else core.advance(61_000);
    for (let i = 0; i < 40; i++) expect(await pay('loud', `0.${String(100 + i)}`)).toMatchObject({ code });
    const written = core.store.recentRefusals(core.owner, 500);
    expect(written.filter((refusal) => refusal.agentId === 'loud')).toHaveLength(1);
    expect(written.filter((refusal) => refusal.agentId === 'quiet')).toHaveLength(1);
  });
});

describe('the refusal log, an agent refused for ever-new asks', () => {
  it('keeps at most its share of the owner’s list: a quiet agent’s refusal stays', async () => {
    core = await coreEngine({ store: 'memory', treasury: '100' });
    await core.fundedAgent('quiet', '1', { maxPerPayment: '0.10' });
    await core.fundedAgent('loud', '1', { maxPerPayment: '0.10' });
    const pay = (agentId: string, amount: string) =>
      core.engine.pay(core.asAgent(agentId), agentId, { service: 'forecast-api', recipient: SELLER, amount }, null).catch((e) => e);
    expect(await pay('quiet', '0.50')).toMatchObject({ code: 'max_per_payment_exceeded' });
    // No breaker: every distinct ask is a distinct refusal, written.
    for (let i = 0; i < 600; i++) expect(await pay('loud', `0.${String(2000 + i)}`)).toMatchObject({ code: 'max_per_payment_exceeded' });
    const written = core.store.recentRefusals(core.owner, 500);
    expect(written.filter((refusal) => refusal.agentId === 'quiet')).toHaveLength(1);
    const loud = written.filter((refusal) => refusal.agentId === 'loud');
    expect(loud).toHaveLength(REFUSALS_KEPT_PER_AGENT);
    // The latest are the ones kept.
    expect(loud[0]!.amount).toBe('0.2599');
  });
});
