import type { BreakerDraft } from '../lib/policy-form.js';

/**
 * The breaker: the agent stops itself (as its kill switch would) after so many refused payments in a
 * short time, or once it spends a share of a budget in a short time; only the owner resumes it. Each
 * way is ticked on or off; its numbers stay as typed while it is off.
 */
export function BreakerFields({
  breaker,
  error,
  onChange,
}: {
  breaker: BreakerDraft;
  error: string | undefined;
  onChange: (breaker: BreakerDraft) => void;
}) {
  const { refusals, spending } = breaker;
  const setRefusals = (patch: Partial<BreakerDraft['refusals']>) => onChange({ ...breaker, refusals: { ...refusals, ...patch } });
  const setSpending = (patch: Partial<BreakerDraft['spending']>) => onChange({ ...breaker, spending: { ...spending, ...patch } });
  const described = error ? 'breaker-error' : undefined;
  const number = (label: string, value: string, on: boolean, set: (value: string) => void) => (
    <input
      className="tiny"
      inputMode="numeric"
      aria-label={label}
      value={value}
      disabled={!on}
      onChange={(e) => set(e.target.value)}
      aria-invalid={on && !!error}
      aria-describedby={described}
    />
  );
  return (
    <fieldset className="services breaker" aria-describedby={described}>
      <legend>Breaker</legend>
      <div className="check sentence">
        <input
          type="checkbox"
          aria-label="Stop after refused payments"
          checked={refusals.on}
          onChange={(e) => setRefusals({ on: e.target.checked })}
        />
        <span>Stop it after</span>
        {number('Refused payments', refusals.count, refusals.on, (count) => setRefusals({ count }))}
        <span>refused payments within</span>
        {number('Minutes for refusals', refusals.minutes, refusals.on, (minutes) => setRefusals({ minutes }))}
        <span>minutes</span>
      </div>
      <div className="check sentence">
        <input
          type="checkbox"
          aria-label="Stop after fast spending"
          checked={spending.on}
          onChange={(e) => setSpending({ on: e.target.checked })}
        />
        <span>Stop it once it spends</span>
        {number('Share of an amount budget (%)', spending.percent, spending.on, (percent) => setSpending({ percent }))}
        <span>% of an amount budget within</span>
        {number('Minutes for spending', spending.minutes, spending.on, (minutes) => setSpending({ minutes }))}
        <span>minutes</span>
      </div>
      <p className="hint">A stopped agent stays stopped until you resume it.</p>
      {error && (
        <p className="field-error" id="breaker-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
