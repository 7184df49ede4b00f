import { describe, expect, it } from 'vitest';
import { spendingKey } from '../../../../../renderer/src/lib/spending-key.js';
import type { DashboardAgent } from '../../../../../renderer/src/api/types.js';

const agent = {
  agentId: 'alpha',
  displayName: 'Alpha',
  balance: '5.00',
  spent24h: '1.00',
  held24h: '0.00',
  lifetimePayments: 3,
  policy: { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] },
  tightestBudget: null,
} as unknown as DashboardAgent;

describe('what an agent’s limits follow', () => {
  it('changes with a payment, its 24 h spending (and what of it is held), its policy or its tightest budget', () => {
    const key = spendingKey(agent);
    expect(spendingKey({ ...agent, lifetimePayments: 4 })).not.toBe(key);
    expect(spendingKey({ ...agent, spent24h: '0.50' })).not.toBe(key);
    // A held payment paid on the owner's yes: the same spent, no longer held.
    expect(spendingKey({ ...agent, held24h: '1.00' })).not.toBe(key);
    expect(spendingKey({ ...agent, policy: { ...agent.policy, dailyBudget: '20.00' } })).not.toBe(key);
    expect(spendingKey({ ...agent, tightestBudget: { window: 'month' } } as unknown as DashboardAgent)).not.toBe(key);
    expect(spendingKey(undefined)).not.toBe(key);
  });

  it('stays the same for what does not move them: its name, its balance, a copy of the same figures', () => {
    const key = spendingKey(agent);
    expect(spendingKey({ ...agent, displayName: 'Renamed', balance: '9.00' })).toBe(key);
    expect(spendingKey(JSON.parse(JSON.stringify(agent)) as DashboardAgent)).toBe(key);
  });
});
