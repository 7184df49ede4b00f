import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { replayPolicy } from '../../../../../server/core/policy/replay.js';
import { firstRefusal } from '../../../../../server/core/policy/rules.js';
import { limitsOnly } from '../../../../../server/wire/policy/policy.js';
import { budgetRefusal } from '../../../../../server/core/policy/budgets.js';
import { inScope } from '../../../../../server/wire/policy/budget.js';
import type { Budget } from '../../../../../server/wire/policy/budget.js';
import { windowSpan } from '../../../../../server/wire/policy/windows.js';
import type { CountedPayment } from '../../../../../server/core/ports/store.js';
import type { Policy } from '../../../../../server/wire/policy/policy.js';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const A = randomAddress();
const B = randomAddress();
const START = Date.UTC(2026, 9, 1);

/** The replay written plainly: every sum by going through every payment let through so far. */
function plainReplay(
  policy: Policy,
  payments: CountedPayment[],
  judgedFrom: number,
  timeZone: string,
  inRegistry: (id: string) => boolean,
) {
  const made: CountedPayment[] = [];
  const refused: string[] = [];
  for (const payment of payments) {
    const asked = {
      serviceId: payment.serviceId,
      inRegistry: inRegistry(payment.serviceId),
      recipient: payment.recipient,
      amount: payment.amount,
    };
    if (payment.createdAt >= judgedFrom) {
      const now = payment.createdAt;
      const spentInWindow = made.filter((p) => p.createdAt > now - DAY).reduce((sum, p) => sum + p.amount, 0n);
      const lastPaymentAt = made.length === 0 ? null : made[made.length - 1]!.createdAt;
      const usages = policy.budgets
        .filter((budget) => inScope(budget.scope, asked))
        .map((budget) => {
          const span = windowSpan(budget.window, now, timeZone);
          const held = made.filter((p) => (span.from === null || p.createdAt >= span.from) && inScope(budget.scope, p));
          return { budget, spent: { amount: held.reduce((sum, p) => sum + p.amount, 0n), payments: held.length }, ...span };
        });
      const refusal =
        firstRefusal(policy, { now, lastPaymentAt, spentInWindow, timeZone: () => timeZone }, asked) ??
        budgetRefusal(usages, asked, now, timeZone);
      if (refusal !== null) {
        refused.push(`${payment.id} ${refusal.code}: ${refusal.message}`);
        continue;
      }
    }
    made.push(payment);
  }
  return refused;
}

