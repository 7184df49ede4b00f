/**
 * When the agent asks the owner first: payments above an amount (empty: never; 0: every payment) and,
 * ticked, the first payment to a recipient it never paid. Such a payment waits in Approvals for the
 * owner's yes, counted against its budgets meanwhile (server/core/policy/holds.ts).
 */
export function AskFields({
  askAbove,
  askNewRecipient,
  error,
  onChange,
}: {
  askAbove: string;
  askNewRecipient: boolean;
  error: string | undefined;
  onChange: (change: { askAbove?: string; askNewRecipient?: boolean }) => void;
}) {
  return (
    <fieldset className="services ask-first">
      <legend>Ask me first</legend>
      <div className={`field${error ? ' invalid' : ''}`}>
        <label htmlFor="askAbove">Ask me above (USDC)</label>
        <input
          id="askAbove"
          className="ask-above"
          inputMode="decimal"
          placeholder="never"
          value={askAbove}
          onChange={(e) => onChange({ askAbove: e.target.value })}
          aria-invalid={!!error}
          aria-describedby={error ? 'askAbove-hint askAbove-error' : 'askAbove-hint'}
        />
        <p className="hint" id="askAbove-hint">
          Payments above it wait for your yes in Approvals. 0: every payment; empty: never.
        </p>
        {error && (
          <p className="field-error" id="askAbove-error">
            {error}
          </p>
        )}
      </div>
      <label className="check ask-new">
        <input type="checkbox" checked={askNewRecipient} onChange={(e) => onChange({ askNewRecipient: e.target.checked })} />
        Ask before the first payment to a new recipient
      </label>
    </fieldset>
  );
}
