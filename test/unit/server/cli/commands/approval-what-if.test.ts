import { describe, expect, it } from 'vitest';
import { whatIfLines } from '../../../../../server/cli/commands/approvals.js';
import type { PolicyWhatIf, WhatIfTally } from '../../../../../server/wire/answers/policy.js';

const none: WhatIfTally = { payments: 0, amount: '0', byCode: {}, examples: [] };
const tried = (over: Partial<PolicyWhatIf>): PolicyWhatIf => ({
  agentId: 'a1',
  from: '2026-11-01T00:00:00.000Z',
  to: '2026-12-01T00:00:00.000Z',
  payments: 12,
  wouldRefuse: none,
  wouldHold: none,
  ...over,
});

/** `coffer approvals`'s what-if of a waiting policy request, as the dashboard's card words it (helper 192). */
describe('a policy request tried on the last 30 days, in `coffer approvals`', () => {
  it('says plainly that it would have refused and held nothing', () => {
    expect(whatIfLines({ request: { maxPerPayment: '5' } }, tried({}))).toBe(
      '  what-if: It would have refused none of its 12 payments and held none.\n',
    );
  });

  it('says what it would have refused and held, and the first refused', () => {
    const at = '2026-11-30T10:00:00.000Z';
    const lines = whatIfLines(
      { request: { askAbove: '0.50' } },
      tried({
        wouldRefuse: {
          payments: 1,
          amount: '2',
          byCode: { max_per_payment_exceeded: 1 },
          examples: [
            {
              paymentId: 'pay_1',
              at,
              amount: '2.00',
              rail: 'base',
              service: 'demo-weather',
              code: 'max_per_payment_exceeded',
              message: 'above the limit',
            },
          ],
        },
        wouldHold: { payments: 3, amount: '3', byCode: { ask_above: 3 }, examples: [] },
      }),
    ).split('\n');
    expect(lines[0]).toMatch(
      /^ {2}what-if: Over the last 30 days \(12 payments\) this would have refused 1 \(2\.00 USDC\).* 3 of those it let through \(3\.00 USDC\) would have waited for your yes: 3 above the ask-above amount\.$/,
    );
    expect(lines[1]).toBe('  It would have refused, first:');
    expect(lines[2]).toMatch(/^ {4}.+ {2}2\.00 USDC on Base {2}demo-weather {2}above the limit$/);
  });

  it("says why where the request could not be tried, and nothing for a request that is no policy's", () => {
    expect(whatIfLines({ request: {} }, 'the policy changed since')).toBe(
      '  what-if: it could not be tried on the last 30 days (the policy changed since)\n',
    );
    expect(whatIfLines({ request: {} }, undefined)).toBe('');
  });
});
