import { useState } from 'react';
import type { ReplacedKey } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { Dialog } from '../components/Dialog.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { SignInAgain, needsFreshSignIn } from '../components/SignInAgain.js';
import { KeyOnce, UncopiedKeyWarning, useKeyCloseGuard } from '../components/KeyOnce.js';

/** Issues a new API key for an agent (a lost or leaked one): the old keys stop working at once. */
export function ReplaceKeyDialog({ agentId, name, open, onClose }: { agentId: string; name: string; open: boolean; onClose: () => void }) {
  const { client } = useDashboard();
  const [replaced, setReplaced] = useState<ReplacedKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The sign-in is too old to issue a key (confirmation_required): how to sign in again, not the server's words.
  const [stale, setStale] = useState(false);
  const [busy, setBusy] = useState(false);
  const close = () => {
    setReplaced(null);
    setError(null);
    setStale(false);
    guard.reset();
    onClose();
  };
  const guard = useKeyCloseGuard(close);
  // While the old keys are being replaced, nothing closes: the answer carries the only copy of the new key.
  const requestClose = () => {
    if (!busy) guard.requestClose(replaced !== null);
  };
  const replace = async () => {
    if (!client) return;
    setBusy(true);
    setError(null);
    setStale(false);
    try {
      setReplaced(await client.replaceKey(agentId));
    } catch (e) {
      if (needsFreshSignIn(e)) setStale(true);
      else setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      onClose={close}
      onRequestClose={requestClose}
      title={replaced ? `A new key for ${name}` : `Issue a new API key for ${name}?`}
    >
      {replaced ? (
        <>
          <KeyOnce agentId={replaced.agentId} apiKey={replaced.apiKey} mcpConfig={replaced.mcpConfig} onCopied={guard.markCopied} />
          {guard.confirming ? (
            <UncopiedKeyWarning onBack={guard.cancelConfirm} onClose={close} />
          ) : (
            <div className="dialog-actions">
              <button type="button" className="button primary" onClick={requestClose}>
                Done
              </button>
            </div>
          )}
        </>
      ) : (
        <>
          <p>
            The agent's current key <strong>stops working at once</strong>: a terminal linked with it, or an MCP host configured with it,
            needs the new key. Use this when a key was lost or may have leaked.
          </p>
          <ErrorNote error={error} />
          {stale && <SignInAgain then="issue the key there" />}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close} disabled={busy}>
              Cancel
            </button>
            <button type="button" className="button danger" disabled={busy} onClick={replace}>
              {busy ? 'Issuing…' : 'Issue a new key'}
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
