import type { PolicyWhatIf } from '../api/types.js';
import type { PolicyUpdate } from '../lib/policy-form.js';
import type { SaveNote } from '../lib/use-policy-draft.js';
import { WhatIfPreview } from './WhatIfPreview.js';

/** The policy editor's Save, what the last Save came to, and (given `tryUpdate`) the pending change tried on past payments. */
export function PolicySaveActions({
  busy,
  saved,
  pending,
  timeZone,
  tryUpdate,
}: {
  busy: boolean;
  saved: SaveNote;
  pending: PolicyUpdate | null;
  timeZone: string;
  tryUpdate: ((update: PolicyUpdate) => Promise<PolicyWhatIf>) | undefined;
}) {
  return (
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
  );
}