describe('a policy replayed on the past', () => {
  it('refuses exactly what the pay path would have, each sum as if summed over every payment let through', () => {
    const inRegistry = (id: string) => id === 'demo-weather';
    const budget = fc.record({
      amount: fc.option(fc.bigInt({ min: 1n, max: 400_000n }), { nil: null }),
      window: fc.constantFrom('hour', '24h', '7d', '30d', 'day', 'week', 'month', 'lifetime' as const),
      scope: fc.constantFrom(
        { kind: 'all' as const },
        { kind: 'service' as const, serviceId: 'demo-weather' },
        { kind: 'recipient' as const, address: B },
      ),
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: 60 * 24 * 6 }),
            amount: fc.bigInt({ min: 1n, max: 50_000n }),
            to: fc.constantFrom('weather', 'a', 'b'),
          }),
          { minLength: 60, maxLength: 160 },
        ),
        fc.record({
          dailyBudget: fc.bigInt({ min: 50_000n, max: 800_000n }),
          maxPerPayment: fc.bigInt({ min: 20_000n, max: 100_000n }),
          cooldownSeconds: fc.constantFrom(0, 0, 1200),
          allowedServices: fc.constantFrom<string[]>([], [], [], ['demo-weather'], [A]),
          budgets: fc
            .array(budget, { minLength: 1, maxLength: 4 })
            .map((list) =>
              list.map((b): Budget => ({ amount: b.amount, count: b.amount === null ? 3 : null, window: b.window, scope: b.scope })),
            ),
        }),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'),
        (drawn, limits, timeZone) => {
          const payments: CountedPayment[] = drawn
            .map((p, i) => ({
              id: `pay_${i}`,
              serviceId: p.to === 'weather' ? 'demo-weather' : 'forecast',
              recipient: p.to === 'b' ? B : A,
              amount: p.amount,
              // On a 10-minute grid over 60 days (midnights and window edges fall on payments), so windows of every size hold several.
              createdAt: START + p.at * (HOUR / 6),
              rail: p.to === 'b' ? ('base' as const) : ('sol' as const),
            }))
            .sort((a, b) => a.createdAt - b.createdAt);
          const policy: Policy = { ...limits, expiresAt: null, warnAt: [80, 95], breaker: null, askAbove: null, askNewRecipient: false };
          const judgedFrom = START + 30 * DAY;
          const replayed = replayPolicy(policy, payments, judgedFrom, { timeZone, inRegistry });
          const expected = plainReplay(policy, payments, judgedFrom, timeZone, inRegistry);
          expect(replayed.wouldRefuse.payments).toBe(expected.length);
          expect(replayed.payments).toBe(payments.filter((p) => p.createdAt >= judgedFrom).length);
          expect(replayed.wouldRefuse.examples.map((example) => `${example.paymentId} ${example.code}: ${example.message}`)).toEqual(
            expected.slice(0, 5),
          );
          const byCode: Record<string, number> = {};
          for (const line of expected) {
            const code = line.split(' ')[1]!.replace(':', '');
            byCode[code] = (byCode[code] ?? 0) + 1;
          }
          expect(replayed.wouldRefuse.byCode).toEqual(byCode);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('judges a payment whose sum would pass 2^53 micro-USDC in bigints, as the pay path does', () => {
    // Its lifetime budget is exactly 2^53: with the payment, 2^53 + 1 passes it (as a number, 2^53, would not).
    const payments: CountedPayment[] = [
      { id: 'pay_0', serviceId: 'forecast', recipient: A, amount: 2n ** 53n - 10n, createdAt: START, rail: 'sol' },
      { id: 'pay_1', serviceId: 'forecast', recipient: A, amount: 11n, createdAt: START + 5 * DAY, rail: 'base' },
    ];
    const policy: Policy = {
      ...limitsOnly(2n ** 60n, 2n ** 60n),
      budgets: [{ amount: 2n ** 53n, count: null, window: 'lifetime', scope: { kind: 'all' } }],
    };
    const replayed = replayPolicy(policy, payments, START + DAY, { timeZone: 'UTC', inRegistry: () => false });
    expect(replayed.wouldRefuse.byCode).toEqual({ budget_exceeded: 1 });
    expect(replayed.wouldRefuse.examples[0]).toMatchObject({ paymentId: 'pay_1', rail: 'base' });
  });

  it('answers nothing rather than a wrong sum past exact arithmetic (2^53 micro-USDC in one scope)', () => {
    const huge = 2n ** 52n;
    const payments: CountedPayment[] = [0, 1, 2].map((i) => ({
      id: `pay_${i}`,
      serviceId: 'forecast',
      recipient: A,
      amount: huge,
      createdAt: START + i * HOUR,
      rail: 'sol' as const,
    }));
    const policy = limitsOnly(huge * 4n, huge);
    expect(() => replayPolicy(policy, payments, START, { timeZone: 'UTC', inRegistry: () => false })).toThrow(/2\^53/);
  });
});

