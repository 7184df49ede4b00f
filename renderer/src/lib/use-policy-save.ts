import { useState, type FormEvent } from 'react';
import type { Policy } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { validatePolicyDraft, type PolicyDraft, type PolicyErrors, type PolicyUpdate } from './policy-form.js';
import { loosenings, treasuryHolds } from '../../../server/wire/policy/loosenings.js';
import { endNamed } from './policy-words.js';
import type { SaveNote } from './use-policy-draft.js';

/** A loosening change waiting for the owner's confirmation, with what it loosens. */
interface Confirming {
  update: PolicyUpdate;
  reasons: string[];
}

/**
 * Saving the policy editor's draft: validated with the server's own schema (errors by field), only
 * what changed sent, a loosening confirmed first (`confirming`, then `save`), and the server's own
 * message kept if it still refuses.
 */
export function usePolicySave({
  policy,
  draft,
  timeZone,
  onSave,
  onSaved,
}: {
  policy: Policy;
  draft: PolicyDraft;
  timeZone: string;
  onSave: (update: PolicyUpdate) => Promise<void>;
  onSaved: (note: SaveNote) => void;
}) {
  const treasury = useDashboard((s) => s.dashboard?.treasury ?? null);
  const [errors, setErrors] = useState<PolicyErrors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const save = async (update: PolicyUpdate) => {
    setConfirming(null);
    setBusy(true);
    try {
      await onSave(update);
      onSaved('saved');
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
      onSaved('unchanged');
      return;
    }
    const reasons = loosenings(policy, result.update, treasury === null ? null : treasuryHolds(treasury), timeZone, endNamed);
    if (reasons.length > 0) setConfirming({ update: result.update, reasons });
    else await save(result.update);
  };
  return { errors, serverError, busy, confirming, cancel: () => setConfirming(null), save, submit };
}
