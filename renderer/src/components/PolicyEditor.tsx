import { useEffect, useMemo, useState, type FormEvent, type KeyboardEvent } from 'react';
import { isSolanaAddress } from '../../../server/wire/schemas.js';
import type { Policy, PolicyWhatIf, Service } from '../api/types.js';
import { draftOf, loosenings, validatePolicyDraft, type PolicyDraft, type PolicyErrors, type PolicyUpdate } from '../lib/policy-form.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { AskFields } from './AskFields.js';
import { BreakerFields } from './BreakerFields.js';
import { BudgetRows } from './BudgetRows.js';
import { Dialog } from './Dialog.js';
import { ExampleTag } from './ExampleTag.js';
import { ErrorNote } from './ErrorNote.js';
import { PolicyEndField } from './PolicyEndField.js';
import { WhatIfPreview } from './WhatIfPreview.js';

/**
 * The policy editor: the same validation as the server (its own schema), field errors next to their
 * fields in the same words, and the server's own message if it still refuses. Which services may be
 * paid is an explicit choice (any, or only those ticked, registry services or recipient addresses: a
 * Solana address allows every payment to it, as the server reads `allowedServices`). Which payments wait for the owner's yes
 * first: above an amount, to a new recipient (AskFields). Only what changed is sent. A limit loosened
 * by a large factor, a daily budget above what the treasury holds, a budget removed or raised, an end
 * moved later or removed, a slower breaker, fewer warnings or fewer payments asked about are confirmed
 * first. Days and times of the end are the owner's time zone's (GET /v1/settings), where the server
 * ends a day. Given
 * `tryUpdate`, a valid change is tried on the agent's last 30 days as the owner types (WhatIfPreview):
 * the very update Save would send.
 */
