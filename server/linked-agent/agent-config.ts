// The linked agent's credentials on this machine (what `coffer link` writes): read by the CLI commands and the MCP bridge alike.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/** What `coffer link` writes: everything an agent on this machine needs to pay through Coffer. */
export const agentConfigSchema = z.object({
  agentId: z.string().min(1),
  walletAddress: z.string().min(32),
  apiKey: z.string().startsWith('cof_agt_'),
  linkedAt: z.iso.datetime(),
  owner: z.string().min(32),
  url: z.url(),
});
export type AgentConfig = z.infer<typeof agentConfigSchema>;

/** The platform's config dir: ~/.config (XDG) on Linux, Application Support on macOS, %APPDATA% on Windows. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.COFFER_CONFIG) return env.COFFER_CONFIG;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'coffer', 'agent.json');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'coffer', 'agent.json');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'coffer', 'agent.json');
}

/** Written at 0600 in a 0700 folder, through a temporary file, so it is never half there. */
export function writeAgentConfig(file: string, config: AgentConfig): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  } catch (error) {
    // Not left beside it: it holds the key.
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Before asking the owner for a key, make sure it can be kept: the folder can be written, and an
 * existing agent's config is not silently replaced (its key would be lost for good).
 */
export function checkConfigWritable(file: string, overwrite: boolean): void {
  // A folder is replaced by no rename, --force or not: found now, not once the key exists.
  if (existsSync(file) && statSync(file).isDirectory())
    throw new Error(`${file} is a folder: name a file in it (--config ${join(file, 'agent.json')})`);
  if (existsSync(file) && !overwrite) {
    throw new Error(`${file} already holds a linked agent; use --config for another file, or --force to replace it (its key is lost)`);
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const probe = `${file}.${process.pid}.probe`;
  writeFileSync(probe, '', { mode: 0o600, flag: 'wx' });
  rmSync(probe);
}

export function readAgentConfig(file: string): AgentConfig {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    throw new Error(
      `no linked agent: ${file} does not exist (run \`coffer link\` first; a config elsewhere is named with --config FILE or COFFER_CONFIG=FILE, ` +
        `and the owner writes one with coffer deploy <agent> --config FILE or coffer key <agent> --config FILE; ` +
        `or set COFFER_URL, COFFER_OWNER, COFFER_AGENT_ID and COFFER_API_KEY)`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    // Named, with why: a bare "Expected property name" says neither which file nor what to do.
    throw new Error(`${file} is not a Coffer agent config: it is not JSON (${(error as Error).message}); run \`coffer link\` again`, {
      cause: error,
    });
  }
  const parsed = agentConfigSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a Coffer agent config (run \`coffer link\` again)`);
  return parsed.data;
}

/** The variables that stand in for the linked config file, all four together. */
const CREDENTIAL_VARIABLES = ['COFFER_URL', 'COFFER_OWNER', 'COFFER_AGENT_ID', 'COFFER_API_KEY'] as const;
const words = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;

/** Whether this terminal is an agent: a linked config file, or any of the COFFER_* variables that stand in for one. */
export const linkedHere = (configPath: string, env: NodeJS.ProcessEnv = process.env): boolean =>
  existsSync(configPath) || CREDENTIAL_VARIABLES.some((name) => Boolean(env[name]));

/**
 * A config file named on the command line (`--config FILE`) is the agent the command acts as: the
 * COFFER_* variables that stand in for a linked file are set aside for this process. They may be a
 * whole shell's, and must never make another agent pay in the named one's place. Called where every
 * command's options are parsed (command-line.ts), rather than told to each reader of credentials.
 */
export function setAsideCredentialVariables(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of CREDENTIAL_VARIABLES) delete env[name];
}

/** Whether the COFFER_* variables stand in for the linked file (all four set, no --config named). */
export const credentialVariablesStandIn = (env: NodeJS.ProcessEnv = process.env): boolean =>
  CREDENTIAL_VARIABLES.every((name) => Boolean(env[name]));

/** An agent's credentials: the COFFER_* variables when all four are set, else the linked config file. */
export function agentCredentials(
  configPath: string,
  env: NodeJS.ProcessEnv = process.env,
): Omit<AgentConfig, 'walletAddress' | 'linkedAt'> {
  if (credentialVariablesStandIn(env)) {
    return { url: env.COFFER_URL!, owner: env.COFFER_OWNER!, agentId: env.COFFER_AGENT_ID!, apiKey: env.COFFER_API_KEY! };
  }
  // Some set and some not is a configuration cut short (an MCP host's env missing one): say which.
  const missing = CREDENTIAL_VARIABLES.filter((name) => !env[name]);
  if (missing.length < CREDENTIAL_VARIABLES.length) {
    const set = CREDENTIAL_VARIABLES.filter((name) => env[name]);
    throw new Error(
      `${words(missing)} ${missing.length === 1 ? 'is' : 'are'} not set, though ${words(set)} ${set.length === 1 ? 'is' : 'are'}: set ${missing.length === 1 ? 'it' : 'them'} (the agent's mcpConfig has all four), or unset the others to use the linked config file`,
    );
  }
  return readAgentConfig(configPath);
}
