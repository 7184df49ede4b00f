/** The policy's fields typed as text, each named by its draft field (its input's id). */
export type PolicyTextFieldName = 'dailyBudget' | 'maxPerPayment' | 'cooldownSeconds' | 'warnAt';

/** One of the policy's text fields: its label, its input, and its error (if any) named for screen readers. */
export function PolicyTextField({
  field,
  label,
  inputMode,
  value,
  error,
  onChange,
}: {
  field: PolicyTextFieldName;
  label: string;
  inputMode: 'decimal' | 'numeric' | 'text';
  value: string;
  error: string | undefined;
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
        aria-describedby={error ? `${field}-error` : undefined}
      />
      {error && (
        <p className="field-error" id={`${field}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
