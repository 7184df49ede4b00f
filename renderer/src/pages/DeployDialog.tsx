import { useState, type FormEvent } from 'react';
import { deployBodySchema, describeIssues } from '../../../server/core/schemas.js';
import type { Deployed } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { CopyButton } from '../components/CopyButton.js';
import { Dialog } from '../components/Dialog.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { NewAgentFields, emptyNewAgent, newAgentBody } from '../components/NewAgentFields.js';

/** Deploys an agent; shows its API key once, and the MCP config to paste into an MCP host. */
export function DeployDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { client, refresh } = useDashboard();
  const [form, setForm] = useState(emptyNewAgent());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deployed, setDeployed] = useState<Deployed | null>(null);

  const close = () => {
    setDeployed(null);
    setError(null);
    setForm(emptyNewAgent());
    onClose();
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = deployBodySchema.safeParse(newAgentBody(form));
    if (!parsed.success) {
      setError(describeIssues(parsed.error).message);
      return;
    }
    if (!client) return;
    setBusy(true);
    setError(null);
    try {
      setDeployed(await client.deploy(parsed.data));
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const mcpJson = deployed
    ? JSON.stringify({ mcpServers: { [`coffer-${deployed.agent.agentId}`]: deployed.mcpConfig } }, null, 2)
    : '';

  return (
    <Dialog open={open} onClose={close} title={deployed ? `Agent ${deployed.agent.displayName} is ready` : 'Deploy an agent'}>
      {deployed ? (
        <div className="deployed">
          <p>
            This is the agent's API key. <strong>It is shown only now</strong>: Coffer keeps only its hash.
          </p>
          <div className="secret">
            <code data-testid="api-key">{deployed.apiKey}</code>
            <CopyButton text={deployed.apiKey ?? ''} label="Copy key" />
          </div>
          <p>Paste this into your MCP host's configuration (Claude Desktop, Cursor, …):</p>
          <pre className="code" data-testid="mcp-config">{mcpJson}</pre>
          <CopyButton text={mcpJson} label="Copy MCP config" />
          <p className="muted">
            Wallet <code>{deployed.agent.walletAddress}</code>. Allocate funds to it from its page.
          </p>
          <div className="dialog-actions">
            <a className="button" href={hrefFor({ page: 'agent', agentId: deployed.agent.agentId })} onClick={close}>
              Open its page
            </a>
            <button type="button" className="button primary" onClick={close}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit} noValidate>
          <NewAgentFields form={form} onChange={setForm} idPrefix="deploy" />
          <ErrorNote error={error} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close}>
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
