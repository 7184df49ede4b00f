// The tools an agent reads and sets its own account with: its balance, its policy, its payments.
import * as input from '../tool-inputs.js';
import * as output from '../tool-outputs.js';
import { CHANGES_STATE, defineTool, READ_ONLY } from '../tool-definition.js';
import { pendingOrResult } from '../tool-results.js';

export const checkBalance = defineTool({
  name: 'check_balance',
  description:
    "This agent's USDC on each rail in `balances` (Solana, and Base where its rail is open; `balance` is its Solana wallet alone), what is free to pay with on each (`available`), its wallet on each, and the owner's treasury address on Solana (the address that names the owner; allocate_budget asks the owner for USDC on either rail).",
  outputSchema: output.balanceOutput,
  annotations: READ_ONLY,
  answer: async (_input, { ctx }) => {
    const balance = await ctx.api.balance(ctx.agentId);
    // A Base account is filed for every wallet; with the rail off, USDC sent there would reach no
    // rail this Coffer reads, so an agent is not handed it (as `coffer status` and the dashboard).
    const wallets = balance.baseNetwork === null ? { ...balance.wallets, base: null } : balance.wallets;
    return { ...balance, wallets, treasuryAddress: ctx.owner };
  },
});

export const getPolicy = defineTool({
  name: 'get_policy',
  description: "This agent's spending policy.",
  outputSchema: output.policyOutput,
  annotations: READ_ONLY,
  answer: (_input, { ctx }) => ctx.api.policy(ctx.agentId),
});

export const setPolicy = defineTool({
  name: 'set_policy',
  description: "Change this agent's policy. Tightening applies at once; loosening waits for the owner's approval.",
  inputSchema: input.setPolicyInput,
  outputSchema: output.setPolicyOutput,
  annotations: { ...CHANGES_STATE, idempotentHint: true },
  answer: async (update, { ctx }) =>
    pendingOrResult(await ctx.api.updatePolicy(ctx.agentId, update), 'Loosening the policy', ctx.heldWaitMs),
});

export const getSpendHistory = defineTool({
  name: 'get_spend_history',
  description: "This agent's payments, newest first.",
  inputSchema: input.spendHistoryInput,
  outputSchema: output.spendHistoryOutput,
  annotations: READ_ONLY,
  answer: ({ limit }, { ctx }) => ctx.api.spendHistory(ctx.agentId, limit ?? 20),
});
