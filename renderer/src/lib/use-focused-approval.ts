import { useEffect, useRef } from 'react';
import type { Approval } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { useRoute } from './route.js';

/**
 * A request opened by its own link (`#/approvals/<id>`, as an MCP host shows the owner): `focus`, its
 * id; while it waits, its card (given `focusedRef`) is brought into view; once it no longer waits,
 * `ended` is how it ended, if the decided ones read (`recent`) hold it.
 */
export function useFocusedApproval(recent: Approval[]) {
  const pendingApprovals = useDashboard((s) => s.pendingApprovals);
  const route = useRoute();
  const focus = route.page === 'approvals' ? route.approvalId : undefined;
  const focusedRef = useRef<HTMLLIElement | null>(null);
  const waits = focus !== undefined && pendingApprovals.some((a) => a.approvalId === focus);
  useEffect(() => {
    if (waits) focusedRef.current?.scrollIntoView?.({ block: 'center' });
  }, [waits, focus]);
  const ended = focus !== undefined && !waits ? recent.find((a) => a.approvalId === focus) : undefined;
  return { focus, waits, ended, focusedRef };
}
