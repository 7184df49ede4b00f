import { describe, expect, it } from 'vitest';
import { policyText } from '../../../../../server/cli/commands/policy.js';
import type { PolicyResponse } from '../../../../../server/wire/answers/policy.js';

/** `coffer policy`'s text (server/cli/commands/policy.ts), read as the owner reads it. */
const answer = (dailyBudget: string, maxPerPayment: string) =>
  ({
    agentId: 'a1',
    policy: { dailyBudget, maxPerPayment, cooldownSeconds: 0, allowedServices: [] },
    spent24h: '0.00',
    timeZone: 'UTC',
  }) as unknown as PolicyResponse;

describe('coffer policy', () => {
  it('a max per payment above the daily budget is said never to bind, as the dashboard says it (helper 181)', () => {
    expect(policyText(answer('10.00', '25.00'))).toContain(
      '  limits    at most 25.00 USDC a payment (above the daily budget: no payment can be larger than 10.00), cooldown 0 s, services: any\n',
    );
    expect(policyText(answer('10.00', '10.00'))).toContain('  limits    at most 10.00 USDC a payment, cooldown 0 s, services: any\n');
  });
});
