import { useState } from 'react';
import { useDashboard } from '../state/store.js';
import { Dialog } from './Dialog.js';
import { ErrorNote } from './ErrorNote.js';
import { useAction } from '../lib/use-action.js';

/** The big brake: suspends every agent at once, after a confirmation. */
export function StopAll() {
  const { client, refresh, dashboard } = useDashboard();
  const [open, setOpen] = useState(false);
  const { busy, error, run } = useAction();
  const active = dashboard?.agents.filter((a) => a.status === 'active').length ?? 0;
  const stop = async () => {
    if (
      client &&
      (await run(async () => {
        await client.killAll();
        await refresh();
      }))
    )
      setOpen(false);
  };
  return (
    <>
      <button type="button" className="button danger big" onClick={() => setOpen(true)} disabled={active === 0}>
        Stop all agents
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Stop all agents?">
        <p>
          {active === 1 ? 'The active agent' : active === 2 ? 'Both active agents' : `All ${active} active agents`} will be stopped at once.
          Every payment they try is refused until you resume them (one by one, or with Resume all). What they are waiting on you for is
          withdrawn: held payments are never paid. An x402 payment an agent already signed and handed to a seller may still be settled by
          that seller until it ends (on Base, an hour at most); unsettled, it lapses. Wallets and balances are kept.
        </p>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => setOpen(false)} autoFocus>
            Cancel
          </button>
          <button type="button" className="button danger" onClick={stop} disabled={busy}>
            {busy ? 'Stopping…' : 'Stop all agents'}
          </button>
        </div>
      </Dialog>
    </>
  );
}

/** The brake's counterpart: resumes every stopped agent at once (no confirmation: it is undone by Stop all). */
export function ResumeAll({ className = 'button' }: { className?: string }) {
  const { client, refresh, dashboard } = useDashboard();
  const { busy, error, run } = useAction();
  const stoppedAgents = dashboard?.agents.filter((a) => a.status === 'suspended') ?? [];
  const stopped = stoppedAgents.length;
  if (stopped === 0) return null;
  const resume = () =>
    client &&
    run(async () => {
      await client.resumeAll();
      await refresh();
    });
  return (
    <>
      <button type="button" className={className} onClick={resume} disabled={busy}>
        {busy
          ? 'Resuming…'
          : stopped === 1
            ? `Resume ${stoppedAgents[0]!.displayName}`
            : stopped === 2
              ? 'Resume both'
              : `Resume all ${stopped}`}
      </button>
      <ErrorNote error={error} />
    </>
  );
}
