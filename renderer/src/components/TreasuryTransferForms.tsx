import { useState } from 'react';
import type { DashboardAgent } from '../api/types.js';
import type { Rail } from '../../../server/wire/rails.js';
import { readableAmount } from '../lib/money.js';
import { formatUsdc, tryParseUsdc } from '../../../server/wire/money.js';
import { heldShortfall } from '../../../server/wire/held-shortfall.js';
import { useDashboard } from '../state/store.js';
import { railHolding } from '../lib/rail-holding.js';
import { AmountForm } from './AmountForm.js';

/**
 * USDC moved on chain between the treasury and an agent's wallet: allocated to it, or returned (its
 * balance on that rail offered). Where the Base rail is open and the agent has an account there, the
 * owner picks the rail both forms move on, each shown with what the agent holds there; until they
 * pick, it is where its money is (Solana, as the API's default, unless it holds USDC on Base alone),
 * as first read: shown so, it is the owner's as much as one they clicked.
 */
export function TreasuryTransferForms({ agent }: { agent: DashboardAgent }) {
  const { client, refresh, dashboard } = useDashboard();
  const [picked, setPicked] = useState<Rail | null>(null);
  const baseOffered = (dashboard?.treasury.baseNetwork ?? null) !== null && agent.wallets.base !== null;
  // Where its money is, until both balances are read (a Base balance read after the card is drawn
  // moves it), then kept: a return that emptied Base moved a Base the owner saw chosen, never
  // clicked, to Solana, and the next allocation with it (helper 181).
  if (picked === null && baseOffered && agent.balances.base !== null) setPicked(railHolding(agent.balances));
  if (!client) return null;
  const shown = picked ?? railHolding(agent.balances);
  const onBase = baseOffered && shown === 'base';
  const rail = onBase ? { rail: 'base' as const } : {};
  // The rail named wherever the owner could have picked the other.
  const landed = (balance: string) =>
    onBase
      ? `, on Base; its Base account now ${balance} USDC`
      : baseOffered
        ? `, on Solana; its Solana wallet now ${balance} USDC`
        : `; wallet now ${balance} USDC`;
  return (
    <>
      {baseOffered && (
        <fieldset className="services">
          <legend>Rail</legend>
          {(['sol', 'base'] as const).map((option) => (
            <label className="check" key={option}>
              <input type="radio" name={`funds-rail-${agent.agentId}`} checked={shown === option} onChange={() => setPicked(option)} />
              {option === 'sol' ? 'Solana USDC' : 'Base USDC'}
              <span className="hint" data-testid={`funds-rail-holds-${option}`}>
                {holdsWords(option === 'sol' ? agent.balances.sol : agent.balances.base)}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <AmountForm
        label="Allocate from the treasury"
        action="Allocate"
        onSubmit={async (amount) => {
          const result = await client.allocate(agent.agentId, { amount, ...rail });
          await refresh();
          return `Moved ${readableAmount(result.amount)} USDC on chain${landed(readableAmount(result.balance))}`;
        }}
      />
      <AmountForm
        label="Return to the treasury"
        action="Return"
        initial={onBase ? (agent.balances.base ?? '') : agent.balance}
        whenEmpty="all of it"
        onSubmit={async (amount) => {
          // Left empty: all of it, as the API takes a return with no amount.
          const result = await client.returnFunds(agent.agentId, { ...(amount === null ? {} : { amount }), ...rail });
          await refresh();
          return `Returned ${readableAmount(result.amount)} USDC to the treasury on chain${landed(readableAmount(result.balance))}${heldWords(
            heldShortfall(
              useDashboard.getState().pendingApprovals,
              agent.agentId,
              onBase ? 'base' : 'sol',
              tryParseUsdc(result.balance) ?? 0n,
            ),
            agent.agentId,
            onBase,
          )}`;
        }}
      />
    </>
  );
}

/** What the agent holds on a rail, beside its choice (its node unread: said so, not 0). */
const holdsWords = (balance: string | null): string => (balance === null ? ' (balance unread)' : ` (holds ${readableAmount(balance)})`);

/**
 * A held payment is not reserved against the wallet: where a return left less than what waits for the
 * yes on that rail (wire/held-shortfall.ts), said after it; nothing otherwise.
 */
function heldWords(lacking: ReturnType<typeof heldShortfall>, agentId: string, onBase: boolean): string {
  if (lacking === null) return '';
  const { payments, needed, short } = lacking;
  const count = payments.length === 1 ? `1 payment of ${agentId} waits` : `${payments.length} payments of ${agentId} wait`;
  return `. ${count} for your yes on ${onBase ? 'Base' : 'Solana'} (${formatUsdc(needed)} USDC), more than that: a yes fails unless you allocate ${formatUsdc(short)} again, or deny ${payments.length === 1 ? 'it' : 'them'} in Approvals.`;
}
