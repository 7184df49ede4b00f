import { shellCommand } from '../boot/cli-invocation.js';
import { defaultDataDir, resolveServeConfig } from '../boot/serve-config.js';

/**
 * A command the owner's terminal is told to run next (fund the agent just deployed, give its USDC
 * back before an archive, decide what waits), as typed in a shell: `coffer` as this shell runs it,
 * and the data dir named, from the root, where it is not the platform's default (`~/.coffer`): the
 * line is pasted into another shell, maybe without this one's COFFER_HOME, and a command without the
 * `--data-dir` the last one named asks another Coffer, or none (agent-command-line.ts is the agent's).
 */
export function ownerCommandLine(words: string[], dataDirFlag?: string): string {
  const { dataDir } = resolveServeConfig({ 'data-dir': dataDirFlag });
  const named = dataDir !== defaultDataDir();
  return shellCommand([...words, ...(named ? ['--data-dir', dataDir] : [])]);
}