export function PolicyEditor({
  policy,
  services,
  onSave,
  tryUpdate,
}: {
  policy: Policy;
  services: Service[];
  onSave: (update: PolicyUpdate) => Promise<void>;
  tryUpdate?: (update: PolicyUpdate) => Promise<PolicyWhatIf>;
}) {
  const treasury = useDashboard((s) => s.dashboard?.treasury.amount ?? null);
  const timeZone = useTimeZone();
  const [draft, setDraft] = useState<PolicyDraft>(() => draftOf(policy, timeZone));
  const [errors, setErrors] = useState<PolicyErrors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [saved, setSaved] = useState<'saved' | 'unchanged' | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<{ update: PolicyUpdate; reasons: string[] } | null>(null);
  // A recipient address being added to "Only these", and why it was not (if it was not).
  const [address, setAddress] = useState('');
  const [addressError, setAddressError] = useState<string | null>(null);
  // The draft starts again from the policy when the policy itself changes (or the zone its end is
  // read in), not at every refresh of the dashboard (a payment elsewhere would wipe what the owner is
  // typing).
  const policyKey = JSON.stringify(policy);
  useEffect(() => setDraft(draftOf(JSON.parse(policyKey) as Policy, timeZone)), [policyKey, timeZone]);

  // What Save would send now, or null while the draft is invalid or changes nothing: what is tried.
  const pending = useMemo(() => {
    if (!tryUpdate) return null;
    const result = validatePolicyDraft(draft, policy, { now: Date.now(), timeZone });
    return result.ok && Object.keys(result.update).length > 0 ? result.update : null;
  }, [draft, policy, timeZone, tryUpdate !== undefined]);

  const set = <K extends keyof PolicyDraft>(field: K, value: PolicyDraft[K]) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setSaved(null);
  };
  const save = async (update: PolicyUpdate) => {
    setConfirming(null);
    setBusy(true);
    try {
      await onSave(update);
      setSaved('saved');
    } catch (e) {
      setServerError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setServerError(null);
    const result = validatePolicyDraft(draft, policy, { now: Date.now(), timeZone });
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    if (Object.keys(result.update).length === 0) {
      setSaved('unchanged');
      return;
    }
    const reasons = loosenings(policy, result.update, treasury === null ? null : BigInt(treasury), timeZone);
    if (reasons.length > 0) setConfirming({ update: result.update, reasons });
    else await save(result.update);
  };
  const toggleService = (id: string) =>
    set(
      'allowedServices',
      draft.allowedServices.includes(id) ? draft.allowedServices.filter((s) => s !== id) : [...draft.allowedServices, id],
    );
  // Addresses first: the list of services may be long, and scrolls.
  const unlisted = draft.allowedServices.filter((id) => !services.some((s) => s.id === id));
  const addresses = unlisted.filter(isSolanaAddress);
  const unknown = unlisted.filter((id) => !isSolanaAddress(id));
  // The server's own rule for an entry that is not a registry service, in its words.
  const addAddress = () => {
    const text = address.trim();
    if (!isSolanaAddress(text)) {
      setAddressError(text === '' ? 'Type the recipient’s Solana address to add it' : `${text} is not a Solana address (base58, 32 bytes)`);
      return;
    }
    if (draft.allowedServices.includes(text)) {
      setAddressError('This address is already allowed');
      return;
    }
    setAddressError(null);
    setAddress('');
    set('allowedServices', [...draft.allowedServices, text]);
  };
  const addOnEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter adds the address; it does not save the policy.
    if (event.key !== 'Enter') return;
    event.preventDefault();
    addAddress();
  };

  // One of the text fields: its value from the draft, its error (if any) named for screen readers. A
  // function called in place, not a component declared in render (that would remount the input, and
  // lose its focus, on every keystroke).
  const textField = (field: TextFieldName, label: string, inputMode: 'decimal' | 'numeric' | 'text') => (
    <Field id={field} label={label} error={errors[field]}>
      <input
        id={field}
        inputMode={inputMode}
        value={draft[field]}
        onChange={(e) => set(field, e.target.value)}
        aria-invalid={!!errors[field]}
        aria-describedby={errors[field] ? `${field}-error` : undefined}
      />
    </Field>
  );

  return (
    <form className="policy-editor" onSubmit={submit} noValidate aria-label="Spending policy">
      <div className="fields">
        {textField('dailyBudget', 'Daily budget (USDC, rolling 24 h)', 'decimal')}
        {textField('maxPerPayment', 'Max per payment (USDC)', 'decimal')}
        {textField('cooldownSeconds', 'Cooldown between payments (seconds, 0 = none)', 'numeric')}
      </div>
      <fieldset className="services" aria-describedby={errors.allowedServices ? 'allowedServices-error' : undefined}>
        <legend>Allowed services</legend>
        <label className="check">
          <input type="radio" name="service-scope" checked={draft.scope === 'any'} onChange={() => set('scope', 'any')} />
          Any service
        </label>
        <label className="check">
          <input type="radio" name="service-scope" checked={draft.scope === 'only'} onChange={() => set('scope', 'only')} />
          Only these{draft.scope === 'only' ? ` (${draft.allowedServices.length} picked)` : ''}
        </label>
        {draft.scope === 'only' && (
          <div className="service-options">
            {addresses.map((id) => (
              <div key={id} className="allowed-address" data-testid={`allowed-address-${id}`}>
                <span>
                  Every payment to <code className="address">{id}</code>
                </span>
                <button type="button" className="button small" aria-label={`Remove ${id}`} onClick={() => toggleService(id)}>
                  Remove
                </button>
              </div>
            ))}
            {services.map((service) => (
              <label key={service.id} className="check">
                <input type="checkbox" checked={draft.allowedServices.includes(service.id)} onChange={() => toggleService(service.id)} />
                {service.name} <code>{service.id}</code>
                <ExampleTag endpoint={service.endpoint} />
              </label>
            ))}
            {unknown.map((id) => (
              <label key={id} className="check">
                <input type="checkbox" checked onChange={() => toggleService(id)} />
                <code>{id}</code> (not in the registry)
              </label>
            ))}
          </div>
        )}
        {draft.scope === 'only' && (
          <div className={`field${addressError ? ' invalid' : ''}`}>
            <label htmlFor="allowed-address">Or a recipient address (every payment to it is allowed)</label>
            <div className="inline">
              <input
                id="allowed-address"
                placeholder="Solana address"
                spellCheck={false}
                autoComplete="off"
                value={address}
                onChange={(e) => {
                  setAddress(e.target.value);
                  setAddressError(null);
                }}
                onKeyDown={addOnEnter}
                aria-invalid={!!addressError}
                aria-describedby={addressError ? 'allowed-address-error' : undefined}
              />
              <button type="button" className="button" onClick={addAddress}>
                Add the address
              </button>
            </div>
            {addressError && (
              <p className="field-error" id="allowed-address-error">
                {addressError}
              </p>
            )}
          </div>
        )}
        {errors.allowedServices && (
          <p className="field-error" id="allowedServices-error">
            {errors.allowedServices}
          </p>
        )}
      </fieldset>
      <BudgetRows
        budgets={draft.budgets}
        services={services}
        rowErrors={errors.budgetRows}
        listError={errors.budgets}
        onChange={(budgets) => set('budgets', budgets)}
      />
      <AskFields
        askAbove={draft.askAbove}
        askNewRecipient={draft.askNewRecipient}
        error={errors.askAbove ?? errors.askNewRecipient}
        onChange={(change) => {
          setDraft((d) => ({ ...d, ...change }));
          setSaved(null);
        }}
      />
      <PolicyEndField end={draft.end} error={errors.expiresAt} timeZone={timeZone} onChange={(end) => set('end', end)} />
      <div className="fields spaced">{textField('warnAt', 'Warn me at (% of any budget, e.g. 80, 95; empty: never)', 'text')}</div>
      <BreakerFields breaker={draft.breaker} error={errors.breaker} onChange={(breaker) => set('breaker', breaker)} />
      <ErrorNote error={serverError} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save policy'}
        </button>
        {saved && (
          <span className="saved" role="status">
            {saved === 'saved' ? 'Saved' : 'Nothing changed: the policy is as shown'}
          </span>
        )}
        {tryUpdate && <WhatIfPreview update={pending} timeZone={timeZone} tryUpdate={tryUpdate} />}
      </div>
      <Dialog open={confirming !== null} onClose={() => setConfirming(null)} title="Loosen these limits?">
        <ul className="loosenings">
          {confirming?.reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => setConfirming(null)} autoFocus>
            Cancel
          </button>
          <button type="button" className="button danger" onClick={() => confirming && void save(confirming.update)}>
            Save anyway
          </button>
        </div>
      </Dialog>
    </form>
  );
}

type TextFieldName = 'dailyBudget' | 'maxPerPayment' | 'cooldownSeconds' | 'warnAt';

function Field({ id, label, error, children }: { id: string; label: string; error: string | undefined; children: React.ReactNode }) {
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
