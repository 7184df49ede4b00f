import { describe, expect, it } from 'vitest';
import { Rng } from '../../../../probe/lib/rng.js';
import {
  draftOf,
  pendingUpdate,
  validatePolicyDraft,
  type PolicyDraft,
  type PolicyUpdate,
} from '../../../../../renderer/src/lib/policy-form.js';
import { blankBudget, budgetDraftOf, BUDGET_PRESETS } from '../../../../../renderer/src/lib/budget-draft.js';
import { dateTime } from '../../../../../renderer/src/lib/time.js';
import { dayWords } from '../../../../../renderer/src/lib/time-zone.js';
import { endNamed, endWords } from '../../../../../renderer/src/lib/policy-words.js';
import { expiryOf } from '../../../../../server/wire/policy/expiry.js';
import type { Policy } from '../../../../../renderer/src/api/types.js';
import { policyUpdateSchema, type BudgetBody } from '../../../../../server/wire/schemas.js';
import { isTightening, mergePolicy, newPolicy } from '../../../../../server/wire/policy/policy.js';
import { assertAskWithinMax } from '../../../../../server/wire/policy/asks.js';
import { policyView } from '../../../../../server/wire/views.js';
import { loosenings as looseningsIn } from '../../../../../server/wire/policy/loosenings.js';

/** The dashboard's confirmation: what a change loosens, its moments as the browser writes them. */
const loosenings = (...args: [Policy, PolicyUpdate, bigint | null, string]) => looseningsIn(...args, endNamed);

/** The editor's clock: a fixed now, and the time zone this process reads local times in (as the browser does). */
const CLOCK = { now: Date.parse('2026-11-23T12:00:00Z'), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
const ZONE = CLOCK.timeZone;
const RECIPIENT = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';

const current: Policy = { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] };
const valid: PolicyDraft = draftOf(current, ZONE);

/** The server's side of an update: its schema, then the engine's merge (which throws on what it refuses). */
const serverPolicyOf = (view: Policy, update: PolicyUpdate) => {
  const base = newPolicy({ dailyBudget: view.dailyBudget, maxPerPayment: view.maxPerPayment }, CLOCK);
  const start = mergePolicy(base, policyUpdateSchema.parse({ ...view, dailyBudget: undefined, maxPerPayment: undefined }), CLOCK);
  return policyView(mergePolicy(start, policyUpdateSchema.parse(update), CLOCK));
};

const validate = (changes: Partial<PolicyDraft>, from: Policy = current) =>
  validatePolicyDraft({ ...draftOf(from, ZONE), ...changes }, from, CLOCK);

describe('the policy editor refuses exactly what the server refuses', () => {
  it('accepts a valid draft and sends only what changed', () => {
    const result = validatePolicyDraft(
      { ...valid, cooldownSeconds: ' 30 ', scope: 'only', allowedServices: ['demo-weather'] },
      current,
      CLOCK,
    );
    expect(result).toEqual({ ok: true, update: { cooldownSeconds: 30, allowedServices: ['demo-weather'] } });
  });

  it('sends nothing for a draft equal to the policy, amounts compared by value and lists as sets', () => {
    expect(validatePolicyDraft(valid, current, CLOCK)).toEqual({ ok: true, update: {} });
    const picked: Policy = { ...current, allowedServices: ['demo-weather', 'web-search'] };
    expect(validate({ dailyBudget: '10', maxPerPayment: '1.000000', allowedServices: ['web-search', 'demo-weather'] }, picked)).toEqual({
      ok: true,
      update: {},
    });
  });

  it('what is tried before saving: the update Save would send, or nothing while the draft is invalid or changes nothing', () => {
    expect(pendingUpdate({ ...valid, cooldownSeconds: '30' }, current, CLOCK)).toEqual({ cooldownSeconds: 30 });
    expect(pendingUpdate(valid, current, CLOCK)).toBeNull();
    expect(pendingUpdate({ ...valid, cooldownSeconds: 'soon' }, current, CLOCK)).toBeNull();
  });

  it.each([
    ['dailyBudget', '0'],
    ['dailyBudget', '-1'],
    ['dailyBudget', '1.0000001'],
    ['dailyBudget', 'ten'],
    ['dailyBudget', ''],
    ['maxPerPayment', '1e3'],
    ['maxPerPayment', '1000000000.01'],
    ['cooldownSeconds', '-5'],
    ['cooldownSeconds', '1.5'],
    ['cooldownSeconds', 'soon'],
    ['cooldownSeconds', '31536001'],
    ['warnAt', '0'],
    ['warnAt', '101'],
    ['warnAt', '80, ninety'],
    ['warnAt', '10, 20, 30, 40, 50, 60'],
  ] as const)('refuses %s = %j next to that field', (field, value) => {
    const result = validatePolicyDraft({ ...valid, [field]: value }, current, CLOCK);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors)).toEqual([field]);
  });

  it('accepts a budget below maxPerPayment, as the server does (cutting the budget is never refused)', () => {
    const result = validatePolicyDraft({ ...valid, dailyBudget: '2', maxPerPayment: '3' }, current, CLOCK);
    expect(result).toEqual({ ok: true, update: { dailyBudget: '2', maxPerPayment: '3' } });
    if (result.ok) expect(serverPolicyOf(current, result.update)).toMatchObject({ dailyBudget: '2.00', maxPerPayment: '3.00' });
  });

  it('agrees with the server schema on a spread of inputs', () => {
    const amounts = ['0.01', '5', '5.000001', '0.0000001', '00.5', '1,5', ' 1', '999999999.999999', '1000000000', '1000000000.000001'];
    for (const amount of amounts) {
      const editor = validatePolicyDraft({ ...valid, dailyBudget: amount, maxPerPayment: '0.000001' }, current, CLOCK).ok;
      const server = policyUpdateSchema.safeParse({ dailyBudget: amount.trim() }).success;
      expect(editor, amount).toBe(server);
    }
  });
});

