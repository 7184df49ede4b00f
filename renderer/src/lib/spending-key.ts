import type { DashboardAgent } from '../api/types.js';

/**
 * What an agent's limits and budgets follow, as one key (read again when it changes): a payment
 * (pending and held ones count), a held one paid on the owner's yes, a refund, a policy change.
 */
export const spendingKey = (agent: DashboardAgent | undefined): string =>
  JSON.stringify(agent ? [agent.spent24h, agent.held24h, agent.lifetimePayments, agent.policy, agent.tightestBudget] : null);
