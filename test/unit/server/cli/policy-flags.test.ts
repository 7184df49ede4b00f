import { describe, expect, it } from 'vitest';
import { PolicyFlagError, namingFlags, policyUpdateOf } from '../../../../server/cli/policy-flags.js';
import { CofferApiError } from '../../../../server/client/client-error.js';
import { policyUpdateSchema } from '../../../../server/wire/schemas.js';

const ADDRESS = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';

describe("coffer policy's flags", () => {
  it('read as the update the API takes, which its schema accepts', () => {
    const update = policyUpdateOf({
      budget: ['50/month', '2/day:demo-weather', `1.5/7d:${ADDRESS}`],
      count: ['30/hour', '100/day:demo-weather'],
      expires: '2026-12-31',
      'warn-at': '50, 90%',
      breaker: ['5/10m', '50%/2h'],
      daily: '5',
      max: '0.50',
      cooldown: '30',
      allow: ['demo-weather', ADDRESS],
    });
    expect(update).toEqual({
      dailyBudget: '5',
      maxPerPayment: '0.50',
      cooldownSeconds: 30,
      allowedServices: ['demo-weather', ADDRESS],
      budgets: [
        { amount: '50', window: 'month' },
        { amount: '2', window: 'day', service: 'demo-weather' },
        { amount: '1.5', window: '7d', recipient: ADDRESS },
        { count: 30, window: 'hour' },
        { count: 100, window: 'day', service: 'demo-weather' },
      ],
      expiresAt: '2026-12-31',
      warnAt: [50, 90],
      breaker: { refusals: { count: 5, minutes: 10 }, spending: { percent: 50, minutes: 120 } },
    });
    expect(policyUpdateSchema.safeParse(update).success).toBe(true);
  });

  it('say none to take a list, an end, the warnings or the breaker away; name only what they change', () => {
    expect(policyUpdateOf({ budget: ['none'], expires: 'never', 'warn-at': 'none', breaker: ['off'], allow: ['any'] })).toEqual({
      budgets: [],
      expiresAt: null,
      warnAt: [],
      breaker: null,
      allowedServices: [],
    });
    expect(policyUpdateOf({})).toEqual({});
  });

  it('an allowed service named twice is one (the change says it once)', () => {
    expect(policyUpdateOf({ allow: ['demo-weather', 'demo-quotes', 'demo-weather'] })).toEqual({
      allowedServices: ['demo-weather', 'demo-quotes'],
    });
  });

  it.each([
    [{ budget: ['50'] }, /--budget 50: write AMOUNT\/WINDOW/],
    [{ budget: ['50/fortnight'] }, /"fortnight" is not a window; one of hour, 24h, 7d, 30d, day, week, month, lifetime/],
    [{ count: ['many/hour'] }, /"many" is not a whole number of payments/],
    [{ budget: ['none', '5/day'] }, /goes alone/],
    [{ breaker: ['5 per 10m'] }, /--breaker 5 per 10m: write N\/TIME/],
    [{ breaker: ['5/soon'] }, /"soon" is not a time/],
    [{ breaker: ['none', '5/10m'] }, /goes alone/],
    [{ breaker: ['5/10m', '3/5m'] }, /one rule on refusals .* and one on spending/],
    [{ allow: ['any', 'demo-weather'] }, /--allow any .* goes alone/],
    [{ 'warn-at': '80,high' }, /whole percents/],
    [{ cooldown: '1.5' }, /whole seconds/],
  ])('refuse %j in words that show the form', (flags, words) => {
    expect(() => policyUpdateOf(flags)).toThrow(PolicyFlagError);
    expect(() => policyUpdateOf(flags)).toThrow(words);
  });

  it("what only the wire's schema judges is said with the flag and what was typed, not the API's field", () => {
    const said = (flags: Parameters<typeof policyUpdateOf>[0]) => {
      try {
        policyUpdateOf(flags);
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyFlagError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(said({ breaker: ['150%/10m'] })).toBe('--breaker 150%/10m: percent must be at most 100');
    expect(said({ 'warn-at': '80,150' })).toBe('--warn-at 80,150: each share must be at most 100');
    expect(said({ expires: '2026-13-45' })).toBe(
      '--expires 2026-13-45: must be a day ("2026-12-31") or a time with its offset ("2026-12-31T18:00:00Z"), or never',
    );
    expect(said({ breaker: ['3/2000m'] })).toBe('--breaker 3/2000m: minutes must be at most 1,440 (a day)');
  });

  // Helper 192: a time to the minute was refused ("2026-12-05T10:00Z"), as the dashboard's clock time is not.
  it('--expires takes a time to the minute, with its offset, as well as to the second', () => {
    for (const time of ['2026-12-05T10:00Z', '2026-12-05T10:00+01:00', '2026-12-05T10:00:30Z']) {
      const update = policyUpdateOf({ expires: time });
      expect(update).toEqual({ expiresAt: time });
      expect(policyUpdateSchema.safeParse(update).success).toBe(true);
    }
    // Without its offset it stays refused: whose 10:00 would it be?
    expect(policyUpdateSchema.safeParse({ expiresAt: '2026-12-05T10:00' }).success).toBe(false);
  });

  it("a budget scoped to a Base recipient's EVM address holds that recipient, as a Solana address does", () => {
    const evm = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(policyUpdateOf({ budget: [`1/day:${evm}`] }).budgets).toEqual([{ amount: '1', window: 'day', recipient: evm }]);
  });

  it('ask the owner above an amount, or before a new recipient; none and no take it away', () => {
    const update = policyUpdateOf({ 'ask-above': '5', 'ask-new-recipient': 'yes' });
    expect(update).toEqual({ askAbove: '5', askNewRecipient: true });
    expect(policyUpdateSchema.safeParse(update).success).toBe(true);
    expect(policyUpdateOf({ 'ask-above': 'none', 'ask-new-recipient': 'No' })).toEqual({ askAbove: null, askNewRecipient: false });
    expect(() => policyUpdateOf({ 'ask-new-recipient': 'maybe' })).toThrow(PolicyFlagError);
  });

  it.each([
    [{ budget: ['-5/month'] }, /^--budget -5\/month: the amount must be a positive decimal of USDC .*such as 50 or 0\.50$/],
    [{ budget: ['0/day'] }, /^--budget 0\/day: the amount must be a positive decimal of USDC/],
    [{ budget: ['five/day'] }, /^--budget five\/day: the amount must be a positive decimal of USDC/],
    [{ daily: '-5' }, /^--daily -5: the amount must be a positive decimal of USDC/],
    [{ max: '0.0000001' }, /^--max 0\.0000001: the amount must be a positive decimal of USDC \(at most 6 decimals/],
    [{ 'ask-above': '-1' }, /^--ask-above -1: the amount must be a decimal of USDC, 0 or more .*or none$/],
  ])('refuse an amount that is none (%j), naming the flag', (flags, words) => {
    expect(() => policyUpdateOf(flags)).toThrow(PolicyFlagError);
    expect(() => policyUpdateOf(flags)).toThrow(words);
  });

  it('leave the rest to the server: a budget above the daily one passes here', () => {
    const update = policyUpdateOf({ budget: ['50/day'], daily: '5', 'ask-above': '0' });
    expect(update).toEqual({ budgets: [{ amount: '50', window: 'day' }], dailyBudget: '5', askAbove: '0' });
    expect(policyUpdateSchema.safeParse(update).success).toBe(true);
  });

  it("Coffer's refusal of what a flag set names the flag, whether it names the field or the field's label", () => {
    const named = (message: string) => (namingFlags(new CofferApiError(400, 'invalid_policy', message)) as Error).message;
    expect(named('allowedServices: "demo-wether" is neither a registry service id nor an address')).toBe(
      '--allow: "demo-wether" is neither a registry service id nor an address',
    );
    expect(named('Expires 2020-01-01 is in the past')).toBe('--expires 2020-01-01 is in the past');
    expect(named('Ask above (5.00 USDC) is above the max per payment')).toBe('--ask-above (5.00 USDC) is above the max per payment');
    // Words that open with no field of a flag are left as they are.
    expect(named('agent "x" is archived')).toBe('agent "x" is archived');
    expect(named('Expiresness is unknown')).toBe('Expiresness is unknown');
  });
});

describe('a refusal names the flag typed and what was typed', () => {
  const refusal = (flags: Parameters<typeof policyUpdateOf>[0]) => {
    try {
      policyUpdateOf(flags);
    } catch (error) {
      return (error as Error).message;
    }
    return null;
  };
  it('a count budget is --count, beside --budget ones; an empty service is one of --allow', () => {
    expect(refusal({ count: ['0/hour'] })).toBe('--count 0/hour: count must be at least 1');
    expect(refusal({ budget: ['5/day'], count: ['30/hour', '0/day'] })).toBe('--count 0/day: count must be at least 1');
    expect(refusal({ allow: [''] })).toMatch(/^--allow "": each service /);
  });
});
