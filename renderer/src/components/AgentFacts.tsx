import type { DashboardAgent } from '../api/types.js';
import { BudgetBar } from './BudgetBar.js';
import { CopyButton } from './CopyButton.js';
import { HeldNote } from './HeldNote.js';
import { Money } from './Money.js';
import { OnRailBalance } from './OnRailBalance.js';
import { leadingBalance } from '../lib/rail-holding.js';
import { railName } from '../../../server/wire/rail-words.js';
import { useBaseOff, useDashboard } from '../state/store.js';
import { testChainNote } from '../../../server/wire/network-words.js';

/**
 * An agent's figures at a glance: its wallet's balance (on Base too, where the rail is open), what it spent
 * in 24 h and in all (on both rails), and its wallets' addresses (Base's where the rail is open).
 */
export function AgentFacts({ agent }: { agent: DashboardAgent }) {
  // A Base account is filed for every wallet whether or not the rail is open: where it is off, USDC
  // sent there would reach no rail this Coffer reads, so its address is not offered.
  const baseOff = useBaseOff();
  const baseAccount = baseOff ? null : agent.wallets.base;
  const testChain = testChainNote(useDashboard((s) => s.dashboard?.treasury.baseNetwork ?? null));
  // Where the Base rail is open, each figure says its chain, the rail its money is on first: an agent
  // funded on Base alone leads with its Base balance, not an empty Solana wallet.
  const { lead, amount, other } = leadingBalance({ ...agent.balances, sol: agent.balance }, baseOff);
  return (
    <dl className="facts">
      <div>
        <dt>Wallet balance{baseOff ? '' : ` on ${railName(lead)}`}</dt>
        <dd className="big-number">
          <Money value={amount} />
        </dd>
        {!baseOff && (
          <dd className="muted" data-testid={`agent-facts-${other}`}>
            <OnRailBalance rail={other} balance={agent.balances[other]} />
          </dd>
        )}
      </div>
      <div>
        <dt>Spent in 24 h</dt>
        <dd>
          <BudgetBar spent={agent.spent24h} budget={agent.policy.dailyBudget} label="Spent in 24 h against the daily budget" />
        </dd>
        <dd>
          <HeldNote held={agent.held24h} />
        </dd>
      </div>
      <div>
        <dt>Lifetime</dt>
        <dd>
          <Money value={agent.lifetimeSpent} /> in {agent.lifetimePayments} payment{agent.lifetimePayments === 1 ? '' : 's'}
        </dd>
      </div>
      <div className="wide">
        <dt>{baseOff ? 'Wallet address' : 'Solana wallet address (USDC on Solana)'}</dt>
        <dd>
          <code className="address" data-testid="wallet-address">
            {agent.walletAddress}
          </code>{' '}
          <CopyButton text={agent.walletAddress} />
        </dd>
      </div>
      {baseAccount !== null && (
        <div className="wide">
          <dt>Base account ({testChain === null ? 'USDC on Base' : `test USDC, ${testChain}`})</dt>
          <dd>
            <code className="address" data-testid="wallet-address-base">
              {baseAccount}
            </code>{' '}
            <CopyButton text={baseAccount} />
          </dd>
        </div>
      )}
    </dl>
  );
}
