import { describe, expect, it } from 'vitest';
import { describeRequest } from '../../../../server/wire/describe-request.js';
import type { Approval, Policy } from '../../../../renderer/src/api/types.js';

/** A request as the approval carries it: its kind and what was asked. */
const request = (kind: Approval['kind'], asked: Record<string, unknown>) => [kind, asked] as const;
const current: Policy = { dailyBudget: '5.00', maxPerPayment: '0.50', cooldownSeconds: 30, allowedServices: ['demo-weather'], budgets: [] };

describe('describeRequest', () => {
  it('shows a policy change against the current policy, in USDC, with how many times larger', () => {
    const text = describeRequest(
      ...request('policy', { dailyBudget: '50', maxPerPayment: '0.75', cooldownSeconds: 0, allowedServices: [] }),
      current,
    );
    expect(text).toBe(
      'Change its policy: daily budget 5.00 → 50.00 USDC (10×); max per payment 0.50 → 0.75 USDC (1.5×); cooldown 30 s → 0 s; allowed services: demo-weather → every service',
    );
  });

  it('without the current policy, still says what is asked, with units', () => {
    expect(describeRequest(...request('policy', { dailyBudget: '8.5' }))).toBe('Change its policy: daily budget → 8.50 USDC');
  });

  it('says a held payment as a payment: how much, to whom (the address when the name is a label), and a new recipient as such', () => {
    expect(
      describeRequest('payment', { service: 'demo-weather', amount: '4', recipient: 'demo-weather', reason: { code: 'ask_above' } }),
    ).toBe('Pay 4.00 USDC on Solana to demo-weather');
    expect(
      describeRequest('payment', {
        service: 'forecast-api',
        amount: '0.5',
        recipient: '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx',
        reason: { code: 'new_recipient' },
      }),
    ).toBe('Pay 0.50 USDC on Solana to forecast-api (93ug…Dnrx), a recipient it never paid');
    // A payment held on Base says so (one on Solana, the first rail, says nothing of its rail).
    expect(
      describeRequest('payment', {
        service: 'demo-weather',
        amount: '0.01',
        recipient: '0x558D9E5A2B8E4B7F1f9C7D0b0E6c4B0a3E2f05f1',
        rail: 'base',
        reason: { code: 'ask_above' },
      }),
    ).toBe('Pay 0.01 USDC on Base to demo-weather (0x55…05f1)');
  });

  it('names amounts in USDC for allocations and new agents', () => {
    expect(describeRequest(...request('allocate', { amount: '25' }))).toBe('Allocate 25.00 USDC to its wallet on Solana');
    expect(describeRequest(...request('deploy', { agentId: 'child', dailyBudget: '1', maxPerPayment: '0.1' }))).toBe(
      'Deploy a new agent “child” (daily budget 1.00 USDC, max 0.10 USDC per payment)',
    );
    expect(describeRequest(...request('resume', {}))).toBe('Resume itself (payments allowed again)');
    // Stopped by its breaker: the owner reads why, as they decide.
    expect(describeRequest(...request('resume', { stoppedBecause: 'its breaker tripped: 5 refused payments within 10 minutes' }))).toBe(
      'Resume itself (payments allowed again): its breaker tripped: 5 refused payments within 10 minutes',
    );
  });

  it('says the money a request moves, and its rail: an allocation on Base, a new agent funded from the treasury', () => {
    expect(describeRequest(...request('allocate', { amount: '25', rail: 'base' }))).toBe('Allocate 25.00 USDC to its wallet on Base');
    expect(describeRequest(...request('deploy', { agentId: 'child', dailyBudget: '1', maxPerPayment: '0.1', fund: '40' }))).toBe(
      'Deploy a new agent “child” (daily budget 1.00 USDC, max 0.10 USDC per payment), funded with 40.00 USDC on Solana from the treasury',
    );
    expect(
      describeRequest(...request('deploy', { agentId: 'child', dailyBudget: '1', maxPerPayment: '0.1', fund: '40', fundRail: 'base' })),
    ).toBe(
      'Deploy a new agent “child” (daily budget 1.00 USDC, max 0.10 USDC per payment), funded with 40.00 USDC on Base from the treasury',
    );
  });
});

describe('describeRequest: an end, warning shares and a breaker', () => {
  it('says each against the current policy, what an absent field means included', () => {
    const asked = request('policy', {
      expiresAt: null,
      warnAt: [50],
      breaker: { refusals: { count: 5, minutes: 10 }, spending: { percent: 50, minutes: 15 } },
    });
    const ending = { ...current, expiresAt: '2026-12-31T23:00:00.000Z', breaker: { refusals: { count: 3, minutes: 10 } } };
    expect(describeRequest(...asked, ending)).toBe(
      'Change its policy: end: 2026-12-31T23:00:00.000Z → never; warnings at: 80 %, 95 % → 50 %; ' +
        'breaker: stops after 3 refusals within 10 minutes → stops after 5 refusals within 10 minutes, or 50 % of any amount budget (the daily one too) spent within 15 minutes',
    );
    expect(describeRequest(...request('policy', { breaker: null, warnAt: [80, 95], expiresAt: '2027-01-01' }), current)).toBe(
      'Change its policy: breaker none (unchanged); warnings at 80 %, 95 % (unchanged); end: never → 2027-01-01',
    );
    expect(describeRequest(...request('policy', { warnAt: [] }))).toBe('Change its policy: warnings at → never');
  });
});

describe("describeRequest: an end in the owner's time zone", () => {
  // The engine keeps an asked end as the instant it resolved to; the owner typed a day.
  const endOf20261231InNewYork = '2027-01-01T05:00:00.000Z';

  it('says the end of a day as the day the owner typed, in their zone', () => {
    const asked = request('policy', { expiresAt: endOf20261231InNewYork });
    expect(describeRequest(...asked, current, 'America/New_York')).toBe('Change its policy: end: never → the end of 2026-12-31');
    // Against an end already set to that day: unchanged, in the same words.
    expect(describeRequest(...asked, { ...current, expiresAt: endOf20261231InNewYork }, 'America/New_York')).toBe(
      'Change its policy: end the end of 2026-12-31 (unchanged)',
    );
  });

  it('says any other moment as the wall time there, with the zone', () => {
    expect(describeRequest(...request('policy', { expiresAt: '2027-01-01T05:30:00.000Z' }), null, 'America/New_York')).toBe(
      'Change its policy: end → 2027-01-01 00:30 America/New_York',
    );
    // In UTC the first instant is no day's end in New York's sense but is 05:00 there.
    expect(describeRequest(...request('policy', { expiresAt: endOf20261231InNewYork }), null, 'UTC')).toBe(
      'Change its policy: end → 2027-01-01 05:00 UTC',
    );
  });

  it('without a zone, says the instant as kept', () => {
    expect(describeRequest(...request('policy', { expiresAt: endOf20261231InNewYork }))).toBe(
      `Change its policy: end → ${endOf20261231InNewYork}`,
    );
  });
});

describe('describeRequest against the current policy', () => {
  it('marks what would not change, and hides nothing', () => {
    const asked = request('policy', { dailyBudget: '5', allowedServices: ['demo-weather'], cooldownSeconds: 0 });
    expect(describeRequest(...asked, current)).toBe(
      'Change its policy: daily budget 5.00 USDC (unchanged); allowed services demo-weather (unchanged); cooldown 30 s → 0 s',
    );
    expect(describeRequest(...request('policy', { dailyBudget: '5.000' }), current)).toBe(
      'Change its policy: daily budget 5.00 USDC (unchanged)',
    );
  });
});
