import { describe, expect, it } from 'vitest';
import { windowSpan } from '../../../../../server/wire/policy/windows.js';
import { budgetRefusal } from '../../../../../server/core/policy/budgets.js';
import { inScope } from '../../../../../server/wire/policy/budget.js';
import { budgetsTighten, describeBudget, type Budget } from '../../../../../server/wire/policy/budget.js';

const usdc = (text: string) => BigInt(Math.round(Number(text) * 1_000_000));
const now = Date.parse('2026-11-23T12:00:00Z');
const SELLER = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const monthly: Budget = { amount: usdc('50'), count: null, window: 'month', scope: { kind: 'all' } };
const weatherDaily: Budget = { amount: usdc('2'), count: null, window: 'day', scope: { kind: 'service', serviceId: 'demo-weather' } };
const toSeller: Budget = { amount: usdc('1'), count: null, window: '7d', scope: { kind: 'recipient', address: SELLER } };
const forever: Budget = { amount: usdc('100'), count: null, window: 'lifetime', scope: { kind: 'all' } };
/** What a budget spent: an amount in USDC, and a number of payments. */
const spent = (text: string, payments = 0) => ({ amount: usdc(text), payments });
/** A budget's usage now, its reset read from its window in `timeZone`. */
const usage = (budget: Budget, text: string, timeZone = 'UTC') => ({
  budget,
  spent: spent(text),
  ...windowSpan(budget.window, now, timeZone),
});
const weather = (amount: string) => ({ serviceId: 'demo-weather', recipient: SELLER, amount: usdc(amount) });

describe('budgets', () => {
  it('a payment falls under every budget, its service id’s, and its recipient’s', () => {
    const payment = weather('1');
    expect([monthly, weatherDaily, toSeller].map((budget) => inScope(budget.scope, payment))).toEqual([true, true, true]);
    // Recorded under the id (its service no longer listed, the id the agent's label): the ledger counts it there, and so is it judged.
    const labelled = { serviceId: 'demo-weather', recipient: 'someone-else' };
    expect([monthly, weatherDaily, toSeller].map((budget) => inScope(budget.scope, labelled))).toEqual([true, true, false]);
    const another = { serviceId: 'my-weather', recipient: SELLER };
    expect([monthly, weatherDaily, toSeller].map((budget) => inScope(budget.scope, another))).toEqual([true, false, true]);
  });

  it('a payment that fits every budget it falls under passes, to the last micro-USDC', () => {
    const usages = [usage(monthly, '49'), usage(weatherDaily, '1')];
    expect(budgetRefusal(usages, weather('1'), now, 'UTC')).toBeNull();
    // Another service's budget does not hold this payment, however spent it is.
    const other: Budget = { ...weatherDaily, scope: { kind: 'service', serviceId: 'image-generate' } };
    expect(budgetRefusal([usage(other, '2')], weather('1'), now, 'UTC')).toBeNull();
  });

  it('the first budget passed is named, with what it spent and when it starts afresh (Retry-After for a calendar window)', () => {
    const refusal = budgetRefusal(
      [usage(monthly, '10', 'Europe/Berlin'), usage(weatherDaily, '1.5', 'Europe/Berlin'), usage(toSeller, '0.9', 'Europe/Berlin')],
      weather('1'),
      now,
      'Europe/Berlin',
    );
    expect(refusal).toMatchObject({ code: 'budget_exceeded', retryAfterSeconds: 11 * 3600 });
    expect(refusal?.message).toBe(
      'this payment would pass the budget of 2.00 USDC a day for demo-weather: 1.50 USDC spent; it starts afresh at 2026-11-24 00:00 Europe/Berlin (2026-11-23T23:00:00.000Z)',
    );
  });

  it('a rolling budget frees as its payments age; a lifetime budget never', () => {
    const rolling = budgetRefusal([usage(toSeller, '0.5')], weather('0.6'), now, 'UTC');
    expect(rolling).toMatchObject({ code: 'budget_exceeded', retryAfterSeconds: undefined });
    expect(rolling?.message).toMatch(/1\.00 USDC in any 7 days to 93ug\S+: 0\.50 USDC spent; it frees as its payments grow older/);
    expect(budgetRefusal([usage(forever, '99.5')], weather('1'), now, 'UTC')?.message).toMatch(/never starts afresh$/);
  });

  it('says a budget in words', () => {
    expect(describeBudget(monthly)).toBe('50.00 USDC a month');
    expect(describeBudget({ ...forever, amount: usdc('0.005') })).toBe('0.005 USDC in all');
  });

  it('budgets tighten when every one in force stays, over the same window and scope, at most as large', () => {
    expect(budgetsTighten([], [monthly])).toBe(true);
    expect(budgetsTighten([monthly], [{ ...monthly, amount: monthly.amount! - 1n }, weatherDaily])).toBe(true);
    expect(budgetsTighten([monthly], [])).toBe(false);
    expect(budgetsTighten([monthly], [{ ...monthly, amount: monthly.amount! + 1n }])).toBe(false);
    expect(budgetsTighten([monthly], [{ ...monthly, window: 'week' }])).toBe(false);
    expect(budgetsTighten([weatherDaily], [{ ...weatherDaily, scope: { kind: 'service', serviceId: 'other' } }])).toBe(false);
    expect(budgetsTighten([toSeller], [toSeller])).toBe(true);
  });
});
