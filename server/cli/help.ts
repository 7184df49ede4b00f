import type { Command } from './command-line.js';

const ENVIRONMENT = `environment: COFFER_HOME (data dir, default ~/.coffer), COFFER_PORT (7402), COFFER_NETWORK (sim),
             COFFER_KEYSTORE (auto|keychain|file), COFFER_USDC_MINT (USDC mint of a custom RPC cluster),
             COFFER_BASE_RPC (the Base rail's EVM RPC, or off), COFFER_BASE_USDC (USDC of an EVM chain not Base's),
             COFFER_IMAGE_PROVIDER_URL / COFFER_IMAGE_PROVIDER_KEY (OpenAI-compatible images API),
             COFFER_MCP_HELD_WAIT_SECONDS (45: how long an MCP call waits for the owner's yes),
             COFFER_FACILITATOR_URL (coffer demo-api's x402 facilitator);
             an agent's commands: COFFER_CONFIG (its config file), or COFFER_URL, COFFER_OWNER, COFFER_AGENT_ID
             and COFFER_API_KEY together in its place (a --config FILE on the command line wins over both)`;

/** `coffer help`: every listed command's usage, in the table's order, then the environment it reads. */
export const helpText = (commands: readonly Command[], version: string): string =>
  `coffer ${version}: a personal treasury for software agents

usage:
${commands.flatMap((command) => command.usage ?? []).join('\n')}

${ENVIRONMENT}`;

/**
 * The synopsis of one command (each form's line and the option lines that carry it on), without what
 * it does: what a usage error shows under its one line, so the error stays in sight, with where the
 * rest is. The whole text for one not listed.
 */
export function commandSynopsis(commands: readonly Command[], name: string, version: string): string {
  const usage = commands.find((command) => command.name === name)?.usage;
  if (usage === undefined) return helpText(commands, version);
  let inSynopsis = false;
  const lines = usage.split('\n').filter((line) => {
    // A form's line starts "  coffer"; its options carry on over lines that open with "[".
    inSynopsis = line.startsWith('  coffer ') || (inSynopsis && /^\s+\[/.test(line));
    return inSynopsis;
  });
  return `usage:\n${lines.join('\n')}\n\nSee "coffer help ${name}" for what it does and each option.`;
}

/** The usage lines of one command (each of its forms), or the whole text for one not listed. */
export function commandHelp(commands: readonly Command[], name: string, version: string): string {
  const usage = commands.find((command) => command.name === name)?.usage;
  return usage === undefined ? helpText(commands, version) : `usage:\n${usage}`;
}
