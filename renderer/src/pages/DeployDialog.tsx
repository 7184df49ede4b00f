import { useState, type FormEvent } from 'react';
import { deployBodySchema, describeIssues } from '../../../server/core/schemas.js';
import type { Deployed } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { CopyButton } from '../components/CopyButton.js';
import { Dialog } from '../components/Dialog.js';
import { ErrorNote } from '../components/ErrorNote.js';

/** Deploys an agent; shows its API key once, and the MCP config to paste into an MCP host. */
export function DeployDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { client, refresh } = useDashboard();
  const [form, setForm] = useState({ agentId: '', displayName: '', dailyBudget: '5.00', maxPerPayment: '0.50' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deployed, setDeployed] = useState<Deployed | null>(null);

  const close = () => {
    setDeployed(null);
    setError(null);
    setForm({ agentId: '', displayName: '', dailyBudget: '5.00', maxPerPayment: '0.50' });
    onClose();
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = {
      agentId: form.agentId.trim(),
      dailyBudget: form.dailyBudget.trim(),
      maxPerPayment: form.maxPerPayment.trim(),
      ...(form.displayName.trim() ? { displayName: form.displayName.trim() } : {}),
    };
    const parsed = deployBodySchema.safeParse(body);
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
          <div className="fields">
            <div className="field">
              <label htmlFor="deploy-id">Agent id</label>
              <input id="deploy-id" value={form.agentId} onChange={(e) => setForm({ ...form, agentId: e.target.value })} placeholder="research-bot" autoFocus />
              <p className="hint">Lowercase letters, digits, - and _; it never changes.</p>
            </div>
            <div className="field">
              <label htmlFor="deploy-name">Display name (optional)</label>
              <input id="deploy-name" value={form.displayName} onChange={(e) => setForm({ ...form, displayName: e.target.value })} />
            </div>
            <div className="field">
              <label htmlFor="deploy-daily">Daily budget (USDC)</label>
              <input id="deploy-daily" inputMode="decimal" value={form.dailyBudget} onChange={(e) => setForm({ ...form, dailyBudget: e.target.value })} />
            </div>
            <div className="field">
              <label htmlFor="deploy-max">Max per payment (USDC)</label>
              <input id="deploy-max" inputMode="decimal" value={form.maxPerPayment} onChange={(e) => setForm({ ...form, maxPerPayment: e.target.value })} />
            </div>
          </div>
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
