import { describe, expect, it } from 'vitest';
import { validatePolicyDraft, type PolicyDraft } from '../../../renderer/src/lib/policy-form.js';
import { policyUpdateSchema } from '../../../server/core/schemas.js';
import { mergePolicy } from '../../../server/core/policy.js';

const valid: PolicyDraft = { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: '0', allowedServices: [] };

describe('the policy editor refuses exactly what the server refuses', () => {
  it('accepts a valid draft and gives the update the server expects', () => {
    const result = validatePolicyDraft({ ...valid, cooldownSeconds: ' 30 ', allowedServices: ['demo-weather'] });
    expect(result).toEqual({ ok: true, update: { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 30, allowedServices: ['demo-weather'] } });
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
    const current = { dailyBudget: 10_000_000n, maxPerPayment: 1_000_000n, cooldownSeconds: 0, allowedServices: [] };
    expect(mergePolicy(current, { dailyBudget: '2', maxPerPayment: '3' })).toMatchObject({ dailyBudget: 2_000_000n, maxPerPayment: 3_000_000n });
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
