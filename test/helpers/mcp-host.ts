import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/**
 * The two kinds of MCP host `coffer mcp` serves, each through its official client: a 2025-era host
 * (the v1 SDK, `initialize` handshake) and a 2026-07-28 host (the v2 client pinned to that revision:
 * `server/discover`, a `_meta` envelope on every request, no fallback).
 */
export type McpEra = 'legacy' | 'modern';
export const MCP_ERAS: McpEra[] = ['legacy', 'modern'];

export type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

export interface McpHost {
  era: McpEra;
  /** The revision the connection negotiated. */
  protocolVersion: string | undefined;
  listTools(): Promise<{ tools: { name: string; inputSchema: Record<string, any>; outputSchema?: unknown; annotations?: any }[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** Launches the server as an MCP host does and connects in the given era. */
export async function connectMcpHost(launch: McpLaunch, era: McpEra, name = 'test-host'): Promise<McpHost> {
  if (era === 'legacy') {
    const client = new LegacyClient({ name, version: '1.0.0' });
    const transport = new LegacyStdio({ ...launch, stderr: 'pipe' });
    // The v1 client tells the negotiated revision only to its transport.
    let negotiated: string | undefined;
    (transport as { setProtocolVersion?: (version: string) => void }).setProtocolVersion = (version) => void (negotiated = version);
    await client.connect(transport);
    return {
      era,
      protocolVersion: negotiated,
      listTools: () => client.listTools() as ReturnType<McpHost['listTools']>,
      callTool: async (tool, args = {}) => (await client.callTool({ name: tool, arguments: args })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StdioClientTransport({ ...launch, stderr: 'pipe' }));
  return {
    era,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools() as ReturnType<McpHost['listTools']>,
    callTool: async (tool, args = {}) => (await client.callTool({ name: tool, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}
