import type { KeyboardEvent } from 'react';

/** The field that adds a recipient address to "Only these": Enter or the button adds it, a refusal shows under it. */
export function AllowedAddressField({
  address,
  error,
  onType,
  onAdd,
}: {
  address: string;
  error: string | null;
  onType: (text: string) => void;
  onAdd: () => void;
}) {
  const addOnEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter adds the address; it does not save the policy.
    if (event.key !== 'Enter') return;
    event.preventDefault();
    onAdd();
  };
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor="allowed-address">Or a recipient address (every payment to it is allowed)</label>
      <div className="inline">
        <input
          id="allowed-address"
          placeholder="Solana or Base address"
          spellCheck={false}
          autoComplete="off"
          value={address}
          onChange={(e) => onType(e.target.value)}
          onKeyDown={addOnEnter}
          aria-invalid={!!error}
          aria-describedby={error ? 'allowed-address-error' : undefined}
        />
        <button type="button" className="button" onClick={onAdd}>
          Add the address
        </button>
      </div>
      {error && (
        <p className="field-error" id="allowed-address-error">
          {error}
        </p>
      )}
    </div>
  );
}
