import { useDashboard } from '../state/store.js';
import { ErrorNote } from './ErrorNote.js';
import { useAction } from '../lib/use-action.js';

/** The kill switch: one click suspends (every payment refused) or resumes an agent. */
export function KillSwitch({ agentId, status, name }: { agentId: string; status: 'active' | 'suspended'; name: string }) {
  const { client, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const active = status === 'active';
  const toggle = () =>
    client &&
    run(async () => {
      await (active ? client.kill(agentId) : client.resume(agentId));
      await refresh();
    });
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
