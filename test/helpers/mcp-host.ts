import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
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

/** What a host that opens URLs for its user does with one (URL elicitation): the user's answer. */
export type OpensUrl = (asked: { url: string; message: string }) => Promise<'accept' | 'decline' | 'cancel'>;

export interface McpHost {
  era: McpEra;
  /** The revision the connection negotiated. */
  protocolVersion: string | undefined;
  listTools(): Promise<{ tools: { name: string; inputSchema: Record<string, any>; outputSchema?: unknown; annotations?: any }[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /**
   * Calls a tool; `onProgress` hears its progress messages (and each resets the request's timeout);
   * `timeoutMs`: the host gives up after it, as an SDK host does (it tells the server it cancelled).
   */
  callTool(name: string, args?: Record<string, unknown>, onProgress?: (message: string) => void, timeoutMs?: number): Promise<ToolResult>;
  close(): Promise<void>;
  /** Kills the server outright (SIGKILL), as a crash does: it learns nothing of its end. */
  kill(): void;
}

export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * Launches the server as an MCP host does and connects in the given era. With `opensUrl`, the host
 * declares URL elicitation and answers each URL the server asks it to open with what it returns.
 */
export async function connectMcpHost(
  launch: McpLaunch,
  era: McpEra,
  options: { name?: string; opensUrl?: OpensUrl } = {},
): Promise<McpHost> {
  const info = { name: options.name ?? 'test-host', version: '1.0.0' };
  const capabilities = options.opensUrl ? { elicitation: { url: {} } } : {};
  const progressOptions = (onProgress?: (message: string) => void, timeoutMs?: number) => ({
    ...(onProgress && { onprogress: (progress: { message?: string }) => onProgress(progress.message ?? ''), resetTimeoutOnProgress: true }),
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
  });
  if (era === 'legacy') {
    const client = new LegacyClient(info, { capabilities });
    const opensUrl = options.opensUrl;
    if (opensUrl) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const params = request.params as { mode?: string; url?: string; message: string };
        if (params.mode !== 'url' || params.url === undefined) return { action: 'decline' };
        return { action: await opensUrl({ url: params.url, message: params.message }) };
      });
    }
    const transport = new LegacyStdio({ ...launch, stderr: 'pipe' });
    // The v1 client tells the negotiated revision only to its transport.
    let negotiated: string | undefined;
    (transport as { setProtocolVersion?: (version: string) => void }).setProtocolVersion = (version) => void (negotiated = version);
    await client.connect(transport);
    return {
      era,
      protocolVersion: negotiated,
      listTools: () => client.listTools() as ReturnType<McpHost['listTools']>,
      callTool: async (tool, args = {}, onProgress, timeoutMs) =>
        (await client.callTool({ name: tool, arguments: args }, undefined, progressOptions(onProgress, timeoutMs))) as ToolResult,
      close: () => client.close(),
      kill: () => process.kill(transport.pid!, 'SIGKILL'),
    };
  }
  const client = new Client(info, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const opensUrl = options.opensUrl;
  if (opensUrl) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url?: string; message: string };
      if (params.mode !== 'url' || params.url === undefined) return { action: 'decline' };
      return { action: await opensUrl({ url: params.url, message: params.message }) };
    });
  }
  const transport = new StdioClientTransport({ ...launch, stderr: 'pipe' });
  await client.connect(transport);
  return {
    era,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools() as ReturnType<McpHost['listTools']>,
    callTool: async (tool, args = {}, onProgress, timeoutMs) =>
      (await client.callTool({ name: tool, arguments: args }, progressOptions(onProgress, timeoutMs))) as ToolResult,
    close: () => client.close(),
    kill: () => process.kill(transport.pid!, 'SIGKILL'),
  };
}
