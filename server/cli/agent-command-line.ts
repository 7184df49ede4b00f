import { resolve } from 'node:path';
import { shellCommand } from '../boot/cli-invocation.js';
import { credentialVariablesStandIn, defaultConfigPath } from '../linked-agent/agent-config.js';

/**
 * A command the agent's terminal is told to run next (the pick-up of a held request, the ask for a
 * larger policy after a refusal), as typed in a shell: each word quoted where it must be (a URL's `&`
 * would end the command there, and the retry after it ask, and pay, anew), and the agent's config
 * named, from the root, where it is not the platform's default: the line is pasted into another
 * shell, maybe elsewhere, without this one's COFFER_CONFIG, and a command without the `--config` the
 * failed one named acts as another agent, or as none.
 */
export function agentCommandLine(words: string[], configPath: string): string {
  const config = resolve(configPath);
  const platformDefault = resolve(defaultConfigPath({ ...process.env, COFFER_CONFIG: undefined }));
  // Where the COFFER_* variables acted, no file did: named, it would act in their agent's place.
  const named = config !== platformDefault && !credentialVariablesStandIn();
  // `coffer` where the one on PATH is this package, else node and this script (as `coffer link` says it).
  return shellCommand([...words, ...(named ? ['--config', config] : [])]);
}