describe('allowed services are an explicit choice', () => {
  it('"Any service" sends the empty list whatever was ticked; "Only these" with nothing ticked is refused, not widened to every service', () => {
    const picked: Policy = { ...current, allowedServices: ['demo-weather'] };
    expect(validate({ scope: 'any' }, picked)).toEqual({ ok: true, update: { allowedServices: [] } });
    const none = validatePolicyDraft({ ...valid, scope: 'only', allowedServices: [] }, current, CLOCK);
    expect(none).toEqual({ ok: false, errors: { allowedServices: 'Allowed services: pick at least one, or choose Any service' } });
  });
});

describe('budgets: each row validated by the server schema, the list sent whole', () => {
  const row = (budget: Partial<ReturnType<typeof blankBudget>>) => ({ ...blankBudget(), ...budget });

  it('sends a new budget as the wire has it, which the server takes as is', () => {
    const rows = [
      row({ limit: ' 50 ', window: 'month' }),
      row({ unit: 'payments', limit: '30', window: 'hour', scope: 'service', service: 'demo-weather' }),
      row({ limit: '1', window: '7d', scope: 'recipient', recipient: ` ${RECIPIENT} ` }),
    ];
    const result = validate({ budgets: rows });
    const budgets = [
      { amount: '50', window: 'month' },
      { count: 30, window: 'hour', service: 'demo-weather' },
      { amount: '1', window: '7d', recipient: RECIPIENT },
    ];
    expect(result).toEqual({ ok: true, update: { budgets } });
    if (result.ok) {
      expect(serverPolicyOf(current, result.update).budgets).toEqual([
        { amount: '50.00', window: 'month' },
        { count: 30, window: 'hour', service: 'demo-weather' },
        { amount: '1.00', window: '7d', recipient: RECIPIENT },
      ]);
    }
  });

  it('a service or address left from another scope is not sent: the budget holds what its row says', () => {
    const result = validate({ budgets: [row({ limit: '5', scope: 'all', service: 'demo-weather', recipient: RECIPIENT })] });
    expect(result).toEqual({ ok: true, update: { budgets: [{ amount: '5', window: 'day' }] } });
  });

  it.each([
    [{ limit: '0' }, 'limit', 'Budgets, item 2, amount must be a decimal number of USDC greater than 0'],
    [{ limit: '' }, 'limit', 'Budgets, item 2, amount must be'],
    [{ limit: '1.0000001' }, 'limit', 'Budgets, item 2, amount must be'],
    [{ unit: 'payments', limit: '0' }, 'limit', 'Budgets, item 2, count must be at least 1'],
    [{ unit: 'payments', limit: '2.5' }, 'limit', 'Budgets, item 2, count must be a whole number of payments'],
    [{ unit: 'payments', limit: '1000001' }, 'limit', 'Budgets, item 2, count must be at most 1,000,000'],
    [{ limit: '1', scope: 'recipient', recipient: 'not-an-address' }, 'recipient', 'Budgets, item 2, recipient is not a Solana address'],
    [{ limit: '1', scope: 'recipient', recipient: '' }, 'recipient', 'Budgets, item 2, recipient is not a Solana address'],
    [{ limit: '1', scope: 'service', service: '' }, 'service', 'Budgets, item 2, service is required'],
  ] as const)('refuses a row %j under that row, on its %s, in the server’s words', (bad, field, words) => {
    const rows = [row({ limit: '50', window: 'month' }), row(bad)];
    const result = validate({ budgets: rows });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors)).toEqual(['budgetRows']);
    expect(Object.keys(result.errors.budgetRows!)).toEqual([rows[1]!.key]);
    expect(result.errors.budgetRows![rows[1]!.key]).toMatchObject({ field });
    expect(result.errors.budgetRows![rows[1]!.key]!.message).toContain(words);
    // The server refuses the same list.
    expect(policyUpdateSchema.safeParse({ budgets: [{ amount: '50', window: 'month' }, candidateOf(bad)] }).success).toBe(false);
  });

  it('refuses a 21st budget under the list, as the server does', () => {
    const result = validate({ budgets: Array.from({ length: 21 }, () => row({ limit: '1' })) });
    expect(result).toEqual({ ok: false, errors: { budgets: 'Budgets holds at most 20 budgets' } });
  });

  it('reads the current budgets back unchanged, sends the whole list when one is removed, and the presets are what they say', () => {
    const withBudgets: Policy = {
      ...current,
      budgets: [
        { amount: '50.00', window: 'month' },
        { count: 30, window: 'hour', service: 'demo-weather' },
      ],
    };
    const draft = draftOf(withBudgets, ZONE);
    expect(validatePolicyDraft(draft, withBudgets, CLOCK)).toEqual({ ok: true, update: {} });
    expect(
      validatePolicyDraft({ ...draft, budgets: [{ ...draft.budgets[0]!, limit: '50.0' }, draft.budgets[1]!] }, withBudgets, CLOCK),
    ).toEqual({
      ok: true,
      update: {},
    });
    expect(validatePolicyDraft({ ...draft, budgets: draft.budgets.slice(1) }, withBudgets, CLOCK)).toEqual({
      ok: true,
      update: { budgets: [{ count: 30, window: 'hour', service: 'demo-weather' }] },
    });
    expect(validatePolicyDraft({ ...draft, budgets: [] }, withBudgets, CLOCK)).toEqual({ ok: true, update: { budgets: [] } });
    const presets = validate({ budgets: BUDGET_PRESETS.map((preset) => budgetDraftOf(preset.budget)) });
    expect(presets).toEqual({
      ok: true,
      update: {
        budgets: [
          { amount: '50', window: 'month' },
          { amount: '10', window: 'week' },
          { count: 30, window: 'hour' },
        ],
      },
    });
    expect(BUDGET_PRESETS.map((preset) => preset.label)).toEqual(['50 USDC a month', '10 USDC a week', '30 payments an hour']);
  });
});

