import { mcpServerConfig } from '../../wire/mcp-config.js';
import * as input from '../tool-inputs.js';
import * as output from '../tool-outputs.js';
import { CHANGES_STATE, defineTool } from '../tool-definition.js';
import { NEW_AGENT_STEPS } from '../tool-results.js';
import { nextAfterEnded } from '../refusal-next.js';

export const checkApproval = defineTool({
  name: 'check_approval',
  description:
    'Follow a request waiting for the owner (from pay, set_policy, allocate_budget, resume_agent or deploy_agent); with wait, answers once the owner decides, or that it still waits after at most 45 s (COFFER_MCP_HELD_WAIT_SECONDS: a shorter wait cuts it short), before the usual 60 s timeout of a host. An approved payment carries its receipt in result. For an approved new agent, returns its key once, with its mcpConfig.',
  inputSchema: input.approvalInput,
  outputSchema: output.approvalOutput,
  // Not read-only: the first read after a deploy is approved hands over the new agent's key, once.
  annotations: CHANGES_STATE,
  answer: async ({ approvalId, wait }, { ctx }) => {
    // Waited at most as long as a held call waits (45 s by default): a host's request timeout (60 s in
    // the SDKs) would otherwise end the call first, with no answer at all.
    const body = await ctx.api.approval(approvalId, wait === undefined ? undefined : Math.min(wait, Math.floor(ctx.heldWaitMs / 1000)));
    // Ended without the owner's yes: what to do, as the refusal of the call that waited says it
    // (helper 189: a request withdrawn by a stop answered "withdrawn" and nothing more).
    const ended = nextAfterEnded(body.kind, body.status);
    if (ended !== null) return { ...body, next: ended };
    if (!('apiKey' in body) || typeof body.apiKey !== 'string') return body;
    const agentId = String(body.targetAgentId);
    // Launched as this bridge was: the same node and script (the tray's bridge or the CLI's).
    const launch = { command: process.execPath, args: [process.argv[1] ?? 'coffer', 'mcp'] };
    return {
      ...body,
      mcpConfig: mcpServerConfig(launch, { url: ctx.api.base, owner: ctx.owner, agentId, apiKey: body.apiKey }),
      nextSteps: NEW_AGENT_STEPS,
    };
  },
});
