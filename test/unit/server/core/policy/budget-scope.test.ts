import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';

/**
 * Which payments a budget holds is one rule, whoever reads it: the pay path that judges a payment,
 * the ledger that keeps what each scope spent (GET policy's `spent`), and the approval card. A
 * service's budget holds the payments recorded under that service's id, listed in the registry or
 * not: a later catalog that no longer lists a budgeted service leaves the budget holding what its
 * `spent` counts, so that a budget is never shown spent past its limit.
 */
let core: CoreEngine | undefined;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it("a budgeted service's id, its service no longer listed, is held by the budget its payments are counted in", async () => {
    core = await coreEngine({ store });
    const c = core;
    await c.fundedAgent('alpha', '5', { budgets: [{ amount: '0.02', window: 'day', service: 'demo-weather' }] });
    await c.paid('alpha', { service: 'demo-weather', amount: '0.01' });
    c.unlist('demo-weather');
    // The id is now the agent's own label for whatever it pays, and the budget still counts it.
    const elsewhere = randomAddress();
    c.chain.mint(elsewhere, 1n);
    const refused = await c.paid('alpha', { service: 'demo-weather', recipient: elsewhere, amount: '0.02' }).catch((error) => error);
    expect(refused).toMatchObject({ code: 'budget_exceeded' });
    expect(refused.message).toMatch(/^this payment would pass the budget of 0\.02 USDC a day for demo-weather: 0\.01 USDC spent;/);
    await c.paid('alpha', { service: 'demo-weather', recipient: elsewhere, amount: '0.01' });
    const policy = c.engine.readPolicy(c.asOwner, 'alpha');
    expect(policy.budgets?.map((budget) => ('spent' in budget ? budget.spent : null))).toEqual(['0.02']);
    // Another label, to the same address, is no payment of that service's.
    await c.paid('alpha', { service: 'my-weather', recipient: elsewhere, amount: '0.03' });

    // The owner changing the budgets keeps that one (it holds payments still); a new one naming an
    // unlisted id is refused, as ever.
    const weatherBudget = { amount: '0.02', window: 'day' as const, service: 'demo-weather' };
    const kept = c.engine.updatePolicy(c.asOwner, 'alpha', { budgets: [weatherBudget, { amount: '1', window: 'lifetime' }] });
    expect(kept.kind).toBe('done');
    expect(() =>
      c.engine.updatePolicy(c.asOwner, 'alpha', { budgets: [weatherBudget, { ...weatherBudget, service: 'my-weather' }] }),
    ).toThrow(/"my-weather" is not a registry service/);
  });
});
