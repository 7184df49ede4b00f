import type { BudgetWindow } from '../../../server/wire/policy/windows.js';
import type { BudgetBody } from '../../../server/wire/schemas.js';

/** What a budget holds: every payment, one registry service's, or every payment to one address. */
export type BudgetScopeChoice = 'all' | 'service' | 'recipient';

/** One budget row of the policy editor, as typed (strings), before validation. */
export interface BudgetDraft {
  /** Names the row for React and for its error: rows shift as others are removed. */
  key: string;
  unit: 'USDC' | 'payments';
  /** The amount of USDC, or the number of payments. */
  limit: string;
  window: BudgetWindow;
  scope: BudgetScopeChoice;
  service: string;
  recipient: string;
}

let lastKey = 0;
const newKey = () => `budget-${++lastKey}`;

export const blankBudget = (): BudgetDraft => ({
  key: newKey(),
  unit: 'USDC',
  limit: '',
  window: 'day',
  scope: 'all',
  service: '',
  recipient: '',
});

/** Limits owners often state, one click each: every payment, one window. */
export const BUDGET_PRESETS: { label: string; budget: BudgetBody }[] = [
  { label: '50 USDC a month', budget: { amount: '50', window: 'month' } },
  { label: '10 USDC a week', budget: { amount: '10', window: 'week' } },
  { label: '30 payments an hour', budget: { count: 30, window: 'hour' } },
];

/** A row for a budget as the wire has it (the current policy's, or a preset). */
export function budgetDraftOf(budget: BudgetBody): BudgetDraft {
  return {
    key: newKey(),
    unit: budget.count === undefined ? 'USDC' : 'payments',
    limit: budget.count === undefined ? (budget.amount ?? '') : String(budget.count),
    window: budget.window,
    scope: budget.service !== undefined ? 'service' : budget.recipient !== undefined ? 'recipient' : 'all',
    service: budget.service ?? '',
    recipient: budget.recipient ?? '',
  };
}

/**
 * A row as the wire would carry it, not yet checked: the server's schema judges it (a count that is
 * not a whole number goes as NaN, which the schema refuses in its own words). Only the chosen scope's
 * field is sent: a service left picked under "every payment" must not narrow the budget.
 */
export function budgetCandidate(row: BudgetDraft): Record<string, unknown> {
  const limit = row.limit.trim();
  return {
    ...(row.unit === 'USDC' ? { amount: limit } : { count: /^\d+$/.test(limit) ? Number(limit) : Number.NaN }),
    window: row.window,
    ...(row.scope === 'service' ? { service: row.service } : {}),
    ...(row.scope === 'recipient' ? { recipient: row.recipient.trim() } : {}),
  };
}
