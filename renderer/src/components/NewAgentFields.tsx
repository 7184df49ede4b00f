import { useEffect } from 'react';
import type { Rail } from '../../../server/wire/rails.js';
import { useDashboard } from '../state/store.js';

/** A new agent's id, name and starting limits, as typed; shared by "Deploy an agent" and the link page. */
export interface NewAgentForm {
  agentId: string;
  displayName: string;
  dailyBudget: string;
  maxPerPayment: string;
  /** Moved from the treasury to the new wallet in the same step; empty for none. */
  fund: string;
  /** The rail `fund` moves on: Solana unless the owner picks Base (offered where the Base rail is open). */
  fundRail: Rail;
}

export const emptyNewAgent = (agentId = ''): NewAgentForm => ({
  agentId,
  displayName: '',
  dailyBudget: '5.00',
  maxPerPayment: '0.50',
  fund: '',
  fundRail: 'sol',
});

/** The request body for the form: trimmed, with an empty display name left out. */
export const newAgentBody = (form: NewAgentForm) => ({
  agentId: form.agentId.trim(),
  dailyBudget: form.dailyBudget.trim(),
  maxPerPayment: form.maxPerPayment.trim(),
  ...(form.displayName.trim() ? { displayName: form.displayName.trim() } : {}),
  ...(form.fund.trim() ? { fund: form.fund.trim(), ...(form.fundRail === 'base' ? { fundRail: 'base' as const } : {}) } : {}),
});

export function NewAgentFields({
  form,
  onChange,
  idPrefix,
  invalid = new Set(),
}: {
  form: NewAgentForm;
  onChange: (form: NewAgentForm) => void;
  idPrefix: string;
  /** The request's fields the schema found wrong (useAction's `invalid`; each form field sends the field of its name): marked, said in the form's ErrorNote. */
  invalid?: ReadonlySet<string>;
}) {
  const baseOpen = (useDashboard((state) => state.dashboard?.treasury.baseNetwork) ?? null) !== null;
  // The Base rail closed while the form was open: its choice goes with its radios (sent, it is refused).
  useEffect(() => {
    if (!baseOpen && form.fundRail !== 'sol') onChange({ ...form, fundRail: 'sol' });
  }, [baseOpen, form, onChange]);
  const field = (
    key: Exclude<keyof NewAgentForm, 'fundRail'>,
    label: string,
    extra: { inputMode?: 'decimal'; hint?: string; autoFocus?: boolean } = {},
  ) => (
    <div className="field">
      <label htmlFor={`${idPrefix}-${key}`}>{label}</label>
      <input
        id={`${idPrefix}-${key}`}
        value={form[key]}
        inputMode={extra.inputMode}
        autoFocus={extra.autoFocus}
        aria-invalid={invalid.has(key) || undefined}
        onChange={(e) => onChange({ ...form, [key]: e.target.value })}
      />
      {extra.hint && <p className="hint">{extra.hint}</p>}
    </div>
  );
  return (
    <div className="fields">
      {field('agentId', 'Agent id', { hint: 'Lowercase letters, digits, - and _; it never changes.', autoFocus: true })}
      {field('displayName', 'Display name (optional)')}
      {field('dailyBudget', 'Daily budget (USDC)', { inputMode: 'decimal' })}
      {field('maxPerPayment', 'Max per payment (USDC)', { inputMode: 'decimal' })}
      {field('fund', 'Starting funds (USDC, optional)', {
        inputMode: 'decimal',
        hint: 'Moved from the treasury to the new wallet now; or later, from its page.',
      })}
      {baseOpen && (
        <fieldset className="services">
          <legend>Starting funds on</legend>
          {(['sol', 'base'] as const).map((option) => (
            <label className="check" key={option}>
              <input
                type="radio"
                name={`${idPrefix}-fund-rail`}
                checked={form.fundRail === option}
                onChange={() => onChange({ ...form, fundRail: option })}
              />
              {option === 'sol' ? 'Solana USDC' : 'Base USDC'}
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
