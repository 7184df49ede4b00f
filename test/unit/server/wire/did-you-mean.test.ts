import { describe, expect, it, vi } from 'vitest';

/** Every comparison the suggestions make, by the lengths compared. */
const compared = vi.hoisted(() => [] as [number, number][]);
vi.mock('damerau-levenshtein', async (importOriginal) => {
  const actual = (await importOriginal<{ default: (a: string, b: string) => { steps: number } }>()).default;
  return {
    default: (a: string, b: string) => {
      compared.push([a.length, b.length]);
      return actual(a, b);
    },
  };
});
const { closestOf, didYouMean } = await import('../../../../server/wire/did-you-mean.js');
const { renameBodySchema } = await import('../../../../server/wire/schemas.js');

/** Suggestions for a mistyped name (server/wire/did-you-mean.ts): one rule for every door. */
describe('did you mean', () => {
  it('suggests the closest name within a third of its length, a swap of neighbours counting as one', () => {
    expect(closestOf('stauts', ['status', 'stop'])).toBe('status');
    expect(closestOf('demo-wether', ['demo-weather', 'demo-image'])).toBe('demo-weather');
    expect(closestOf('xyz', ['status'])).toBeNull();
    expect(didYouMean('maxPerPaymnet', ['maxPerPayment', 'dailyBudget'])).toBe(' (did you mean "maxPerPayment"?)');
    expect(didYouMean('status', ['status'])).toBe('');
  });

  it('compares no name too long or short to be near any (a 60 kB field name took the server’s memory, helper 176)', () => {
    compared.length = 0;
    expect(closestOf('a'.repeat(60_000), ['alpha', 'dailyBudget'])).toBeNull();
    expect(closestOf('a', ['averyveryverylongname'])).toBeNull();
    expect(compared).toEqual([]);
    // A name near enough in length is still compared, and found.
    expect(closestOf('dailyBudgett', ['alpha', 'dailyBudget'])).toBe('dailyBudget');
    expect(compared).toEqual([[12, 11]]);
  });

  it('a body with a 60 kB unknown field is refused, naming the field cut short, none compared', () => {
    compared.length = 0;
    const long = 'a'.repeat(60_000);
    const parsed = renameBodySchema.safeParse({ displayName: 'x', [long]: 1 });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(`unknown field "${'a'.repeat(60)}"`);
    expect(compared).toEqual([]);
  });
});
