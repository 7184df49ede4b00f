/**
 * The end of a setting's form on the Settings card: the server's refusal in its words (with an id a
 * field can point at), then Save, "Saving…" while it runs, and Cancel.
 */
export function SettingFormEnd(props: { error: string | null; errorId?: string; busy: boolean; saveLabel: string; onCancel: () => void }) {
  const { error, errorId, busy, saveLabel, onCancel } = props;
  return (
    <>
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Saving…' : saveLabel}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </>
  );
}
