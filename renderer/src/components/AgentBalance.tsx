import type { RailBalances } from '../api/types.js';
import { useBaseOff } from '../state/store.js';
import { railName } from '../../../server/wire/rail-words.js';
import { leadingBalance } from '../lib/rail-holding.js';
import { Money } from './Money.js';
import { OnRailBalance } from './OnRailBalance.js';

/**
 * An agent's wallet balance in its row: where the Base rail is open, the rail its money is on first
 * (lib/rail-holding.ts: Base for an agent funded there alone), and under it, small, the other (Base's
 * unknown while its node does not answer), worded as the Treasury card says it.
 */
export function AgentBalance({ balance, balances }: { balance: string; balances: RailBalances }) {
  const baseOff = useBaseOff();
  const { lead, amount, other } = leadingBalance({ ...balances, sol: balance }, baseOff);
  return (
    <span className="agent-balance">
      <span className="nowrap">
        <Money value={amount} />
        {!baseOff && <span className="muted rail-word"> on {railName(lead)}</span>}
      </span>
      {!baseOff && (
        <span className="sub muted" data-testid={`agent-balance-${other}`}>
          <OnRailBalance rail={other} balance={balances[other]} />
        </span>
      )}
    </span>
  );
}
