import { McpServer } from '@modelcontextprotocol/server';
import type { Readable } from 'node:stream';
import { serveStdio, StdioServerTransport, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { keyClient, type CofferClient } from '../client/coffer-client.js';
import { CofferApiError } from '../client/client-error.js';
import { agentCredentials } from '../linked-agent/agent-config.js';
import { registerTools } from './tools.js';
import type { ToolContext } from './tool-definition.js';
import { DEFAULT_HELD_WAIT_MS, OwnerDecisions } from './owner-decision.js';
import { PurchasesUnderWay } from './purchases-under-way.js';

/**
 * `coffer mcp`: the MCP tool server an MCP host launches (stdio). It is a client of the /v1 server,
 * acting as one agent: credentials from COFFER_* variables or the linked config file. stdout belongs
 * to the protocol; everything else goes to stderr.
 *
 * It speaks both protocol eras through the SDK's stdio entry: a host that opens with `initialize`
 * (2025-11-25 and earlier) and one that opens with `server/discover` (2026-07-28) each get a server
 * built by the same factory, so the tools are the same whichever revision the host speaks.
 */
export async function runMcpServer(options: {
  configPath: string;
  version: string;
  /** The host's messages; `process.stdin` unless the runtime's stand-in is not it (electron/mcp-mode.ts). */
  stdin?: Readable;
}): Promise<number> {
  const heldWaitMs = heldWaitFromEnv();
  let tools: ToolContext;
  try {
    const agent = agentCredentials(options.configPath);
    tools = {
      api: keyClient(agent.url, { owner: agent.owner, key: agent.apiKey }),
      decisions: new OwnerDecisions(agent.url),
      underWay: new PurchasesUnderWay(),
      heldWaitMs,
      agentId: agent.agentId,
      owner: agent.owner,
      apiKey: agent.apiKey,
    };
    process.stderr.write(`coffer mcp: serving agent ${agent.agentId} of ${agent.url}\n`);
  } catch (error) {
    // Without credentials it still answers the host, whose tool calls then say what is wrong: exiting
    // would show the host only "Connection closed".
    const why = (error as Error).message;
    tools = {
      api: notConfigured(why),
      decisions: new OwnerDecisions(''),
      underWay: new PurchasesUnderWay(),
      heldWaitMs,
      agentId: '',
      owner: '',
      apiKey: '',
      notConfigured: why,
    };
    process.stderr.write(`coffer mcp: not configured: ${why}\n`);
  }
  const stdin = options.stdin ?? process.stdin;
  const handle = serveStdio(
    () => {
      const server = new McpServer(
        { name: 'coffer', version: options.version },
        // A round coming back from the owner's decision page carries state this bridge sealed.
        { capabilities: { tools: {} }, requestState: { verify: tools.decisions.verify } },
      );
      registerTools(server, tools);
      return server;
    },
    options.stdin === undefined ? {} : { transport: new StdioServerTransport(options.stdin, process.stdout) },
  );
  // The host gone, the requests it waited on go too: a yes after would pay (a Coffer receipt, at once)
  // for no one. Those decided already stay as they are (the withdrawal is refused).
  const withdrawFollowed = () =>
    Promise.race([
      Promise.allSettled(tools.decisions.followedRequests().map((approvalId) => tools.api.withdrawRequest(approvalId))),
      new Promise((resolve) => setTimeout(resolve, WITHDRAW_TIMEOUT_MS).unref()),
    ]);
  return servedUntilClosed(handle, stdin, withdrawFollowed);
}

/** How long the bridge gives its withdrawals before it ends anyway. */
const WITHDRAW_TIMEOUT_MS = 5_000;

/** A client whose every call answers why this bridge has no agent (not_configured). */
const notConfigured = (why: string): CofferClient =>
  new Proxy({} as CofferClient, {
    get: (_target, property) =>
      property === 'base' ? '' : property === 'then' ? undefined : () => Promise.reject(new CofferApiError(0, 'not_configured', why)),
  });

/** COFFER_MCP_HELD_WAIT_SECONDS: how long one call waits for the owner (1 to 3600 s; hosts that wait longer than 60 s). */
function heldWaitFromEnv(): number {
  const seconds = Number(process.env.COFFER_MCP_HELD_WAIT_SECONDS);
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= 3600 ? seconds * 1000 : DEFAULT_HELD_WAIT_MS;
}

/**
 * Resolves once the host closes stdin or the process is asked to stop, then (its followed requests
 * withdrawn) ends the process: a purchase still waiting for the owner must not be completed for a
 * host that left (its long polls would otherwise keep the bridge alive, and an x402 purchase
 * approved later would be bought for nobody; not bought, its approval is simply unused).
 */
function servedUntilClosed(handle: StdioServerHandle, stdin: Readable, beforeClose: () => Promise<unknown>): Promise<number> {
  return new Promise((resolve) => {
    const stop = () =>
      void beforeClose()
        .catch(() => undefined)
        .then(() => handle.close())
        .then(() => {
          resolve(0);
          setImmediate(() => process.exit(0));
        });
    stdin.once('end', stop);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