let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('what-if on the %s ledger', (store) => {
  it('says what a tighter policy would have refused of the last 30 days, reads only, and refuses what a save refuses', async () => {
    core = await coreEngine({ store, treasury: '1000' });
    const { engine, chain, asAgent, asOwner, fundedAgent, advance } = core;
    chain.mint(A, 1n);
    await fundedAgent('alpha', '50', { dailyBudget: '100', maxPerPayment: '5' });
    // 40 days, a payment of 1.00 every 12 hours: the first 20 of them older than the 30 days tried.
    for (let i = 0; i < 80; i += 1) {
      await core.paid('alpha', { service: 'forecast-api', recipient: A, amount: i % 10 === 0 ? '3' : '0.10' });
      advance(12 * HOUR);
    }
    const before = engine.readPolicy(asOwner, 'alpha');
    const tried = await engine.policyWhatIf(asOwner, 'alpha', { maxPerPayment: '2', budgets: [{ count: 1, window: 'day' }] });
    expect(tried.payments).toBe(60);
    // Each day two payments: the second is over the day's count; the 3.00 ones are over the max (when first in their day).
    expect(tried.wouldRefuse.byCode).toEqual({ max_per_payment_exceeded: 6, budget_exceeded: expect.any(Number) });
    expect(tried.wouldRefuse.payments).toBe(6 + tried.wouldRefuse.byCode.budget_exceeded!);
    expect(tried.wouldRefuse.examples).toHaveLength(5);
    expect(tried.wouldRefuse.examples[0]).toMatchObject({ service: 'forecast-api', code: expect.any(String), message: expect.any(String) });
    expect(engine.readPolicy(asOwner, 'alpha')).toEqual(before);
    // The same checks as a save: an unknown service, an end in the past.
    await expect(engine.policyWhatIf(asOwner, 'alpha', { allowedServices: ['no-such-thing'] })).rejects.toThrow(/allow nothing/);
    await expect(engine.policyWhatIf(asOwner, 'alpha', { expiresAt: '2020-01-01' })).rejects.toThrow(/in the past/);
    // Looser changes refuse nothing.
    expect((await engine.policyWhatIf(asAgent('alpha'), 'alpha', { maxPerPayment: '10' })).wouldRefuse).toMatchObject({
      payments: 0,
      amount: '0.00',
    });
    await expectCofferError(engine.policyWhatIf(asAgent('alpha'), 'beta', {}), 'wrong_agent');
  });

  it('says what a threshold would have held for the owner (counted as made), apart from what it would have refused', async () => {
    core = await coreEngine({ store, treasury: '1000' });
    const { engine, chain, asOwner, fundedAgent, advance } = core;
    chain.mint(A, 1n);
    chain.mint(B, 1n);
    await fundedAgent('alpha', '50', { dailyBudget: '100', maxPerPayment: '5' });
    // Ten days: each a 3.00 payment to A, then 0.10 to B on the first five days only.
    for (let day = 0; day < 10; day += 1) {
      await core.paid('alpha', { service: 'forecast-api', recipient: A, amount: '3' });
      if (day < 5) await core.paid('alpha', { service: 'forecast-api', recipient: B, amount: '0.10' });
      advance(DAY);
    }
    const asked = await engine.policyWhatIf(asOwner, 'alpha', { askAbove: '1' });
    expect(asked.wouldRefuse.payments).toBe(0);
    expect(asked.wouldHold).toMatchObject({ payments: 10, amount: '30.00', byCode: { ask_above: 10 } });
    expect(asked.wouldHold.examples[0]).toMatchObject({
      amount: '3.00',
      code: 'ask_above',
      message: expect.stringContaining('above 1.00'),
    });
    // New recipients: only the first payment to each.
    expect((await engine.policyWhatIf(asOwner, 'alpha', { askNewRecipient: true })).wouldHold).toMatchObject({
      payments: 2,
      byCode: { new_recipient: 2 },
    });
    // Held ones count as made: with a 3.05 a day budget the 0.10 ones are refused after the held 3.00.
    const both = await engine.policyWhatIf(asOwner, 'alpha', { askAbove: '1', dailyBudget: '3.05' });
    expect(both.wouldHold.payments).toBe(10);
    expect(both.wouldRefuse).toMatchObject({ payments: 5, byCode: { daily_budget_exceeded: 5 } });
  });
});
