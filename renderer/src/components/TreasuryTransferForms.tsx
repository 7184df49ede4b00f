import type { DashboardAgent } from '../api/types.js';
import { readableAmount } from '../lib/money.js';
import { useDashboard } from '../state/store.js';
import { AmountForm } from './AmountForm.js';

/** USDC moved on chain between the treasury and an agent's wallet: allocated to it, or returned (its balance offered). */
export function TreasuryTransferForms({ agent }: { agent: DashboardAgent }) {
  const { client, refresh } = useDashboard();
  if (!client) return null;
  return (
    <>
      <AmountForm
        label="Allocate from the treasury"
        action="Allocate"
        onSubmit={async (amount) => {
          const result = await client.allocate(agent.agentId, { amount });
          await refresh();
          return `Moved ${readableAmount(result.amount)} USDC on chain; wallet now ${readableAmount(result.balance)} USDC`;
        }}
      />
      <AmountForm
        label="Return to the treasury"
        action="Return"
        initial={agent.balance}
        onSubmit={async (amount) => {
          const result = await client.returnFunds(agent.agentId, { amount });
          await refresh();
          return `Returned ${readableAmount(result.amount)} USDC to the treasury on chain; wallet now ${readableAmount(result.balance)} USDC`;
        }}
      />
    </>
  );
}
