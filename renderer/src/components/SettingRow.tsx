import { useState, type ReactNode } from 'react';

/**
 * A row of the Settings card: its label, what is in force (under `testId`) and a hint of what it
 * means, with a Change button that opens the row's form below it until the form says it is done.
 */
export function SettingRow(props: {
  label: string;
  testId: string;
  value: ReactNode;
  hint: ReactNode;
  /** The button's accessible name ("Change the time zone"). */
  changeLabel: string;
  form: (done: () => void) => ReactNode;
}) {
  const { label, testId, value, hint, changeLabel, form } = props;
  const [editing, setEditing] = useState(false);
  return (
    <>
      <div className="setting">
        <div className="setting-text">
          <span className="label-like">{label}</span> <span data-testid={testId}>{value}</span>
          <p className="hint">{hint}</p>
        </div>
        {!editing && (
          <button type="button" className="button small" onClick={() => setEditing(true)} aria-label={changeLabel}>
            Change
          </button>
        )}
      </div>
      {editing && form(() => setEditing(false))}
    </>
  );
}
