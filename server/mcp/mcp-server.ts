import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { keyClient, type CofferClient } from '../client/coffer-client.js';
import { CofferApiError } from '../client/client-error.js';
import { agentCredentials } from '../linked-agent/agent-config.js';
import { registerTools } from './tools.js';

/**
 * `coffer mcp`: the MCP tool server an MCP host launches (stdio). It is a client of the /v1 server,
 * acting as one agent: credentials from COFFER_* variables or the linked config file. stdout belongs
 * to the protocol; everything else goes to stderr.
 */
export async function runMcpServer(options: { configPath: string; version: string }): Promise<number> {
  const server = new McpServer({ name: 'coffer', version: options.version });
  let agent: ReturnType<typeof agentCredentials>;
  try {
    agent = agentCredentials(options.configPath);
  } catch (error) {
    // Without credentials it still answers the host, whose tool calls then say what is wrong: exiting
    // would show the host only "Connection closed".
    const why = (error as Error).message;
    registerTools(server, { api: notConfigured(why), agentId: '', owner: '', apiKey: '', notConfigured: why });
    await server.connect(new StdioServerTransport());
    process.stderr.write(`coffer mcp: not configured: ${why}\n`);
    return servedUntilClosed(server);
  }
  registerTools(server, {
    api: keyClient(agent.url, { owner: agent.owner, key: agent.apiKey }),
    agentId: agent.agentId,
    owner: agent.owner,
    apiKey: agent.apiKey,
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`coffer mcp: serving agent ${agent.agentId} of ${agent.url}\n`);
  return servedUntilClosed(server);
}

/** A client whose every call answers why this bridge has no agent (not_configured). */
const notConfigured = (why: string): CofferClient =>
  new Proxy({} as CofferClient, {
    get: (_target, property) =>
      property === 'base' ? '' : property === 'then' ? undefined : () => Promise.reject(new CofferApiError(0, 'not_configured', why)),
  });

/** Resolves once the host closes stdin or the process is asked to stop. */
function servedUntilClosed(server: McpServer): Promise<number> {
  return new Promise((resolve) => {
    const stop = () => void server.close().then(() => resolve(0));
    process.stdin.once('end', stop);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
