/**
 * `linkedAgent()` of `coffer/client`: the linked agent's credentials (server/linked-agent) as payingFetch
 * takes them.
 */
import type { PayingAgent } from '../x402/paying-fetch/paying-fetch-options.js';
import { agentCredentials, defaultConfigPath, readAgentConfig } from '../linked-agent/agent-config.js';

/**
 * The agent an agent's code pays as, read as the `coffer` command reads it: from `configPath` when
 * named (the file `coffer deploy --config` or `coffer link` wrote; the COFFER_* variables set aside,
 * as `--config` sets them aside), else the four COFFER_* variables where all are set (an MCP host's
 * env), else this machine's linked agent. The key stays in that file or variable; nothing is written.
 */
export function linkedAgent(configPath?: string, env: NodeJS.ProcessEnv = process.env): PayingAgent {
  const { url, owner, agentId, apiKey } =
    configPath === undefined ? agentCredentials(defaultConfigPath(env), env) : readAgentConfig(configPath);
  return { cofferUrl: url, owner, agentId, apiKey };
}
