import type { BudgetRowError } from './policy-form.js';

type BudgetField = BudgetRowError['field'];

/** Whether a budget row's problem is about `field`: the input it names, or its limit when the problem is with the row as a whole. */
export const marksField = (error: BudgetRowError | undefined, field: BudgetField): boolean =>
  error !== undefined && (error.field === field || (error.field === null && field === 'limit'));

/** A budget row input's aria attributes: invalid, and described by the row's error (`errorId`), when the problem is about it. */
export const budgetFieldAria = (error: BudgetRowError | undefined, field: BudgetField, errorId: string) => ({
  'aria-invalid': marksField(error, field),
  'aria-describedby': marksField(error, field) ? errorId : undefined,
});
