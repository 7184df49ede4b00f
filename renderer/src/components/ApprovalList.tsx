import type { Ref } from 'react';
import type { Approval } from '../api/types.js';
import { zoneNote } from '../lib/time-zone.js';
import { ApprovalCard } from './ApprovalCard.js';

/** The requests waiting for the owner, a card each, under a note of the time zone their times are in. */
export function ApprovalList({
  approvals,
  focus,
  focusedRef,
  busy,
  errors,
  timeZone,
  onDecide,
}: {
  approvals: Approval[];
  focus: string | undefined;
  focusedRef: Ref<HTMLLIElement>;
  /** The request being decided, by id. */
  busy: string | null;
  /** Each request's refusal by the server, by id. */
  errors: Record<string, string>;
  timeZone: string;
  onDecide: (approval: Approval, decision: 'approve' | 'deny') => Promise<void>;
}) {
  const note = zoneNote(timeZone);
  return (
    <>
      {note && (
        <p className="hint zone-note" data-testid="approvals-zone">
          {`${note.charAt(0).toUpperCase()}${note.slice(1)}`}: your time zone, set on the Overview.
        </p>
      )}
      <ul className="approvals">
        {approvals.map((approval) => (
          <ApprovalCard
            key={approval.approvalId}
            approval={approval}
            focused={approval.approvalId === focus}
            focusedRef={focusedRef}
            busy={busy === approval.approvalId}
            error={errors[approval.approvalId]}
            timeZone={timeZone}
            onDecide={(decision) => void onDecide(approval, decision)}
          />
        ))}
      </ul>
    </>
  );
}
