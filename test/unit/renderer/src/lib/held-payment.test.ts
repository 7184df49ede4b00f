import { describe, expect, it } from 'vitest';
import { heldPaymentOf, outcomeWords } from '../../../../../renderer/src/lib/held-payment.js';
import { budgetSteps, passesLimit, shareAfter, stepWords, type BudgetStep } from '../../../../../server/wire/policy/held-budgets.js';
import type { Approval, PolicyResponse } from '../../../../../renderer/src/api/types.js';
import { heldApproval } from '../../../../fixtures/held-approval.js';

const RECIPIENT = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const OTHER = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const NOW = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 3_600_000;

/** A held payment's approval, as GET /v1/approvals answers it, asked half an hour ago. */
const approval = (request: Record<string, unknown>, extra: Partial<Approval> = {}): Approval =>
  heldApproval(request, {
    createdAt: new Date(NOW - HOUR / 2).toISOString(),
    expiresAt: new Date(NOW + 23 * HOUR).toISOString(),
    ...extra,
  });

const asked = {
  service: 'forecast-api',
  amount: '4.00',
  recipient: RECIPIENT,
  description: 'a week of forecasts',
  reason: { code: 'ask_above', message: "4.00 USDC is above 2.00 USDC: above that, the policy waits for the owner's yes" },
};

/** GET policy now: its spending already holds the 4.00 USDC payment (held payments count). */
const answer: PolicyResponse = {
  agentId: 'alpha',
  policy: { dailyBudget: '10.00', maxPerPayment: '5.00', cooldownSeconds: 0, allowedServices: [], askAbove: '2.00' },
  spent24h: '4.25',
  held24h: '0.00',
  pending24h: '0.00',
  timeZone: 'UTC',
  budgets: [
    { amount: '20.00', window: 'month', spent: '5.25', remaining: '14.75', resetsAt: '2026-12-01T00:00:00.000Z' },
    { count: 5, window: 'day', recipient: RECIPIENT, made: 2, remaining: 3, resetsAt: '2026-11-24T00:00:00.000Z' },
    { amount: '1.00', window: 'day', service: 'demo-weather', spent: '0.00', remaining: '1.00', resetsAt: '2026-11-24T00:00:00.000Z' },
    { amount: '3.00', window: '7d', recipient: OTHER, spent: '0.50', remaining: '2.50', resetsAt: null },
    { amount: '8.00', window: '7d', service: 'forecast-api', spent: '4.00', remaining: '4.00', resetsAt: null },
  ],
};

const payment = heldPaymentOf(approval(asked))!;
const steps = (heldAt = NOW - HOUR / 2, read = answer, timeZone = 'UTC') => budgetSteps(payment, read, heldAt, NOW, timeZone);

describe('a held payment’s request', () => {
  it('is read from a payment approval, and nothing else is one', () => {
    expect(payment).toEqual({
      service: 'forecast-api',
      amount: 4_000_000n,
      recipient: RECIPIENT,
      // A request from before rails were recorded was paid on Solana.
      rail: 'sol',
      description: 'a week of forecasts',
      reason: asked.reason,
      purchase: null,
    });
    expect(heldPaymentOf(approval({ ...asked, rail: 'base' }))?.rail).toBe('base');
    // An image says what it buys.
    const image = { kind: 'image', modelId: 'sdxl', resolution: '1k', prompt: 'a lighthouse at dusk' };
    expect(heldPaymentOf(approval({ ...asked, purchase: image }))?.purchase).toBe('an image: sdxl, 1k, “a lighthouse at dusk”');
    expect(heldPaymentOf(approval({ ...asked, description: ' ', reason: undefined }))).toMatchObject({ description: null, reason: null });
    expect(heldPaymentOf({ kind: 'allocate', request: { amount: '4.00' } })).toBeNull();
    expect(heldPaymentOf(approval({ ...asked, amount: 'lots' }))).toBeNull();
    expect(heldPaymentOf(approval({ ...asked, recipient: undefined }))).toBeNull();
  });
});

