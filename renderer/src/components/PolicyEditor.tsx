import { useEffect, useState, type FormEvent } from 'react';
import type { Policy, Service } from '../api/types.js';
import { draftOf, validatePolicyDraft, type PolicyDraft, type PolicyErrors } from '../lib/policy-form.js';
import { ErrorNote } from './ErrorNote.js';

/**
 * The policy editor: the same validation as the server (its own schema), field errors
 * next to their fields, and the server's own message if it still refuses.
 */
export function PolicyEditor({
  policy,
  services,
  onSave,
}: {
  policy: Policy;
  services: Service[];
  onSave: (update: ReturnType<typeof validatePolicyDraft> extends infer R ? (R extends { ok: true; update: infer U } ? U : never) : never) => Promise<void>;
}) {
  const [draft, setDraft] = useState<PolicyDraft>(() => draftOf(policy));
  const [errors, setErrors] = useState<PolicyErrors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(draftOf(policy)), [policy]);

  const set = (field: keyof PolicyDraft, value: string | string[]) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setSaved(false);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setServerError(null);
    const result = validatePolicyDraft(draft);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await onSave(result.update);
      setSaved(true);
    } catch (e) {
      setServerError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const toggleService = (id: string) =>
    set('allowedServices', draft.allowedServices.includes(id) ? draft.allowedServices.filter((s) => s !== id) : [...draft.allowedServices, id]);
  const unknown = draft.allowedServices.filter((id) => !services.some((s) => s.id === id));

  return (
    <form className="policy-editor" onSubmit={submit} noValidate aria-label="Spending policy">
      <div className="fields">
        <Field id="dailyBudget" label="Daily budget (USDC, rolling 24 h)" error={errors.dailyBudget}>
          <input id="dailyBudget" inputMode="decimal" value={draft.dailyBudget} onChange={(e) => set('dailyBudget', e.target.value)} aria-invalid={!!errors.dailyBudget} aria-describedby={errors.dailyBudget ? 'dailyBudget-error' : undefined} />
        </Field>
        <Field id="maxPerPayment" label="Max per payment (USDC)" error={errors.maxPerPayment}>
          <input id="maxPerPayment" inputMode="decimal" value={draft.maxPerPayment} onChange={(e) => set('maxPerPayment', e.target.value)} aria-invalid={!!errors.maxPerPayment} aria-describedby={errors.maxPerPayment ? 'maxPerPayment-error' : undefined} />
        </Field>
        <Field id="cooldownSeconds" label="Cooldown between payments (seconds, 0 = none)" error={errors.cooldownSeconds}>
          <input id="cooldownSeconds" inputMode="numeric" value={draft.cooldownSeconds} onChange={(e) => set('cooldownSeconds', e.target.value)} aria-invalid={!!errors.cooldownSeconds} aria-describedby={errors.cooldownSeconds ? 'cooldownSeconds-error' : undefined} />
        </Field>
      </div>
      <fieldset className="services">
        <legend>Allowed services {draft.allowedServices.length === 0 ? '(none picked: every service is allowed)' : `(${draft.allowedServices.length} picked: only these)`}</legend>
        <div className="service-options">
          {services.map((service) => (
            <label key={service.id} className="check">
              <input type="checkbox" checked={draft.allowedServices.includes(service.id)} onChange={() => toggleService(service.id)} />
              {service.name} <code>{service.id}</code>
            </label>
          ))}
          {unknown.map((id) => (
            <label key={id} className="check">
              <input type="checkbox" checked onChange={() => toggleService(id)} />
              <code>{id}</code> (not in the registry)
            </label>
          ))}
        </div>
        {errors.allowedServices && <p className="field-error">{errors.allowedServices}</p>}
      </fieldset>
      <ErrorNote error={serverError} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save policy'}
        </button>
        {saved && <span className="saved" role="status">Saved</span>}
      </div>
    </form>
  );
}

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
