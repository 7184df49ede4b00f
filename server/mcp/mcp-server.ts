import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { keyClient } from '../client/coffer-client.js';
import { agentCredentials } from '../linked-agent/agent-config.js';
import { registerTools } from './tools.js';

/**
 * `coffer mcp`: the MCP tool server an MCP host launches (stdio). It is a client of the /v1 server,
 * acting as one agent: credentials from COFFER_* variables or the linked config file. stdout belongs
 * to the protocol; everything else goes to stderr.
 */
export async function runMcpServer(options: { configPath: string; version: string }): Promise<number> {
  const agent = agentCredentials(options.configPath);
  const server = new McpServer({ name: 'coffer', version: options.version });
  registerTools(server, {
    api: keyClient(agent.url, { owner: agent.owner, key: agent.apiKey }),
    agentId: agent.agentId,
    owner: agent.owner,
    apiKey: agent.apiKey,
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`coffer mcp: serving agent ${agent.agentId} of ${agent.url}\n`);
  return new Promise((resolve) => {
    const stop = () => void server.close().then(() => resolve(0));
    process.stdin.once('end', stop);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
