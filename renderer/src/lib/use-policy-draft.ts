import { useEffect, useState } from 'react';
import type { Policy } from '../api/types.js';
import { draftOf, type PolicyDraft } from './policy-form.js';

/** What Save last came to for the draft on screen; cleared by the next edit. */
export type SaveNote = 'saved' | 'unchanged' | null;

/** The policy editor's draft: the policy's fields as typed, edited a few fields at a time. */
export function usePolicyDraft(policy: Policy, timeZone: string) {
  const [draft, setDraft] = useState<PolicyDraft>(() => draftOf(policy, timeZone));
  const [saved, setSaved] = useState<SaveNote>(null);
  // The draft starts again from the policy when the policy itself changes (or the zone its end is
  // read in), not at every refresh of the dashboard (a payment elsewhere would wipe what the owner is
  // typing).
  const policyKey = JSON.stringify(policy);
  useEffect(() => setDraft(draftOf(JSON.parse(policyKey) as Policy, timeZone)), [policyKey, timeZone]);
  const edit = (change: Partial<PolicyDraft>) => {
    setDraft((d) => ({ ...d, ...change }));
    setSaved(null);
  };
  return { draft, edit, saved, setSaved };
}
