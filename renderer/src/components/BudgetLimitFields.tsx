import type { AriaAttributes } from 'react';
import { BUDGET_WINDOWS } from '../../../server/wire/policy/windows.js';
import { WINDOW_WORDS } from '../../../server/wire/policy/budget.js';
import type { BudgetDraft } from '../lib/budget-draft.js';
import type { BudgetRowError } from '../lib/policy-form.js';

/** A budget row's first half, "At most 50 USDC a month": its limit, its unit and its window. */
export function BudgetLimitFields({
  name,
  row,
  aria,
  onChange,
}: {
  /** The row's name ("Budget 2"), which each input's label starts with. */
  name: string;
  row: BudgetDraft;
  aria: (field: BudgetRowError['field']) => AriaAttributes;
  onChange: (patch: Partial<BudgetDraft>) => void;
}) {
  return (
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
  );
}
