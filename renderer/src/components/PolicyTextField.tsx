/** The policy's fields typed as text, each named by its draft field (its input's id). */
export type PolicyTextFieldName = 'dailyBudget' | 'maxPerPayment' | 'cooldownSeconds' | 'warnAt';

/** One of the policy's text fields: its label, its input, and its error or note (if any) named for screen readers. */
export function PolicyTextField({
  field,
  label,
  inputMode,
  value,
  error,
  note = null,
  onChange,
}: {
  field: PolicyTextFieldName;
  label: string;
  inputMode: 'decimal' | 'numeric' | 'text';
  value: string;
  error: string | undefined;
  /** What holds but may surprise (a max that never binds); an error, where there is one, is said instead. */
  note?: string | null;
  onChange: (value: string) => void;
}) {
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={field}>{label}</label>
      <input
        id={field}
        inputMode={inputMode}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!error}
        aria-describedby={error ? `${field}-error` : note !== null ? `${field}-note` : undefined}
      />
      {error ? (
        <p className="field-error" id={`${field}-error`}>
          {error}
        </p>
      ) : (
        note !== null && (
          <p className="hint" id={`${field}-note`}>
            {note}
          </p>
        )
      )}
    </div>
  );
}
