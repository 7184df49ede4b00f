import { useState } from 'react';
import type { Approval } from '../api/types.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { saidOf, type Said } from './approval-words.js';

/**
 * The owner's yes or no to a request: which one is being decided (`busy`, its id), what the last
 * decision came to (`said`), and each request's refusal by the server (`errors`, by id).
 */
export function useApprovalDecision() {
  const client = useDashboard((s) => s.client);
  const refresh = useDashboard((s) => s.refresh);
  const timeZone = useTimeZone();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [said, setSaid] = useState<Said | null>(null);
  const decide = async (approval: Approval, decision: 'approve' | 'deny') => {
    if (!client) return;
    setBusy(approval.approvalId);
    setSaid(null);
    try {
      const result = await (decision === 'approve' ? client.approve(approval.approvalId) : client.deny(approval.approvalId));
      setErrors((e) => ({ ...e, [approval.approvalId]: '' }));
      setSaid(saidOf(approval, result, timeZone));
      await refresh();
    } catch (e) {
      // Refused before anything was decided (a sign-in too old, confirmation_required): it still waits, the reason on its card.
      setErrors((all) => ({ ...all, [approval.approvalId]: (e as Error).message }));
    } finally {
      setBusy(null);
    }
  };
  return { decide, busy, errors, said };
}
