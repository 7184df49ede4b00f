import type { RailBalances } from '../api/types.js';
import { useBaseOff } from '../state/store.js';
import { Money } from './Money.js';
import { OnBaseBalance } from './OnBaseBalance.js';

/**
 * An agent's wallet balance in its row: the Solana one, and under it, small, the one on Base where
 * the rail is open (unknown while its node does not answer), worded as the Treasury card says it.
 */
export function AgentBalance({ balance, balances }: { balance: string; balances: RailBalances }) {
  const baseOff = useBaseOff();
  return (
    <span className="agent-balance">
      <span className="nowrap">
        <Money value={balance} />
        {!baseOff && <span className="muted rail-word"> on Solana</span>}
      </span>
      {!baseOff && (
        <span className="sub muted" data-testid="agent-balance-base">
          <OnBaseBalance balance={balances.base} />
        </span>
      )}
    </span>
  );
}
