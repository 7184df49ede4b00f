/**
 * `coffer key <agent>`: an agent's new API key, shown once or kept in a linked terminal's config file,
 * through the owner key of the running Coffer's connection file; and how a kept key is said (deploy
 * --config says it too).
 */
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import { checkConfigWritable, defaultConfigPath, readAgentConfig, writeAgentConfig } from '../../linked-agent/agent-config.js';
import { printJson } from './print-json.js';
import { resolve } from 'node:path';

type Out = NodeJS.WritableStream;

/**
 * `coffer key <agent> [--config FILE]`: a new API key; every older key of the agent stops working at
 * once. Shown once, or with --config kept in FILE as a linked terminal's config: this terminal then
 * acts as the agent (an agent deployed already; `coffer link` makes a new one).
 */
export async function replaceKey(
  args: { agentId: string; dataDir?: string; json?: boolean; config?: string; force?: boolean },
  out: Out = process.stdout,
) {
  const { api, url, owner } = ownerClient(args.dataDir);
  // Before the old key stops: a file that cannot be written, or that holds another agent, loses nothing.
  if (args.config !== undefined) checkConfigWritable(args.config, args.force === true || holdsAgent(args.config, owner, args.agentId));
  const body = await api.replaceKey(args.agentId);
  if (args.config !== undefined) {
    const { walletAddress } = await api.balance(args.agentId);
    writeAgentConfig(args.config, {
      agentId: body.agentId,
      walletAddress,
      apiKey: body.apiKey,
      linkedAt: new Date().toISOString(),
      owner,
      url,
    });
  }
  if (args.json) {
    if (args.config === undefined) return printJson(body, out);
    // Kept in the file, the key is printed nowhere, as JSON neither (as deploy --config): the answer
    // without it, and where it is.
    const { apiKey: _kept, mcpConfig: _carriesIt, ...rest } = body;
    return printJson({ ...rest, config: args.config }, out);
  }
  const lines = [`Issued ${body.agentId} a new API key; every older one stopped working.`];
  if (args.config === undefined) {
    lines.push(
      `Its API key, shown this once: ${body.apiKey}`,
      `Its MCP server, for an MCP host's "mcpServers":`,
      JSON.stringify({ [body.agentId]: body.mcpConfig }, null, 2),
      // A terminal linked as this agent keeps the old key in its config file.
      `A terminal linked as ${body.agentId} needs the new key: ${ownerCommandLine(['key', body.agentId, '--config', 'FILE'], args.dataDir)} writes it there (FILE: its config).`,
    );
  } else {
    lines.push(keptInWords(body.agentId, args.config));
  }
  out.write(lines.join('\n') + '\n');
  return 0;
}

/** Where a terminal's commands find the agent whose key is kept in a config file. */
export function keptInWords(agentId: string, config: string): string {
  // The agent's commands read the default config (COFFER_CONFIG, else the platform's place): another file is named to them.
  return resolve(config) === resolve(defaultConfigPath())
    ? `This terminal acts as ${agentId} now: its key is in ${config} (0600).`
    : `Its key is in ${config} (0600): commands act as ${agentId} with --config ${config}, or with COFFER_CONFIG=${config}.`;
}

/** Whether a config file holds this very agent (its old key, which the new one replaces anyway). */
function holdsAgent(file: string, owner: string, agentId: string): boolean {
  try {
    const held = readAgentConfig(file);
    return held.agentId === agentId && held.owner === owner;
  } catch {
    return false;
  }
}
