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

  it('says what of the spent sum is not settled yet, and what waits for a yes, apart (helpers 185, 190)', () => {
    const spending = { ...answer('1.00', '0.50'), spent24h: '0.48', pending24h: '0.18', held24h: '0.05' } as PolicyResponse;
    expect(policyText(spending)).toContain(
      "  daily     1.00 USDC in any 24 hours: 0.48 spent (0.05 of it held for the owner's yes, not paid; 0.18 of it signed or sent, not settled yet)\n",
    );
    expect(policyText({ ...spending, pending24h: '0.00', held24h: '0.00' } as PolicyResponse)).toContain(
      '  daily     1.00 USDC in any 24 hours: 0.48 spent\n',
    );
  });
});
