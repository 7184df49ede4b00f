import { useState } from 'react';
import type { Rail } from '../../../server/wire/rails.js';
import { readableAmount, tryParseUsdc } from '../lib/money.js';
import { useAction } from '../lib/use-action.js';
import { useDashboard } from '../state/store.js';
import { ErrorNote } from './ErrorNote.js';
import { Money } from './Money.js';

/**
 * USDC an archived agent's wallet still holds on one rail (sent from outside after the archive
 * emptied it): no key of the agent spends it any more, so it is shown with the way back to the
 * treasury on that rail.
 */
export function ArchivedFunds({ agentId, rail, balance }: { agentId: string; rail: Rail; balance: string | null }) {
  const { client, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  if ((tryParseUsdc(balance ?? '0') ?? 0n) === 0n) return done === null ? null : <p role="status">{done}</p>;
  const onBase = rail === 'base';
  const giveBack = () =>
    client &&
    void run(async () => {
      const result = await client.returnFunds(agentId, onBase ? { rail: 'base' } : {});
      await refresh();
      setDone(`Returned ${readableAmount(result.amount)} USDC to the treasury on chain${onBase ? ', on Base' : ''}`);
    });
  return (
    <div className="banner warning" role="alert">
      <p>
        Its {onBase ? 'Base account' : 'wallet'} still holds <Money value={balance!} />. No one spends it here: return it to the treasury.
      </p>
      <ErrorNote error={error} />
      <button type="button" className="button" onClick={giveBack} disabled={busy}>
        {onBase ? 'Return to the treasury on Base' : 'Return to the treasury'}
      </button>
    </div>
  );
}
