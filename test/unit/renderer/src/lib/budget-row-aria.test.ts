import { describe, expect, it } from 'vitest';
import { budgetFieldAria, marksField } from '../../../../../renderer/src/lib/budget-row-aria.js';

describe('which input of a budget row its problem marks', () => {
  it('the input the problem names, and only that one', () => {
    const error = { message: 'Pick a service', field: 'service' as const };
    expect(marksField(error, 'service')).toBe(true);
    expect(marksField(error, 'limit')).toBe(false);
    expect(marksField(error, 'recipient')).toBe(false);
  });

  it('the limit, for a problem with the row as a whole; nothing without a problem', () => {
    const error = { message: 'At most 20 budgets', field: null };
    expect(marksField(error, 'limit')).toBe(true);
    expect(marksField(error, 'window')).toBe(false);
    expect(marksField(undefined, 'limit')).toBe(false);
  });

  it('a marked input is invalid and described by the row’s error; another is neither', () => {
    const error = { message: 'Not a Solana address', field: 'recipient' as const };
    expect(budgetFieldAria(error, 'recipient', 'b1-error')).toEqual({ 'aria-invalid': true, 'aria-describedby': 'b1-error' });
    expect(budgetFieldAria(error, 'limit', 'b1-error')).toEqual({ 'aria-invalid': false, 'aria-describedby': undefined });
  });
});
