import { BUDGET_WINDOWS } from '../../../server/wire/policy/windows.js';
import { WINDOW_WORDS } from '../../../server/wire/policy/budget.js';
import { MAX_BUDGETS } from '../../../server/wire/schemas.js';
import type { Service } from '../api/types.js';
import { BUDGET_PRESETS, blankBudget, budgetDraftOf, type BudgetDraft, type BudgetScopeChoice } from '../lib/budget-draft.js';
import type { BudgetRowError } from '../lib/policy-form.js';

const SCOPE_WORDS: Record<BudgetScopeChoice, string> = {
  all: 'all payments',
  service: 'one service',
  recipient: 'one address',
};

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
  const invalid = (field: BudgetRowError['field']) =>
    error !== undefined && (error.field === field || (error.field === null && field === 'limit'));
  const aria = (field: BudgetRowError['field']) => ({
    'aria-invalid': invalid(field),
    'aria-describedby': invalid(field) ? errorId : undefined,
  });
  // A service the registry no longer lists stays pickable as it was saved (the server refuses it).
  const unlisted = row.service !== '' && !services.some((s) => s.id === row.service);
  return (
    <li className="budget-row" data-testid="budget-row">
      <div className="budget-fields" role="group" aria-label={name}>
        {/* Two halves that wrap as wholes: how much over which window, then which payments. */}
        <span className="budget-part">
          <span className="muted">At most</span>
          <input
            className="budget-limit"
            aria-label={`${name}: at most`}
            inputMode={row.unit === 'USDC' ? 'decimal' : 'numeric'}
            placeholder={row.unit === 'USDC' ? '50' : '30'}
            value={row.limit}
            onChange={(e) => onChange({ limit: e.target.value })}
            {...aria('limit')}
          />
          <select aria-label={`${name}: unit`} value={row.unit} onChange={(e) => onChange({ unit: e.target.value as BudgetDraft['unit'] })}>
            <option value="USDC">USDC</option>
            <option value="payments">payments</option>
          </select>
          <select
            aria-label={`${name}: window`}
            value={row.window}
            onChange={(e) => onChange({ window: e.target.value as BudgetDraft['window'] })}
            {...aria('window')}
          >
            {BUDGET_WINDOWS.map((window) => (
              <option key={window} value={window}>
                {WINDOW_WORDS[window]}
              </option>
            ))}
          </select>
        </span>
        <span className="budget-part budget-scope">
          <span className="muted">for</span>
          <select aria-label={`${name}: for`} value={row.scope} onChange={(e) => onChange({ scope: e.target.value as BudgetScopeChoice })}>
            {(Object.keys(SCOPE_WORDS) as BudgetScopeChoice[]).map((scope) => (
              <option key={scope} value={scope}>
                {SCOPE_WORDS[scope]}
              </option>
            ))}
          </select>
          {row.scope === 'service' && (
            <select
              aria-label={`${name}: service`}
              value={row.service}
              onChange={(e) => onChange({ service: e.target.value })}
              {...aria('service')}
            >
              <option value="">Pick a service…</option>
              {services.map((service) => (
                <option key={service.id} value={service.id}>
                  {service.name} ({service.id})
                </option>
              ))}
              {unlisted && <option value={row.service}>{row.service} (not in the registry)</option>}
            </select>
          )}
          {row.scope === 'recipient' && (
            <input
              className="budget-recipient"
              aria-label={`${name}: recipient address`}
              placeholder="Solana address"
              spellCheck={false}
              value={row.recipient}
              onChange={(e) => onChange({ recipient: e.target.value })}
              {...aria('recipient')}
            />
          )}
          <button type="button" className="button small ghost" onClick={onRemove} aria-label={`Remove budget ${index}`}>
            Remove
          </button>
        </span>
      </div>
      {error && (
        <p className="field-error" id={errorId}>
          {error.message}
        </p>
      )}
    </li>
  );
}
