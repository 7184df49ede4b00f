import { useState, type FormEvent } from 'react';
import { allocateBodySchema, describeIssues } from '../../../server/wire/schemas.js';
import { ErrorNote } from './ErrorNote.js';

/**
 * One amount of USDC and a button (allocate, faucet), validated like the server validates it. The
 * field shows `initial` (a return's: the wallet's balance) and follows it when it changes, until the
 * owner types an amount of their own; a done submit goes back to following it. `whenEmpty`: what an
 * empty field asks for (a return's: all of it, as the API takes no amount), submitted as null, and
 * said on the button while the field is empty: a placeholder is hidden by the figure it replaces.
 */
export function AmountForm(
  props: { label: string; action: string; initial?: string } & (
    | { whenEmpty?: undefined; onSubmit: (amount: string) => Promise<string | void> }
    | { whenEmpty: string; onSubmit: (amount: string | null) => Promise<string | void> }
  ),
) {
  const { label, action, initial = '', whenEmpty } = props;
  // What the owner typed, or null: the field then shows `initial` as it is now.
  const [typed, setTyped] = useState<string | null>(null);
  const amount = typed ?? initial;
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = `amount-${action.replace(/\W+/g, '-').toLowerCase()}`;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const value = amount.trim();
    // The server's own rule, in its words.
    const checked = allocateBodySchema.safeParse({ amount: value });
    if (!checked.success && !(value === '' && whenEmpty !== undefined)) {
      setError(describeIssues(checked.error).message);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const said = props.whenEmpty !== undefined && value === '' ? await props.onSubmit(null) : await props.onSubmit(value);
      setDone(said ?? 'Done');
      setTyped(null);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="amount-form" onSubmit={submit} noValidate>
      <label htmlFor={id}>{label}</label>
      <div className="inline">
        <input
          id={id}
          inputMode="decimal"
          placeholder={whenEmpty ?? '0.00'}
          value={amount}
          onChange={(e) => setTyped(e.target.value)}
          aria-invalid={!!error}
        />
        <span className="unit">USDC</span>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Working…' : whenEmpty !== undefined && amount.trim() === '' ? `${action} ${whenEmpty}` : action}
        </button>
      </div>
      <ErrorNote error={error} />
      {done && (
        <p className="done" role="status">
          {done}
        </p>
      )}
    </form>
  );
}
