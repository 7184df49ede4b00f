import type { RailBalances } from '../api/types.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { Dialog } from '../components/Dialog.js';
import { Money } from '../components/Money.js';
import { CofferApiError } from '../api/client.js';
import { tryParseUsdc } from '../lib/money.js';
import { useAction } from '../lib/use-action.js';
import { useBaseOff, useDashboard } from '../state/store.js';

/**
 * Archiving, confirmed: the wallet's USDC goes back to the treasury first, on each rail that holds
 * some (the server refuses to archive a wallet that still does), then the agent is archived. With
 * the Base rail open and what the wallet holds there unknown (its node away), nothing is started:
 * the server would refuse the archive after the Solana return, leaving it half done. With the Base
 * rail off, only the server knows whether the ledger ever funded the Base account (then it refuses
 * the archive, `rail_unavailable`, before it looks at any balance), so the archive is asked first and
 * the Solana funds are returned only once it was refused `agent_has_funds`: what the wallet holds, or
 * has on its way in or out (then the archive after the return is refused as it was before this order).
 */
export function ArchiveDialog({
  agentId,
  name,
  balances,
  open,
  onClose,
}: {
  agentId: string;
  name: string;
  balances: RailBalances;
  open: boolean;
  onClose: () => void;
}) {
  const { client, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const holdsSol = (tryParseUsdc(balances.sol) ?? 0n) > 0n;
  const holdsBase = (tryParseUsdc(balances.base ?? '0') ?? 0n) > 0n;
  const holds = holdsSol || holdsBase;
  const baseOff = useBaseOff();
  const baseUnknown = !baseOff && balances.base === null;
  const archive = async () => {
    const archived =
      client &&
      (await run(async () => {
        try {
          if (baseOff && holdsSol && (await archivedBeforeReturning(() => client.archive(agentId)))) return;
          if (holdsSol) await returnedUnlessPromised(() => client.returnFunds(agentId, {}));
          if (holdsBase) await returnedUnlessPromised(() => client.returnFunds(agentId, { rail: 'base' }));
          await client.archive(agentId);
        } finally {
          // Also after a step failed: what was returned before it shows, and trying again returns only what is left.
          await refresh();
        }
      }));
    if (archived) onClose();
  };
  return (
    <Dialog open={open} onClose={onClose} title={`Archive ${name}?`}>
      <p>
        {holds ? (
          <>
            Its {holdsSol && <Money value={balances.sol} />}
            {holdsSol && holdsBase && ' and '}
            {holdsBase && (
              <>
                <Money value={balances.base!} /> on Base
              </>
            )}{' '}
            go back to the treasury on chain, then{' '}
          </>
        ) : null}
        {name} is stopped for good and its key stops working at once. Its payments and history stay, and its id cannot be used again.
      </p>
      {baseUnknown && (
        <p className="error-note" role="status">
          What {name} holds on Base can&apos;t be read now (its node isn&apos;t answering): archive it once it can be, so that nothing is
          left there.
        </p>
      )}
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={() => void archive()} disabled={busy || baseUnknown}>
          {busy ? 'Archiving…' : holds || baseUnknown ? 'Return the funds and archive' : 'Archive'}
        </button>
      </div>
    </Dialog>
  );
}

/**
 * The archive, asked before anything is returned: done (the funds shown went meanwhile), or refused
 * for what the wallet holds or has on its way (`agent_has_funds`: false, return first). Any other
 * refusal stands, nothing returned.
 */
async function archivedBeforeReturning(archive: () => Promise<unknown>): Promise<boolean> {
  try {
    await archive();
    return true;
  } catch (error) {
    if (error instanceof CofferApiError && error.code === 'agent_has_funds') return false;
    throw error;
  }
}

/**
 * A return of all a rail holds. What the rail holds may all be promised to pending payments or a
 * return (`insufficient_funds`: nothing available to return): then there is nothing to return, and
 * the archive after it says what it waits for, where this refusal would only say "nothing to return".
 */
async function returnedUnlessPromised(returnAll: () => Promise<unknown>): Promise<void> {
  try {
    await returnAll();
  } catch (error) {
    if (!(error instanceof CofferApiError && error.code === 'insufficient_funds')) throw error;
  }
}
