import { Dialog } from './Dialog.js';

/** Asks before a change that loosens the policy is saved, saying what it loosens (`loosenings`). */
export function LoosenDialog({ reasons, onCancel, onConfirm }: { reasons: string[] | null; onCancel: () => void; onConfirm: () => void }) {
  return (
    <Dialog open={reasons !== null} onClose={onCancel} title="Loosen these limits?">
      <ul className="loosenings">
        {reasons?.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={onConfirm}>
          Save anyway
        </button>
      </div>
    </Dialog>
  );
}
