import type { RailBalances } from '../api/types.js';
import { Money } from './Money.js';

/**
 * An agent's wallet balance in its row: the Solana one, and under it, small, the one on Base where it
 * was read (the rail on, its node answering), worded as the Treasury card says it.
 */
export function AgentBalance({ balance, balances }: { balance: string; balances: RailBalances }) {
  return (
    <span className="agent-balance">
      <Money value={balance} />
      {balances.base !== null && (
        <span className="sub muted" data-testid="agent-balance-base">
          On Base: <Money value={balances.base} />
        </span>
      )}
    </span>
  );
}
