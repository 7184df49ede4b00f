import type { EndDraft } from '../lib/policy-form.js';
import { zoneNote } from '../lib/time-zone.js';

/**
 * When the policy ends: never, at the end of a day (midnight in the owner's time zone, as the server
 * reads a day), or at a time (read in that zone too, said where it is not this browser's). After it
 * every payment is refused; the owner is told a day before.
 */
export function PolicyEndField({
  end,
  error,
  timeZone,
  onChange,
}: {
  end: EndDraft;
  error: string | undefined;
  timeZone: string;
  onChange: (end: EndDraft) => void;
}) {
  const note = zoneNote(timeZone);
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
      {end.mode !== 'never' && note && (
        <p className="hint" data-testid="end-zone">
          The day ends at midnight, and a time is read, in {timeZone}: your time zone, set on the Overview.
        </p>
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
