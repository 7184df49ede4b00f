// The tools that manage agents: money into a wallet, a new agent, stopping, resuming, renaming one.
import * as input from '../tool-inputs.js';
import * as output from '../tool-outputs.js';
import { CHANGES_STATE, defineTool } from '../tool-definition.js';
import { NEW_AGENT_STEPS, pendingOrResult } from '../tool-results.js';

export const allocateBudget = defineTool({
  name: 'allocate_budget',
  description:
    "Ask for USDC from the owner's treasury into an agent's wallet (this agent by default), on Solana or (rail base) on Base. The owner approves it.",
  inputSchema: input.allocateInput,
  outputSchema: output.allocateOutput,
  annotations: CHANGES_STATE,
  answer: async ({ amount, agentId, rail }, { ctx }) =>
    pendingOrResult(
      await ctx.api.allocate(agentId ?? ctx.agentId, rail === undefined ? { amount } : { amount, rail }),
      'An allocation',
      ctx.heldWaitMs,
    ),
});

export const deployAgent = defineTool({
  name: 'deploy_agent',
  description: 'Ask for a new agent with its own wallet and policy. The owner approves it.',
  inputSchema: input.deployInput,
  outputSchema: output.deployOutput,
  annotations: CHANGES_STATE,
  answer: async (request, { ctx }) => {
    const answer = await ctx.api.deploy(request);
    if (answer.status === 202) return pendingOrResult(answer, 'A new agent', ctx.heldWaitMs);
    const { body } = answer;
    return {
      ...body,
      mcpConfig: { ...body.mcpConfig, env: { ...body.mcpConfig.env, COFFER_AGENT_ID: request.agentId } },
      nextSteps: NEW_AGENT_STEPS,
    };
  },
});

export const killAgent = defineTool({
  name: 'kill_agent',
  description:
    "Stop an agent (this one by default): every payment it tries is refused until the owner resumes it. An x402 payment it already signed and handed to a seller may still be settled by that seller until it ends (the answer's stillLanding counts them).",
  inputSchema: input.someAgentInput,
  outputSchema: output.agentStatusOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  answer: ({ agentId }, { ctx }) => ctx.api.kill(agentId ?? ctx.agentId),
});

export const resumeAgent = defineTool({
  name: 'resume_agent',
  description: "Resume a stopped agent. An agent resuming itself waits for the owner's approval.",
  inputSchema: input.someAgentInput,
  outputSchema: output.agentStatusOutput,
  annotations: { ...CHANGES_STATE, idempotentHint: true },
  answer: async ({ agentId }, { ctx }) => pendingOrResult(await ctx.api.resume(agentId ?? ctx.agentId), 'Resuming', ctx.heldWaitMs),
});

export const renameAgent = defineTool({
  name: 'rename_agent',
  description: "Change an agent's display name (owner only).",
  inputSchema: input.renameInput,
  outputSchema: output.renameOutput,
  annotations: { ...CHANGES_STATE, idempotentHint: true },
  answer: ({ agentId, displayName }, { ctx }) => ctx.api.rename(agentId, { displayName }),
});
