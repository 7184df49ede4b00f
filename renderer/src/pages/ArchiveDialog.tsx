import { ErrorNote } from '../components/ErrorNote.js';
import { Dialog } from '../components/Dialog.js';
import { Money } from '../components/Money.js';
import { tryParseUsdc } from '../lib/money.js';
import { useAction } from '../lib/use-action.js';
import { useDashboard } from '../state/store.js';

/** Archiving, confirmed: the wallet's USDC goes back to the treasury first, then the agent is archived. */
export function ArchiveDialog({
  agentId,
  name,
  balance,
  open,
  onClose,
}: {
  agentId: string;
  name: string;
  balance: string;
  open: boolean;
  onClose: () => void;
}) {
  const { client, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const holds = (tryParseUsdc(balance) ?? 0n) > 0n;
  const archive = async () => {
    const archived =
      client &&
      (await run(async () => {
        if (holds) await client.returnFunds(agentId, {});
        await client.archive(agentId);
        await refresh();
      }));
    if (archived) onClose();
  };
  return (
    <Dialog open={open} onClose={onClose} title={`Archive ${name}?`}>
      <p>
        {holds ? (
          <>
            Its <Money value={balance} /> go back to the treasury on chain, then{' '}
          </>
        ) : null}
        {name} is stopped for good and its key stops working at once. Its payments and history stay, and its id cannot be used again.
      </p>
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={() => void archive()} disabled={busy}>
          {busy ? 'Archiving…' : holds ? 'Return the funds and archive' : 'Archive'}
        </button>
      </div>
    </Dialog>
  );
}
