import { useEffect, useState } from 'react';
import type { Approval } from '../api/types.js';
import { useDashboard } from '../state/store.js';

/**
 * The last full read of the approvals, read again whenever the pending ones change: the latest 20
 * decided (expired, withdrawn) and the ids still waiting (the store's list may lag a link just
 * opened). `waiting` is null until the first answer.
 */
export function useDecidedApprovals(): { recent: Approval[]; waiting: Set<string> | null } {
  const client = useDashboard((s) => s.client);
  const pendingApprovals = useDashboard((s) => s.pendingApprovals);
  const [recent, setRecent] = useState<Approval[]>([]);
  const [waiting, setWaiting] = useState<Set<string> | null>(null);
  useEffect(() => {
    client?.approvals().then(
      (r) => {
        setRecent(r.approvals.filter((a) => a.status !== 'pending').slice(0, 20));
        setWaiting(new Set(r.approvals.filter((a) => a.status === 'pending').map((a) => a.approvalId)));
      },
      () => undefined,
    );
  }, [client, pendingApprovals]);
  return { recent, waiting };
}