describe('its budgets before and after it: the held payment already counts', () => {
  it('the daily budget and each budget it falls under (unscoped, its service, its recipient), not the others', () => {
    expect(steps().map((step) => [step.words, stepWords(step)])).toEqual([
      ['10.00 USDC in any 24 hours (daily budget)', '0.25 → 4.25 of 10.00 USDC'],
      ['20.00 USDC a month', '1.25 → 5.25 of 20.00 USDC'],
      [`5 payments a day to ${RECIPIENT}`, '1 → 2 of 5 payments'],
      ['8.00 USDC in any 7 days for forecast-api', '0.00 → 4.00 of 8.00 USDC'],
    ]);
  });

  it("another payment held beside it is said in the daily budget's before: not paid, so the sum is not read as spending (helper 170)", () => {
    const both = { ...answer, spent24h: '5.25', held24h: '5.00', budgets: undefined };
    expect(steps(NOW - HOUR / 2, both).map(stepWords)).toEqual(['1.25 (1.00 of it other payments held for your yes) → 5.25 of 10.00 USDC']);
  });

  it('no budget besides the daily one: that one alone; before is never below nothing', () => {
    const bare = { ...answer, spent24h: '3.00', budgets: undefined };
    expect(steps(NOW - HOUR / 2, bare)).toEqual([
      { words: '10.00 USDC in any 24 hours (daily budget)', counts: 'amount', before: 0n, after: 4_000_000n, limit: 10_000_000n },
    ]);
  });

  it('a window that no longer reaches back to the hold holds none of it: approved, it counts there as made now', () => {
    const hourly: PolicyResponse = {
      ...answer,
      budgets: [
        { count: 3, window: 'hour', made: 1, remaining: 2, resetsAt: null },
        { amount: '6.00', window: 'hour', spent: '0.50', remaining: '5.50', resetsAt: null },
      ],
    };
    // Held half an hour ago: both hour windows hold it.
    expect(
      steps(NOW - HOUR / 2, hourly)
        .slice(1)
        .map(stepWords),
    ).toEqual(['0 → 1 of 3 payments', '0.00 → 4.00 of 6.00 USDC']);
    // Held two hours ago: neither does any more.
    expect(
      steps(NOW - 2 * HOUR, hourly)
        .slice(1)
        .map(stepWords),
    ).toEqual(['1 → 2 of 3 payments', '0.50 → 4.50 of 6.00 USDC']);
  });

  it('a calendar day is the owner’s zone’s: held before midnight there, today’s budget holds none of it', () => {
    const daily: PolicyResponse = {
      ...answer,
      budgets: [{ amount: '9.00', window: 'day', spent: '4.50', remaining: '4.50', resetsAt: '2026-11-24T10:00:00.000Z' }],
    };
    // 09:30 UTC is 23:30 at Kiritimati (UTC+14), the day before NOW's (02:00 there); in UTC the same day.
    const heldAt = Date.parse('2026-11-23T09:30:00Z');
    expect(stepWords(steps(heldAt, daily, 'Pacific/Kiritimati')[1]!)).toBe('4.50 → 8.50 of 9.00 USDC');
    expect(stepWords(steps(heldAt, daily, 'UTC')[1]!)).toBe('0.50 → 4.50 of 9.00 USDC');
  });

  it('says where a step ends against its limit, and when it would pass it (approving it would be refused)', () => {
    const [daily, monthly, count] = steps();
    expect(shareAfter(daily!)).toBeCloseTo(0.425);
    expect(shareAfter(count!)).toBeCloseTo(0.4);
    expect(passesLimit(monthly!)).toBe(false);
    const over: BudgetStep = { words: 'x', counts: 'amount', before: 9_000_000n, after: 10_000_001n, limit: 10_000_000n };
    expect(passesLimit(over)).toBe(true);
    expect(passesLimit({ words: 'y', counts: 'payments', before: 5, after: 5, limit: 5 })).toBe(false);
    expect(passesLimit({ words: 'y', counts: 'payments', before: 5, after: 6, limit: 5 })).toBe(true);
    expect(stepWords({ words: 'z', counts: 'payments', before: 0, after: 1, limit: 1 })).toBe('0 → 1 of 1 payment');
    expect(stepWords({ words: 'z', counts: 'amount', before: 999_000_000n, after: 1_004_000_000n, limit: 2_000_000_000n })).toBe(
      '999.00 → 1,004.00 of 2,000.00 USDC',
    );
  });
});

describe('how a decided payment ended, in words', () => {
  const decided = (extra: Partial<Approval>) => approval(asked, { decidedAt: new Date(NOW).toISOString(), ...extra });
  it('paid (which payment), sending, or why not: nothing was paid unless it says so', () => {
    const result = { paymentId: 'pay_1', status: 'confirmed', amount: '4.00', txSignature: 'sig' };
    expect(outcomeWords(decided({ status: 'approved', result }))).toBe('Paid 4.00 USDC (payment pay_1)');
    expect(outcomeWords(decided({ status: 'approved', result: { ...result, status: 'pending' } }))).toBe(
      'Approved: sending 4.00 USDC (payment pay_1)',
    );
    expect(outcomeWords(decided({ status: 'approved' }))).toBe('Approved 4.00 USDC');
    // An image: paid, and its task made; an x402 purchase: approved, the agent buys it now, paid once.
    expect(outcomeWords(decided({ status: 'approved', result: { taskId: 'tsk_1', status: 'queued', paymentId: 'pay_1' } }))).toBe(
      'Paid 4.00 USDC (payment pay_1): its image is made as task tsk_1',
    );
    expect(
      outcomeWords(decided({ status: 'approved', result: { paymentId: 'pay_1', protocol: 'x402', status: 'approved', amount: '4.00' } })),
    ).toBe("Approved 4.00 USDC: the agent now buys it with the seller's fresh terms, paid once (payment pay_1)");
    expect(outcomeWords(decided({ status: 'failed', error: 'this payment would pass the daily budget' }))).toBe(
      'Approved, but not paid: this payment would pass the daily budget',
    );
    expect(outcomeWords(decided({ status: 'denied' }))).toBe('You denied it: nothing was paid');
    expect(outcomeWords(decided({ status: 'expired' }))).toBe('Nobody answered in time: nothing was paid');
    expect(outcomeWords(decided({ status: 'withdrawn' }))).toBe('Withdrawn (the agent was stopped, or stopped waiting): nothing was paid');
  });
  it('another kind says its error, or nothing', () => {
    expect(outcomeWords({ kind: 'allocate', status: 'failed', request: {}, error: 'not enough in the treasury' })).toBe(
      'not enough in the treasury',
    );
    expect(outcomeWords({ kind: 'allocate', status: 'approved', request: {} })).toBeNull();
  });
});