/** A row as the editor sends it, for asking the schema directly. */
function candidateOf(bad: { unit?: string; limit?: string; scope?: string; service?: string; recipient?: string }): unknown {
  const limit = (bad.limit ?? '').trim();
  return {
    ...(bad.unit === 'payments' ? { count: /^\d+$/.test(limit) ? Number(limit) : Number.NaN } : { amount: limit }),
    window: 'day',
    ...(bad.scope === 'service' ? { service: bad.service } : {}),
    ...(bad.scope === 'recipient' ? { recipient: bad.recipient } : {}),
  };
}

describe('the end, the warning shares and the breaker', () => {
  it('sends a day as a day and a local time with its offset; the server ends the day at local midnight', () => {
    const day = validate({ end: { mode: 'day', day: '2026-12-31', time: '' } });
    expect(day).toEqual({ ok: true, update: { expiresAt: '2026-12-31' } });
    if (day.ok) expect(serverPolicyOf(current, day.update).expiresAt).toBe(new Date(2027, 0, 1).toISOString());
    const time = validate({ end: { mode: 'time', day: '', time: '2026-12-31T18:00' } });
    expect(time).toEqual({ ok: true, update: { expiresAt: new Date(2026, 11, 31, 18, 0).toISOString() } });
    if (time.ok) expect(serverPolicyOf(current, time.update).expiresAt).toBe(new Date(2026, 11, 31, 18, 0).toISOString());
  });

  it('refuses an end already past (the server’s words), an end not picked, and a removed end is sent as null', () => {
    const past = validate({ end: { mode: 'day', day: '2026-11-01', time: '' } });
    expect(past).toEqual({
      ok: false,
      errors: { expiresAt: 'Expires 2026-11-01 is in the past; name a later day or time, or stop the agent with its kill switch' },
    });
    expect(validate({ end: { mode: 'day', day: '', time: '' } })).toEqual({
      ok: false,
      errors: { expiresAt: 'Expires: pick a day, or choose Never' },
    });
    expect(validate({ end: { mode: 'time', day: '', time: '' } })).toEqual({
      ok: false,
      errors: { expiresAt: 'Expires: pick a day and a time, or choose Never' },
    });
    const ending: Policy = { ...current, expiresAt: new Date(2026, 11, 31, 18, 0, 30).toISOString() };
    expect(validate({ end: { mode: 'never', day: '', time: '' } }, ending)).toEqual({ ok: true, update: { expiresAt: null } });
  });

  it('reads an end back as shown (a day’s end as that day, a time to its second) and does not send it again', () => {
    const dayEnd: Policy = { ...current, expiresAt: new Date(2027, 0, 1).toISOString() };
    expect(draftOf(dayEnd, ZONE).end).toMatchObject({ mode: 'day', day: '2026-12-31' });
    expect(validate({}, dayEnd)).toEqual({ ok: true, update: {} });
    const timeEnd: Policy = { ...current, expiresAt: new Date(2026, 11, 31, 18, 0, 30).toISOString() };
    expect(draftOf(timeEnd, ZONE).end).toMatchObject({ mode: 'time', time: '2026-12-31T18:00:30' });
    expect(validate({}, timeEnd)).toEqual({ ok: true, update: {} });
    // Picking the same moment another way is no change either.
    expect(validate({ end: { mode: 'time', day: '', time: '2027-01-01T00:00' } }, dayEnd)).toEqual({ ok: true, update: {} });
    // An end that has passed since it was set does not stop the owner from changing something else.
    const ended: Policy = { ...current, expiresAt: '2026-01-01T00:00:00.000Z' };
    expect(validate({ dailyBudget: '5' }, ended)).toEqual({ ok: true, update: { dailyBudget: '5' } });
  });

  it('warning shares: the default is not sent again, a list is, empty is none', () => {
    expect(valid.warnAt).toBe('80, 95');
    expect(validate({ warnAt: '95 % 80 %' })).toEqual({ ok: true, update: {} });
    expect(validate({ warnAt: '50, 90' })).toEqual({ ok: true, update: { warnAt: [50, 90] } });
    expect(validate({ warnAt: ' ' })).toEqual({ ok: true, update: { warnAt: [] } });
    // A share is named as typed, not counted ("item 2": helper 181).
    expect(validate({ warnAt: '0' })).toEqual({ ok: false, errors: { warnAt: 'Warn at: "0" must be at least 1' } });
    expect(validate({ warnAt: '80, abc' })).toEqual({ ok: false, errors: { warnAt: 'Warn at: "abc" must be a whole percent' } });
    expect(validate({ warnAt: '80 % 101 %' })).toEqual({ ok: false, errors: { warnAt: 'Warn at: "101" must be at most 100' } });
    expect(validate({ warnAt: '1, 2, 3, 4, 5, 6' })).toEqual({ ok: false, errors: { warnAt: 'Warn at holds at most 5 shares' } });
    expect(draftOf({ ...current, warnAt: [] }, ZONE).warnAt).toBe('');
  });

  it('breaker: either way or both, off is null, each number checked by the schema', () => {
    const off = valid.breaker;
    expect(off.refusals.on || off.spending.on).toBe(false);
    const refusals = validate({ breaker: { ...off, refusals: { on: true, count: '5', minutes: '10' } } });
    expect(refusals).toEqual({ ok: true, update: { breaker: { refusals: { count: 5, minutes: 10 } } } });
    const both = validate({
      breaker: { refusals: { on: true, count: '3', minutes: '5' }, spending: { on: true, percent: '50', minutes: '15' } },
    });
    expect(both).toEqual({
      ok: true,
      update: { breaker: { refusals: { count: 3, minutes: 5 }, spending: { percent: 50, minutes: 15 } } },
    });
    if (both.ok) expect(serverPolicyOf(current, both.update).breaker).toEqual(both.update.breaker);
    const withBreaker: Policy = { ...current, breaker: { refusals: { count: 5, minutes: 10 } } };
    expect(draftOf(withBreaker, ZONE).breaker.refusals).toEqual({ on: true, count: '5', minutes: '10' });
    expect(validate({}, withBreaker)).toEqual({ ok: true, update: {} });
    expect(validate({ breaker: { ...off } }, withBreaker)).toEqual({ ok: true, update: { breaker: null } });
    expect(validate({ breaker: { ...off, spending: { on: true, percent: '0', minutes: '15' } } })).toEqual({
      ok: false,
      errors: { breaker: 'Breaker, spending, percent must be at least 1' },
    });
    expect(validate({ breaker: { ...off, refusals: { on: true, count: '5', minutes: '1441' } } })).toEqual({
      ok: false,
      errors: { breaker: 'Breaker, refusals, minutes must be at most 1,440 (a day)' },
    });
  });

  it('a policy holding every limit reads back as a draft that changes nothing', () => {
    const full: Policy = {
      dailyBudget: '5.00',
      maxPerPayment: '0.50',
      cooldownSeconds: 30,
      allowedServices: ['demo-weather'],
      budgets: [
        { amount: '50.00', window: 'month' },
        { count: 3, window: 'lifetime', recipient: RECIPIENT },
      ],
      expiresAt: new Date(2027, 5, 30, 9, 15).toISOString(),
      warnAt: [50],
      breaker: { refusals: { count: 2, minutes: 60 }, spending: { percent: 80, minutes: 5 } },
      askAbove: '0.25',
      askNewRecipient: true,
    };
    expect(validatePolicyDraft(draftOf(full, ZONE), full, CLOCK)).toEqual({ ok: true, update: {} });
  });
});

