import type { AriaAttributes } from 'react';
import type { Service } from '../api/types.js';
import type { BudgetDraft, BudgetScopeChoice } from '../lib/budget-draft.js';
import type { BudgetRowError } from '../lib/policy-form.js';

const SCOPE_WORDS: Record<BudgetScopeChoice, string> = {
  all: 'all payments',
  service: 'one service',
  recipient: 'one address',
};

/** A budget row's second half, "for all payments" (or one service, or one address), and its Remove. */
export function BudgetScopeFields({
  name,
  index,
  row,
  services,
  aria,
  onChange,
  onRemove,
}: {
  /** The row's name ("Budget 2"), which each input's label starts with. */
  name: string;
  index: number;
  row: BudgetDraft;
  services: Service[];
  aria: (field: BudgetRowError['field']) => AriaAttributes;
  onChange: (patch: Partial<BudgetDraft>) => void;
  onRemove: () => void;
}) {
  // A service the registry no longer lists stays pickable as it was saved (the server refuses it).
  const unlisted = row.service !== '' && !services.some((s) => s.id === row.service);
  return (
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
          placeholder="Solana or Base address"
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
  );
}
