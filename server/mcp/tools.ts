import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { Tool, ToolContext } from './tool-definition.js';
import { answered } from './tool-results.js';
import { refusedWithCode } from './coded-input.js';
import { strictFields } from '../wire/schemas.js';
import { checkBalance, getPolicy, getSpendHistory, setPolicy } from './tools/this-agent.js';
import { findService, listModels } from './tools/catalog.js';
import { allocateBudget, deployAgent, killAgent, renameAgent, resumeAgent } from './tools/agents.js';
import { checkApproval } from './tools/check-approval.js';
import { pay } from './tools/pay.js';
import { fetchPaid } from './tools/fetch-paid.js';

/** Every tool this bridge serves, in the order a host lists them. */
const TOOLS: readonly Tool[] = [
  checkBalance,
  findService,
  getPolicy,
  setPolicy,
  getSpendHistory,
  allocateBudget,
  deployAgent,
  killAgent,
  resumeAgent,
  renameAgent,
  checkApproval,
  listModels,
  pay,
  fetchPaid,
];

/** The input of a tool that takes none. */
const NO_INPUT = strictFields({});

export function registerTools(server: McpServer, ctx: ToolContext): void {
  for (const tool of TOOLS) {
    const { name, description, inputSchema, outputSchema, annotations } = tool;
    const handle = (args: unknown, extra: ServerContext) => {
      const call = { ctx, server, extra };
      // A tool's answer goes out as text and structured content, a thrown error as its isError result.
      return 'answer' in tool ? answered(() => tool.answer(args, call)) : tool.respond(args, call);
    };
    // A tool that takes nothing refuses an argument all the same (check_balance {agentId} answered
    // this agent's balance without a word).
    server.registerTool(name, { description, inputSchema: refusedWithCode(inputSchema ?? NO_INPUT), outputSchema, annotations }, handle);
  }
}
