/** Deny and Approve for one waiting request; both off while it is being decided. */
export function DecisionButtons({
  busy,
  payment,
  onDecide,
}: {
  busy: boolean;
  /** A held payment: approving it pays it. */
  payment: boolean;
  onDecide: (decision: 'approve' | 'deny') => void;
}) {
  return (
    <div className="actions">
      <button type="button" className="button" disabled={busy} onClick={() => onDecide('deny')}>
        Deny
      </button>
      <button type="button" className="button primary" disabled={busy} onClick={() => onDecide('approve')}>
        {busy ? 'Working…' : payment ? 'Approve and pay' : 'Approve'}
      </button>
    </div>
  );
}
