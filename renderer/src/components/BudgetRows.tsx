import { MAX_BUDGETS } from '../../../server/wire/schemas.js';
import type { Service } from '../api/types.js';
import { BUDGET_PRESETS, blankBudget, budgetDraftOf, type BudgetDraft } from '../lib/budget-draft.js';
import { budgetFieldAria } from '../lib/budget-row-aria.js';
import type { BudgetRowError } from '../lib/policy-form.js';
import { BudgetLimitFields } from './BudgetLimitFields.js';
import { BudgetScopeFields } from './BudgetScopeFields.js';

/**
 * The policy's budgets beyond the daily one, a row each that reads as a sentence ("At most 50 USDC a
 * month for all payments"), with a few common ones a click away. Rows are added and removed here;
 * the editor validates them with the server's schema and shows each row's problem under it.
 */
export function BudgetRows({
  budgets,
  services,
  rowErrors,
  listError,
  onChange,
}: {
  budgets: BudgetDraft[];
  services: Service[];
  rowErrors: Record<string, BudgetRowError> | undefined;
  listError: string | undefined;
  onChange: (budgets: BudgetDraft[]) => void;
}) {
  const full = budgets.length >= MAX_BUDGETS;
  const add = (row: BudgetDraft) => onChange([...budgets, row]);
  return (
    <fieldset className="services budgets" aria-describedby={listError ? 'budgets-error' : undefined}>
      <legend>Budgets</legend>
      <p className="hint">
        Beyond the daily budget: each allows at most an amount, or a number of payments, over its window. A payment must fit every budget it
        falls under.
      </p>
      {budgets.length > 0 && (
        <ol className="budget-rows">
          {budgets.map((row, i) => (
            <BudgetRow
              key={row.key}
              index={i + 1}
              row={row}
              services={services}
              error={rowErrors?.[row.key]}
              onChange={(patch) => onChange(budgets.map((b) => (b.key === row.key ? { ...b, ...patch } : b)))}
              onRemove={() => onChange(budgets.filter((b) => b.key !== row.key))}
            />
          ))}
        </ol>
      )}
      <div className="budget-add">
        <button type="button" className="button small" onClick={() => add(blankBudget())} disabled={full}>
          Add a budget
        </button>
        {BUDGET_PRESETS.map((preset) => (
          <button
            key={preset.label}
            type="button"
            className="button small"
            onClick={() => add(budgetDraftOf(preset.budget))}
            disabled={full}
          >
            + {preset.label}
          </button>
        ))}
      </div>
      {full && <p className="hint">A policy holds at most {MAX_BUDGETS} budgets.</p>}
      {listError && (
        <p className="field-error" id="budgets-error">
          {listError}
        </p>
      )}
    </fieldset>
  );
}

/** One budget: its limit and unit, its window, and which payments it holds. */
function BudgetRow({
  index,
  row,
  services,
  error,
  onChange,
  onRemove,
}: {
  index: number;
  row: BudgetDraft;
  services: Service[];
  error: BudgetRowError | undefined;
  onChange: (patch: Partial<BudgetDraft>) => void;
  onRemove: () => void;
}) {
  const name = `Budget ${index}`;
  const errorId = `${row.key}-error`;
  // The input the problem is about is marked; a problem with the row as a whole marks its limit.
  const aria = (field: BudgetRowError['field']) => budgetFieldAria(error, field, errorId);
  return (
    <li className="budget-row" data-testid="budget-row">
      <div className="budget-fields" role="group" aria-label={name}>
        {/* Two halves that wrap as wholes: how much over which window, then which payments. */}
        <BudgetLimitFields name={name} row={row} aria={aria} onChange={onChange} />
        <BudgetScopeFields name={name} index={index} row={row} services={services} aria={aria} onChange={onChange} onRemove={onRemove} />
      </div>
      {error && (
        <p className="field-error" id={errorId}>
          {error.message}
        </p>
      )}
    </li>
  );
}
