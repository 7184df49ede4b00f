import type { EndDraft } from '../lib/policy-form.js';

/**
 * When the policy ends: never, at the end of a day (this machine's midnight, as the server reads a
 * day), or at a time. After it every payment is refused; the owner is told a day before.
 */
export function PolicyEndField({ end, error, onChange }: { end: EndDraft; error: string | undefined; onChange: (end: EndDraft) => void }) {
  const described = error ? 'expiresAt-error' : undefined;
  return (
    <fieldset className="services policy-end" aria-describedby={described}>
      <legend>Ends</legend>
      <div className="choice-row">
        <label className="check">
          <input type="radio" name="policy-end" checked={end.mode === 'never'} onChange={() => onChange({ ...end, mode: 'never' })} />
          Never
        </label>
        <label className="check">
          <input type="radio" name="policy-end" checked={end.mode === 'day'} onChange={() => onChange({ ...end, mode: 'day' })} />
          At the end of a day
        </label>
        <label className="check">
          <input type="radio" name="policy-end" checked={end.mode === 'time'} onChange={() => onChange({ ...end, mode: 'time' })} />
          At a time
        </label>
      </div>
      {end.mode === 'day' && (
        <input
          type="date"
          aria-label="Ends after this day"
          value={end.day}
          onChange={(e) => onChange({ ...end, day: e.target.value })}
          aria-invalid={!!error}
          aria-describedby={described}
        />
      )}
      {end.mode === 'time' && (
        <input
          type="datetime-local"
          aria-label="Ends at"
          value={end.time}
          onChange={(e) => onChange({ ...end, time: e.target.value })}
          aria-invalid={!!error}
          aria-describedby={described}
        />
      )}
      <p className="hint">After its end every payment is refused until you set a later one; you are told a day before.</p>
      {error && (
        <p className="field-error" id="expiresAt-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
