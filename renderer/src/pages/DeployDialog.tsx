import { useState, type FormEvent } from 'react';
import { deployBodySchema } from '../../../server/wire/schemas.js';
import { FieldRefusal, useAction } from '../lib/use-action.js';
import { CofferApiError } from '../../../server/client/client-error.js';
import type { Deployed } from '../api/types.js';
import { Money } from '../components/Money.js';
import { railName } from '../../../server/wire/rail-words.js';
import { useBaseOff, useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { KeyOnce, UncopiedKeyWarning, useKeyCloseGuard } from '../components/KeyOnce.js';
import { Dialog } from '../components/Dialog.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { NewAgentFields, emptyNewAgent, newAgentBody } from '../components/NewAgentFields.js';

/** Deploys an agent; shows its API key once, and the MCP config to paste into an MCP host. */
export function DeployDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { client, refresh } = useDashboard();
  const [form, setForm] = useState(emptyNewAgent());
  const { busy, error, setError, invalid, submit: submitForm } = useAction();
  const [deployed, setDeployed] = useState<Deployed | null>(null);
  // The agent's page, where "Open its page" asked to go before its key was copied: opened once the
  // owner closes without the key (the link's own move was held back to ask).
  const [thenOpen, setThenOpen] = useState<string | null>(null);
  // Its Base account is offered where the rail is open (as its page does): funds may have gone there.
  const baseOff = useBaseOff();

  const close = () => {
    setDeployed(null);
    setThenOpen(null);
    guard.reset();
    setError(null);
    setForm(emptyNewAgent());
    onClose();
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await submitForm(deployBodySchema, newAgentBody(form), async (body) => {
      if (!client) return;
      setDeployed(await client.deploy(body).catch((error: unknown) => Promise.reject(takenIdSaid(error, body.agentId))));
      await refresh();
    });
  };
  // The key exists only in this dialog: closing before copying it asks first.
  const guard = useKeyCloseGuard(close);
  // While the deploy is under way nothing closes: its answer carries the only copy of the key.
  const requestClose = () => {
    if (!busy) guard.requestClose(deployed?.apiKey !== undefined);
  };
  return (
    <Dialog
      open={open}
      onClose={close}
      onRequestClose={requestClose}
      title={deployed ? `Agent ${deployed.agent.displayName} is ready` : 'Deploy an agent'}
    >
      {deployed ? (
        <div className="deployed">
          <KeyOnce
            agentId={deployed.agent.agentId}
            apiKey={deployed.apiKey ?? ''}
            mcpConfig={deployed.mcpConfig}
            onCopied={guard.markCopied}
          />
          <FundingNote funding={deployed.funding} />
          <p className="muted" data-testid="deployed-wallets">
            {baseOff ? (
              <>
                Wallet <code>{deployed.agent.walletAddress}</code>.
              </>
            ) : (
              <>
                Wallets: on Solana <code>{deployed.agent.walletAddress}</code>, on Base <code>{deployed.agent.wallets.base}</code>.
              </>
            )}
            {/* A failed funding says so, with where to allocate, in its own note. */}
            {deployed.funding === undefined
              ? ' Allocate funds to it from its page.'
              : deployed.funding.status === 'funded'
                ? ' Allocate more from its page.'
                : ''}
          </p>
          {guard.confirming ? (
            <UncopiedKeyWarning
              onBack={() => {
                setThenOpen(null);
                guard.cancelConfirm();
              }}
              onClose={() => {
                close();
                if (thenOpen !== null) window.location.hash = thenOpen;
              }}
            />
          ) : (
            <div className="dialog-actions">
              <a
                className="button"
                href={hrefFor({ page: 'agent', agentId: deployed.agent.agentId })}
                onClick={(event) => {
                  // Follows the link only once the dialog may close.
                  if (!guard.requestClose(deployed.apiKey !== undefined)) {
                    event.preventDefault();
                    setThenOpen(event.currentTarget.hash);
                  }
                }}
              >
                Open its page
              </a>
              <button type="button" className="button primary" onClick={requestClose}>
                Done
              </button>
            </div>
          )}
        </div>
      ) : (
        <form onSubmit={submit} noValidate>
          <NewAgentFields form={form} onChange={setForm} idPrefix="deploy" invalid={invalid} />
          <ErrorNote error={error} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? 'Deploying…' : 'Deploy'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/** What became of the funds asked for with the new agent: moved, or why not (the agent exists either way). */
export function FundingNote({ funding }: { funding: Deployed['funding'] | undefined }) {
  if (funding === undefined) return null;
  return funding.status === 'funded' ? (
    <p className="done" role="status">
      Funded with <Money value={funding.allocation.amount} /> on {railName(funding.allocation.rail)} from the treasury.
    </p>
  ) : (
    <p className="error-note" role="alert">
      The agent exists, but funding it failed: {funding.error} Allocate from its page.
    </p>
  );
}

/**
 * An id taken, said as the dashboard does it, beside Agent id: the server's words name the CLI's
 * commands for a deploy whose answer was lost (helper 181). An archived agent's are its own already.
 */
function takenIdSaid(error: unknown, agentId: string): unknown {
  if (!(error instanceof CofferApiError) || error.code !== 'agent_exists') return error;
  if (error.message.startsWith('an archived agent')) {
    return new FieldRefusal(`An archived agent "${agentId}" keeps that id, its history under it: choose another id.`, 'agentId');
  }
  return new FieldRefusal(
    `An agent "${agentId}" already exists: choose another id. If its deploy was never answered, its page replaces its key and funds it.`,
    'agentId',
  );
}