describe('asking the owner first: above an amount, before a new recipient', () => {
  it('empty is never (nothing sent while it is never), an amount and 0 are sent, the server takes them as is', () => {
    expect(valid.askAbove).toBe('');
    expect(valid.askNewRecipient).toBe(false);
    expect(validate({ askAbove: '  ' })).toEqual({ ok: true, update: {} });
    const above = validate({ askAbove: ' 0.5 ', askNewRecipient: true });
    expect(above).toEqual({ ok: true, update: { askAbove: '0.5', askNewRecipient: true } });
    if (above.ok) expect(serverPolicyOf(current, above.update)).toMatchObject({ askAbove: '0.50', askNewRecipient: true });
    const every = validate({ askAbove: '0' });
    expect(every).toEqual({ ok: true, update: { askAbove: '0' } });
    if (every.ok) expect(serverPolicyOf(current, every.update).askAbove).toBe('0.00');
  });

  it('a threshold that is no amount is refused in the editor’s words: empty is never, not "null for none" (helper 181)', () => {
    for (const typed of ['abc', '-1', '1.0000001']) {
      const refused = validate({ askAbove: typed });
      expect(refused.ok).toBe(false);
      const message = refused.ok ? '' : (refused.errors.askAbove ?? '');
      expect(message).toMatch(/^Ask above must be an amount of USDC, 0 or more with at most 6 decimals/);
      expect(message).toMatch(/, or empty for never$/);
      expect(message).not.toContain('null');
    }
  });

  it('reads a policy’s threshold back unchanged (by value), and emptied it is sent as null', () => {
    const asking: Policy = { ...current, askAbove: '0.50', askNewRecipient: true };
    expect(draftOf(asking, ZONE)).toMatchObject({ askAbove: '0.50', askNewRecipient: true });
    expect(validate({}, asking)).toEqual({ ok: true, update: {} });
    expect(validate({ askAbove: '0.5' }, asking)).toEqual({ ok: true, update: {} });
    expect(validate({ askAbove: '', askNewRecipient: false }, asking)).toEqual({
      ok: true,
      update: { askAbove: null, askNewRecipient: false },
    });
  });

  it.each(['-1', 'five', '1.0000001', '1e3', '1000000000.01'])('refuses %j next to the field, as the server’s schema does', (typed) => {
    const result = validate({ askAbove: typed });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(Object.keys(result.errors)).toEqual(['askAbove']);
      expect(result.errors.askAbove).toMatch(/^Ask above must be an amount of USDC/);
    }
    expect(policyUpdateSchema.safeParse({ askAbove: typed.trim() }).success).toBe(false);
  });

  it('refuses a threshold above the max per payment (it would never ask), in the server’s words; at the max is fine', () => {
    const result = validate({ askAbove: '1.5' });
    const server = (() => {
      try {
        assertAskWithinMax(mergePolicy(serverPolicy({}), { maxPerPayment: '1', askAbove: '1.5' }, CLOCK));
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(server).toMatch(/^Ask above \(1\.50 USDC\) is above the max per payment \(1\.00 USDC\)/);
    expect(result).toEqual({ ok: false, errors: { askAbove: server } });
    // Judged against the max as typed beside it.
    expect(validate({ askAbove: '1.5', maxPerPayment: '2' })).toEqual({ ok: true, update: { askAbove: '1.5', maxPerPayment: '2' } });
    expect(validate({ askAbove: '1' })).toEqual({ ok: true, update: { askAbove: '1' } });
    // A threshold already set is not judged again when only the max is lowered: the server takes that cut.
    const asking: Policy = { ...current, askAbove: '1.00' };
    expect(validate({ maxPerPayment: '0.5' }, asking)).toEqual({ ok: true, update: { maxPerPayment: '0.5' } });
  });
});

describe('loosening is said in words before it is saved', () => {
  const policy: Policy = { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: ['demo-weather'] };
  it('names the factor, a budget above the treasury, and every service allowed where some were', () => {
    expect(loosenings(policy, { dailyBudget: '1000000000', allowedServices: [] }, 1_000_000_000n, ZONE)).toEqual([
      'Daily budget 5.00 → 1,000,000,000.00 USDC: 200,000,000× the current budget.',
      'A daily budget of 1,000,000,000.00 USDC is more than the treasury holds (1,000.00 USDC).',
      'Any service may be paid, not only the 1 picked.',
    ]);
    expect(loosenings(policy, { maxPerPayment: '12.5' }, null, ZONE)).toEqual([
      'Max per payment 1.00 → 12.50 USDC: 12.5× the current limit.',
    ]);
  });
  it('says nothing for a modest raise or a tightening', () => {
    expect(
      loosenings(
        policy,
        { dailyBudget: '49.99', maxPerPayment: '0.5', allowedServices: ['demo-weather', 'web-search'] },
        1_000_000_000n,
        ZONE,
      ),
    ).toEqual([]);
  });

  const budgets: NonNullable<Policy['budgets']> = [
    { amount: '50.00', window: 'month' },
    { count: 30, window: 'hour' },
  ];
  const held: Policy = { ...policy, budgets };
  it('names a budget removed or raised, not one lowered or added', () => {
    expect(loosenings(held, { budgets: [budgets[1]!] }, null, CLOCK.timeZone)).toEqual(['Budget 50.00 USDC a month → removed.']);
    expect(loosenings(held, { budgets: [{ amount: '80', window: 'month' }, budgets[1]!] }, null, ZONE)).toEqual([
      'Budget 50.00 USDC a month → 80.00 USDC a month.',
    ]);
    expect(loosenings(held, { budgets: [budgets[0]!, { count: 40, window: 'hour' }] }, null, ZONE)).toEqual([
      'Budget 30 payments in any hour → 40 payments in any hour.',
    ]);
    // The same amount over a narrower scope or another window holds less: the budget in force is gone.
    expect(loosenings(held, { budgets: [{ amount: '50', window: 'month', service: 'demo-weather' }, budgets[1]!] }, null, ZONE)).toEqual([
      'Budget 50.00 USDC a month → removed.',
    ]);
    expect(
      loosenings(held, { budgets: [{ amount: '20', window: 'month' }, budgets[1]!, { amount: '1', window: 'day' }] }, null, ZONE),
    ).toEqual([]);
    expect(loosenings(held, { budgets: [] }, null, ZONE)).toEqual([
      'Budget 50.00 USDC a month → removed.',
      'Budget 30 payments in any hour → removed.',
    ]);
  });

  it('names an end moved later or removed, not one brought closer or set', () => {
    const end = new Date(2026, 11, 31, 18, 0).toISOString();
    const ending: Policy = { ...policy, expiresAt: end };
    expect(loosenings(ending, { expiresAt: null }, null, ZONE)).toEqual([`End: ${dateTime(end)} → never.`]);
    // A day's end is named as that day, as the change line says it, not as the next midnight.
    expect(loosenings(ending, { expiresAt: '2026-12-31' }, null, CLOCK.timeZone)).toEqual([
      `End: ${dateTime(end)} → the end of ${dayWords('2026-12-31')} (later).`,
    ]);
    expect(loosenings(ending, { expiresAt: '2026-12-30' }, null, CLOCK.timeZone)).toEqual([]);
    expect(loosenings(policy, { expiresAt: '2026-12-30' }, null, CLOCK.timeZone)).toEqual([]);
  });

  it('names a breaker removed or slowed, way by way, and warning shares dropped', () => {
    const breaker = { refusals: { count: 5, minutes: 10 }, spending: { percent: 50, minutes: 15 } };
    const guarded: Policy = { ...policy, breaker };
    expect(loosenings(guarded, { breaker: null }, null, ZONE)).toEqual([
      'Breaker: stops after 5 refusals within 10 minutes → removed.',
      'Breaker: stops after 50 % of any amount budget (the daily one too) spent within 15 minutes → removed.',
    ]);
    expect(loosenings(guarded, { breaker: { ...breaker, refusals: { count: 8, minutes: 10 } } }, null, ZONE)).toEqual([
      'Breaker: stops after 5 refusals within 10 minutes → stops after 8 refusals within 10 minutes (trips later).',
    ]);
    expect(
      loosenings(guarded, { breaker: { refusals: { count: 3, minutes: 30 }, spending: { percent: 40, minutes: 15 } } }, null, ZONE),
    ).toEqual([]);
    expect(loosenings(policy, { breaker: { refusals: { count: 3, minutes: 30 } } }, null, ZONE)).toEqual([]);
    expect(loosenings(policy, { warnAt: [95] }, null, ZONE)).toEqual(['Warn at 80 % and 95 % → 95 %.']);
    expect(loosenings(policy, { warnAt: [] }, null, ZONE)).toEqual(['Warn at 80 % and 95 % → never.']);
    expect(loosenings(policy, { warnAt: [50, 80, 95] }, null, ZONE)).toEqual([]);
    // Shares moved lower loosen too: a payment passing 50 and 90 at once warns once, where 80 and 95 could warn twice.
    expect(loosenings(policy, { warnAt: [50, 90] }, null, ZONE)).toEqual(['Warn at 80 % and 95 % → 50 % and 90 %.']);
  });

  it('names the owner asked less often: a threshold raised or removed, new recipients no longer asked; not one lowered or set', () => {
    const asking: Policy = { ...policy, askAbove: '2.00', askNewRecipient: true };
    expect(loosenings(asking, { askAbove: '5' }, null, ZONE)).toEqual(['Ask me above 2.00 → 5.00 USDC: fewer payments wait for your yes.']);
    expect(loosenings(asking, { askAbove: null, askNewRecipient: false }, null, ZONE)).toEqual([
      'Ask me above 2.00 USDC → never: no payment waits for its amount.',
      'A first payment to a new recipient no longer waits for your yes.',
    ]);
    expect(loosenings(asking, { askAbove: '0', askNewRecipient: true }, null, ZONE)).toEqual([]);
    expect(loosenings(policy, { askAbove: '5', askNewRecipient: false }, null, ZONE)).toEqual([]);
  });

  it('asks exactly when the server counts a change of budgets, end, breaker, shares or asks as loosening (many drawn changes)', () => {
    const rng = new Rng(25);
    const random = () => rng.next();
    const pick = <T>(list: readonly T[]): T => rng.pick(list);
    const drawBudgets = (): BudgetBody[] =>
      Array.from({ length: Math.floor(random() * 3) }, () => ({
        ...(random() < 0.5 ? { amount: pick(['1', '5', '50']) } : { count: pick([1, 3, 30]) }),
        window: pick(['hour', 'month'] as const),
        ...pick([{}, { service: 'demo-weather' }, { recipient: RECIPIENT }]),
      }));
    const drawEnd = () => pick([null, '2026-12-30', '2026-12-31', new Date(2026, 11, 31, 12).toISOString()]);
    const drawBreaker = () =>
      pick([
        null,
        { refusals: { count: pick([2, 5]), minutes: pick([5, 10]) } },
        { spending: { percent: pick([20, 50]), minutes: pick([5, 15]) } },
        { refusals: { count: pick([2, 5]), minutes: 10 }, spending: { percent: 50, minutes: pick([5, 15]) } },
      ]);
    const drawShares = () => pick([[], [80, 95], [95], [50, 80, 95]]);
    const drawAskAbove = () => pick([null, '0', '0.5', '1']);
    const drawAskNew = () => random() < 0.5;
    for (let i = 0; i < 600; i++) {
      const start = serverPolicy({
        budgets: drawBudgets(),
        expiresAt: drawEnd(),
        breaker: drawBreaker(),
        warnAt: drawShares(),
        askAbove: drawAskAbove(),
        askNewRecipient: drawAskNew(),
      });
      const update: PolicyUpdate = pick([
        { budgets: drawBudgets() },
        { expiresAt: drawEnd() },
        { breaker: drawBreaker() },
        { warnAt: drawShares() },
        { askAbove: drawAskAbove() },
        { askNewRecipient: drawAskNew() },
        { askAbove: drawAskAbove(), askNewRecipient: drawAskNew() },
      ]);
      const next = mergePolicy(start, update, CLOCK);
      const asked = loosenings(policyView(start), update, null, CLOCK.timeZone).length > 0;
      expect(asked, JSON.stringify({ start: policyView(start), update })).toBe(!isTightening(start, next));
    }
  });
});

/** The engine's policy for these fields over the card's two limits. */
const serverPolicy = (fields: PolicyUpdate) =>
  mergePolicy(newPolicy({ dailyBudget: '5', maxPerPayment: '1' }, CLOCK), policyUpdateSchema.parse(fields), CLOCK);

describe('the end in the owner’s time zone (GET /v1/settings), not the browser’s', () => {
  /** UTC+14: its days end ten hours before UTC's, so most ends read there are another day, or past, in UTC. */
  const KIRITIMATI = 'Pacific/Kiritimati';
  /** 10:30 UTC on Dec 31 is half past midnight on Jan 1 there. */
  const kiritimati = { now: Date.parse('2026-12-31T10:30:00Z'), timeZone: KIRITIMATI };
  const utc = { now: kiritimati.now, timeZone: 'UTC' };
  const endOf = (day: string, timeZone: string) => new Date(expiryOf(day, Number.NEGATIVE_INFINITY, timeZone)!).toISOString();
  const serverEnd = (update: PolicyUpdate, clock: typeof kiritimati) =>
    policyView(mergePolicy(newPolicy({ dailyBudget: '10', maxPerPayment: '1' }, clock), policyUpdateSchema.parse(update), clock)).expiresAt;

  it('a day already over there is refused in the server’s words, as the server refuses it; the same day in UTC is not over', () => {
    const draft = { ...draftOf(current, KIRITIMATI), end: { mode: 'day' as const, day: '2026-12-31', time: '' } };
    const refused = validatePolicyDraft(draft, current, kiritimati);
    expect(refused).toEqual({
      ok: false,
      errors: { expiresAt: 'Expires 2026-12-31 is in the past; name a later day or time, or stop the agent with its kill switch' },
    });
    expect(() => serverEnd({ expiresAt: '2026-12-31' }, kiritimati)).toThrow(refused.ok ? '' : refused.errors.expiresAt);
    expect(validatePolicyDraft(draft, current, utc)).toEqual({ ok: true, update: { expiresAt: '2026-12-31' } });
    const tomorrow = validatePolicyDraft({ ...draft, end: { ...draft.end, day: '2027-01-01' } }, current, kiritimati);
    expect(tomorrow).toEqual({ ok: true, update: { expiresAt: '2027-01-01' } });
    if (tomorrow.ok) expect(serverEnd(tomorrow.update, kiritimati)).toBe('2027-01-01T10:00:00.000Z');
  });

  it('a time is read there: 18:00 on Dec 31 is 04:00 UTC, the moment the server keeps; one already past there is refused', () => {
    const draft = { ...draftOf(current, KIRITIMATI), end: { mode: 'time' as const, day: '', time: '2027-01-01T18:00' } };
    const result = validatePolicyDraft(draft, current, kiritimati);
    expect(result).toEqual({ ok: true, update: { expiresAt: '2027-01-01T04:00:00.000Z' } });
    if (result.ok) expect(serverEnd(result.update, kiritimati)).toBe('2027-01-01T04:00:00.000Z');
    const past = validatePolicyDraft({ ...draft, end: { ...draft.end, time: '2027-01-01T00:15' } }, current, kiritimati);
    expect(past.ok).toBe(false);
  });

  it('an end the server kept for a day reads back as that day there (and as a time in UTC), and is not sent again', () => {
    const ending: Policy = { ...current, expiresAt: endOf('2027-03-31', KIRITIMATI) };
    expect(ending.expiresAt).toBe('2027-03-31T10:00:00.000Z');
    expect(draftOf(ending, KIRITIMATI).end).toEqual({ mode: 'day', day: '2027-03-31', time: '2027-04-01T00:00' });
    expect(draftOf(ending, 'UTC').end).toEqual({ mode: 'time', day: '2027-03-31', time: '2027-03-31T10:00' });
    expect(validatePolicyDraft(draftOf(ending, KIRITIMATI), ending, kiritimati)).toEqual({ ok: true, update: {} });
    expect(endWords(ending.expiresAt!, KIRITIMATI)).toBe(`at the end of ${dayWords('2027-03-31')}`);
    expect(endWords(ending.expiresAt!, 'UTC')).toBe(dateTime(ending.expiresAt!, 'UTC'));
    // Picked again as that day, or as its midnight, is the same end.
    const again = { ...draftOf(ending, KIRITIMATI), end: { mode: 'time' as const, day: '', time: '2027-04-01T00:00' } };
    expect(validatePolicyDraft(again, ending, kiritimati)).toEqual({ ok: true, update: {} });
  });

  it('every day of two years ends at its midnight there, as the server ends it, and reads back as that day (zones far from UTC, DST)', () => {
    const zones = [
      KIRITIMATI,
      'Pacific/Pago_Pago',
      'America/Santiago',
      'America/Havana',
      'Australia/Lord_Howe',
      'America/St_Johns',
      'Asia/Kathmandu',
      'Europe/Berlin',
      'UTC',
    ];
    const clock = (timeZone: string) => ({ now: Date.parse('2026-01-01T00:00:00Z'), timeZone });
    /** The day a moment falls on there, by the runtime's own calendar (no date library). */
    const dayThere = (at: number, timeZone: string) =>
      new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
    const misplaced: string[] = [];
    for (const zone of zones) {
      for (let at = Date.parse('2026-01-02T12:00:00Z'); at < Date.parse('2028-01-01T00:00:00Z'); at += 86_400_000) {
        const day = new Date(at).toISOString().slice(0, 10);
        const end: Policy = { ...current, expiresAt: serverEnd({ expiresAt: day }, clock(zone)) };
        const ends = Date.parse(end.expiresAt!);
        // The server's end of that day is where the runtime's calendar changes the date there.
        if (dayThere(ends - 1, zone) !== day || dayThere(ends, zone) === day) misplaced.push(`${zone} ${day}`);
        expect(draftOf(end, zone).end, `${zone} ${day}`).toMatchObject({ mode: 'day', day });
        expect(endWords(end.expiresAt!, zone)).toBe(`at the end of ${dayWords(day)}`);
        const picked = validatePolicyDraft({ ...draftOf(current, zone), end: { mode: 'day', day, time: '' } }, current, clock(zone));
        expect(picked).toEqual({ ok: true, update: { expiresAt: day } });
        // An hour before that end is a time, not a day's end.
        const earlier: Policy = { ...current, expiresAt: new Date(ends - 3_600_000).toISOString() };
        expect(draftOf(earlier, zone).end.mode).toBe('time');
      }
    }
    expect(misplaced).toEqual([]);
  });

  it('a later end is named in the confirmation in the owner’s zone', () => {
    const ending: Policy = { ...current, expiresAt: endOf('2027-03-31', KIRITIMATI) };
    expect(loosenings(ending, { expiresAt: '2027-04-30' }, null, KIRITIMATI)).toEqual([
      `End: the end of ${dayWords('2027-03-31')} → the end of ${dayWords('2027-04-30')} (later).`,
    ]);
    expect(dateTime(ending.expiresAt!, KIRITIMATI)).toBe(dateTime('2027-04-01T00:00:00.000Z', 'UTC'));
    // The same day is the same end there, nothing to ask; read in UTC it would end 14 hours later.
    expect(loosenings(ending, { expiresAt: '2027-03-31' }, null, KIRITIMATI)).toEqual([]);
    expect(loosenings(ending, { expiresAt: '2027-03-31' }, null, 'UTC')).toHaveLength(1);
  });
});
