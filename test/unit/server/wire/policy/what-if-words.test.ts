import { describe, expect, it } from 'vitest';
import {
  asksOwner,
  byCodeWords,
  holdWords,
  refusalCodeWords,
  unchangedWords,
  whatIfWords,
} from '../../../../../server/wire/policy/what-if-words.js';

const refusing = (payments: number, amount: string, byCode: Record<string, number>) => ({
  payments: Object.values(byCode).reduce((a, b) => a + b, 0),
  amount,
  byCode,
  examples: [],
});

describe('what-if in words', () => {
  it('says how many of how many, how much, and why, the most first', () => {
    expect(whatIfWords({ payments: 412, wouldRefuse: refusing(412, '4.20', { max_per_payment_exceeded: 6, budget_exceeded: 31 }) })).toBe(
      'Over the last 30 days (412 payments) this would have refused 37 (4.20 USDC): 31 over a budget, 6 over the max per payment.',
    );
  });

  it('says none, one, and no payments at all in their own words', () => {
    expect(whatIfWords({ payments: 412, wouldRefuse: refusing(412, '0.00', {}) })).toBe(
      'Over the last 30 days this would have refused none of the 412 payments.',
    );
    expect(whatIfWords({ payments: 1, wouldRefuse: refusing(1, '0.25', { daily_budget_exceeded: 1 }) })).toBe(
      'Over the last 30 days (1 payment) this would have refused 1 (0.25 USDC): 1 over the daily budget.',
    );
    expect(whatIfWords({ payments: 0, wouldRefuse: refusing(0, '0.00', {}) })).toMatch(/no payments in the last 30 days/);
    // Not "none of the 1 payment".
    expect(whatIfWords({ payments: 1, wouldRefuse: refusing(1, '0.00', {}) })).toBe(
      'Over the last 30 days this would not have refused its one payment.',
    );
  });

  it('groups thousands in counts and amounts, never rounding the amount', () => {
    expect(whatIfWords({ payments: 10_000, wouldRefuse: refusing(10_000, '1234.567891', { cooldown_active: 2_500 }) })).toBe(
      'Over the last 30 days (10,000 payments) this would have refused 2,500 (1,234.567891 USDC): 2,500 within the cooldown.',
    );
  });

  it('orders equal counts by the policy’s own order, and says an unknown code as words', () => {
    expect(byCodeWords({ budget_exceeded: 2, service_not_allowed: 2, policy_expired: 5, zero_here: 0 })).toBe(
      '5 after the policy’s end, 2 to a service not allowed, 2 over a budget',
    );
    expect(refusalCodeWords('price_above_registry')).toBe('price above registry');
    expect(refusalCodeWords('daily_budget_exceeded')).toBe('over the daily budget');
  });
});

describe('what a change that asks first would have held', () => {
  const holding = (byCode: Record<string, number>, amount = '0.00') => ({
    payments: Object.values(byCode).reduce((a, b) => a + b, 0),
    amount,
    byCode,
    examples: [],
  });
  it('says how many and how much, by reason, the most first', () => {
    expect(holdWords({ payments: 412, wouldHold: holding({ new_recipient: 1, ask_above: 1_200 }, '6543.21') }, true)).toBe(
      '1,201 of those it let through (6,543.21 USDC) would have waited for your yes: 1,200 above the ask-above amount, 1 to a new recipient.',
    );
  });
  it('says none only where the change asks, and nothing where there were no payments', () => {
    expect(holdWords({ payments: 412, wouldHold: holding({}) }, true)).toBe('None of them would have waited for your yes.');
    expect(holdWords({ payments: 412, wouldHold: holding({}) }, false)).toBeNull();
    expect(holdWords({ payments: 0, wouldHold: holding({}) }, true)).toBeNull();
    // Said to an agent trying its own change: the yes is the owner's.
    expect(holdWords({ payments: 412, wouldHold: holding({}) }, true, 'the owner')).toBe(
      "None of them would have waited for the owner's yes.",
    );
    expect(holdWords({ payments: 412, wouldHold: holding({ ask_above: 2 }, '0.50') }, false, 'the owner')).toBe(
      "2 of those it let through (0.50 USDC) would have waited for the owner's yes: 2 above the ask-above amount.",
    );
  });
});

describe('a change that changes nothing, plainly', () => {
  const of = (payments: number, refused: number, held: number) => ({
    payments,
    wouldRefuse: { payments: refused, amount: '0.00', byCode: {}, examples: [] },
    wouldHold: { payments: held, amount: '0.00', byCode: {}, examples: [] },
  });
  it('says it refused and held none of how many', () => {
    expect(unchangedWords(of(412, 0, 0))).toBe('It would have refused none of its 412 payments and held none.');
    expect(unchangedWords(of(1, 0, 0))).toBe('It would have neither refused nor held its one payment.');
  });
  it('says nothing where it refuses or holds one, or there were no payments', () => {
    expect(unchangedWords(of(412, 1, 0))).toBeNull();
    expect(unchangedWords(of(412, 0, 1))).toBeNull();
    expect(unchangedWords(of(0, 0, 0))).toBeNull();
  });
});

describe('whether a change asks the owner first', () => {
  it('asks with a threshold (0 included) or new recipients asked about; not with none, or neither sent', () => {
    expect(asksOwner({ askAbove: '2' })).toBe(true);
    expect(asksOwner({ askAbove: '0' })).toBe(true);
    expect(asksOwner({ askNewRecipient: true })).toBe(true);
    expect(asksOwner({ askAbove: null, askNewRecipient: false })).toBe(false);
    expect(asksOwner({ dailyBudget: '50' } as Record<string, unknown>)).toBe(false);
  });
});
