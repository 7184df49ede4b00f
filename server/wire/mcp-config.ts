// The MCP config an MCP host is given to launch `coffer mcp`, built in one place (deploy, key replacement, link, the MCP tools, the dashboard).

/** How an MCP host launches Coffer's tool server (`coffer mcp`). */
export interface McpLaunch {
  command: string;
  args: string[];
  /** Variables the launch itself needs (the desktop app's: run its executable as plain Node). */
  env?: Record<string, string>;
}

/** One server entry of an MCP host's configuration. */
export interface McpServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The launch of one agent's tool server: how this installation runs `coffer mcp` (with the variables
 * the launch itself needs), and the COFFER_* variables that name the agent (its key, when it is
 * handed over now; otherwise the host adds it).
 */
export function mcpServerConfig(
  launch: McpLaunch,
  agent: { url: string; owner: string; agentId: string; apiKey: string | null },
): McpServerConfig {
  return {
    command: launch.command,
    args: [...launch.args],
    env: {
      ...launch.env,
      COFFER_URL: agent.url,
      COFFER_OWNER: agent.owner,
      COFFER_AGENT_ID: agent.agentId,
      ...(agent.apiKey === null ? {} : { COFFER_API_KEY: agent.apiKey }),
    },
  };
}

/** The JSON an MCP host reads: its `mcpServers` map with this one entry. */
export const mcpHostConfig = (name: string, server: McpLaunch | McpServerConfig) => ({ mcpServers: { [name]: server } });
