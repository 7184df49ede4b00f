import { describe, expect, it } from 'vitest';
import { loosenings, validatePolicyDraft, type PolicyDraft } from '../../../../../renderer/src/lib/policy-form.js';
import { policyUpdateSchema } from '../../../../../server/core/schemas.js';
import { mergePolicy, newPolicy } from '../../../../../server/core/policy.js';

const AT = { now: Date.parse('2026-11-23T12:00:00Z'), timeZone: 'UTC' };

const valid: PolicyDraft = { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: '0', scope: 'any', allowedServices: [] };

describe('the policy editor refuses exactly what the server refuses', () => {
  it('accepts a valid draft and gives the update the server expects', () => {
    const result = validatePolicyDraft({ ...valid, cooldownSeconds: ' 30 ', scope: 'only', allowedServices: ['demo-weather'] });
    expect(result).toEqual({
      ok: true,
      update: { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 30, allowedServices: ['demo-weather'] },
    });
  });

  it.each([
    ['dailyBudget', '0'],
    ['dailyBudget', '-1'],
    ['dailyBudget', '1.0000001'],
    ['dailyBudget', 'ten'],
    ['dailyBudget', ''],
    ['maxPerPayment', '1e3'],
    ['maxPerPayment', '1000000000.01'],
    ['cooldownSeconds', '-5'],
    ['cooldownSeconds', '1.5'],
    ['cooldownSeconds', 'soon'],
    ['cooldownSeconds', '31536001'],
  ] as const)('refuses %s = %j next to that field', (field, value) => {
    const result = validatePolicyDraft({ ...valid, [field]: value });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors)).toEqual([field]);
  });

  it('accepts a budget below maxPerPayment, as the server does (cutting the budget is never refused)', () => {
    const result = validatePolicyDraft({ ...valid, dailyBudget: '2', maxPerPayment: '3' });
    expect(result).toEqual({ ok: true, update: { dailyBudget: '2', maxPerPayment: '3', cooldownSeconds: 0, allowedServices: [] } });
    const current = { ...newPolicy({ dailyBudget: '10', maxPerPayment: '1' }, AT) };
    expect(mergePolicy(current, { dailyBudget: '2', maxPerPayment: '3' }, AT)).toMatchObject({
      dailyBudget: 2_000_000n,
      maxPerPayment: 3_000_000n,
    });
  });

  it('agrees with the server schema on a spread of inputs', () => {
    const amounts = ['0.01', '5', '5.000001', '0.0000001', '00.5', '1,5', ' 1', '999999999.999999', '1000000000', '1000000000.000001'];
    for (const amount of amounts) {
      const editor = validatePolicyDraft({ ...valid, dailyBudget: amount, maxPerPayment: '0.000001' }).ok;
      const server = policyUpdateSchema.safeParse({ dailyBudget: amount.trim() }).success;
      expect(editor, amount).toBe(server);
    }
  });
});

describe('allowed services are an explicit choice', () => {
  it('"Any service" sends the empty list whatever was ticked; "Only these" with nothing ticked is refused, not widened to every service', () => {
    expect(validatePolicyDraft({ ...valid, scope: 'any', allowedServices: ['demo-weather'] })).toMatchObject({
      ok: true,
      update: { allowedServices: [] },
    });
    const none = validatePolicyDraft({ ...valid, scope: 'only', allowedServices: [] });
    expect(none).toEqual({ ok: false, errors: { allowedServices: 'Allowed services: pick at least one, or choose Any service' } });
  });
});

describe('loosening a lot is said in words before it is saved', () => {
  const policy = { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: ['demo-weather'] };
  it('names the factor, a budget above the treasury, and every service allowed where some were', () => {
    expect(loosenings(policy, { dailyBudget: '1000000000', allowedServices: [] }, 1_000_000_000n)).toEqual([
      'Daily budget 5.00 → 1,000,000,000.00 USDC: 200,000,000× the current budget.',
      'A daily budget of 1,000,000,000.00 USDC is more than the treasury holds (1,000.00 USDC).',
      'Any service may be paid, not only the 1 picked.',
    ]);
    expect(loosenings(policy, { maxPerPayment: '12.5' }, null)).toEqual(['Max per payment 1.00 → 12.50 USDC: 12.5× the current limit.']);
  });
  it('says nothing for a modest raise or a tightening', () => {
    expect(
      loosenings(policy, { dailyBudget: '49.99', maxPerPayment: '0.5', allowedServices: ['demo-weather', 'web-search'] }, 1_000_000_000n),
    ).toEqual([]);
  });
});
