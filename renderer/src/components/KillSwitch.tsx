import { useState } from 'react';
import { useDashboard } from '../state/store.js';
import { ErrorNote } from './ErrorNote.js';

/** The kill switch: one click suspends (every payment refused) or resumes an agent. */
export function KillSwitch({ agentId, status, name }: { agentId: string; status: 'active' | 'suspended'; name: string }) {
  const { client, refresh } = useDashboard();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const active = status === 'active';
  const toggle = async () => {
    if (!client) return;
    setBusy(true);
    setError(null);
    try {
      await (active ? client.kill(agentId) : client.resume(agentId));
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="kill-switch">
      <button
        type="button"
        role="switch"
        aria-checked={active}
        aria-label={`${name}: ${active ? 'active, click to stop' : 'stopped, click to resume'}`}
        title={active ? 'Click to stop this agent: every payment is refused until resumed' : 'Click to resume this agent'}
        className={`switch ${active ? 'on' : 'off'}`}
        disabled={busy}
        onClick={toggle}
      >
        <span className="switch-track" aria-hidden="true">
          <span className="switch-knob" />
        </span>
        <span className="switch-text">{active ? 'Active' : 'Stopped'}</span>
      </button>
      <ErrorNote error={error} />
    </span>
  );
}
