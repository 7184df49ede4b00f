import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import type { McpLaunch } from '../wire/mcp-config.js';
import { packagePath } from '../package/package-files.js';

const realpath = (file: string): string | null => {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
};

/**
 * A node_modules/.bin folder: npx and `npm run` put these first on the PATH of what they run, but the
 * user's shell and an MCP host do not have them, so a `coffer` found only there runs nowhere else.
 */
const isNpmBinFolder = (dir: string): boolean => basename(dir) === '.bin' && basename(dirname(dir)) === 'node_modules';

/**
 * How this installation's `coffer` is run, from a shell or an MCP host: plain `coffer` when the one
 * on PATH is this very package (a global install, `npm link`), which keeps working across upgrades;
 * otherwise node with this package's bin.js by absolute path, which works wherever it is typed.
 */
export function cofferInvocation(env: NodeJS.ProcessEnv = process.env): { command: string; args: string[] } {
  const bin = packagePath('server', 'cli', 'bin.js');
  const own = realpath(bin);
  const names = process.platform === 'win32' ? ['coffer.cmd', 'coffer.exe', 'coffer'] : ['coffer'];
  for (const dir of (env.PATH ?? '').split(delimiter).filter((entry) => entry && !isNpmBinFolder(entry))) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (existsSync(candidate) && own !== null && realpath(candidate) === own) return { command: 'coffer', args: [] };
    }
  }
  return { command: process.execPath, args: [own ?? bin] };
}

/** The MCP host's launch of `coffer mcp`: the one config that `coffer link` and deploy both print. */
export function cofferMcpLaunch(env: NodeJS.ProcessEnv = process.env): McpLaunch {
  const { command, args } = cofferInvocation(env);
  return { command, args: [...args, 'mcp'] };
}

/**
 * Words as typed in a shell: each one quoted where it needs to be. On macOS and Linux in single
 * quotes, inside which a POSIX shell expands nothing (`$`, backticks, and the `!` of bash's and zsh's
 * history, which double quotes leave live), a `'` written as `'\''`. On Windows in double quotes, as
 * before (cmd has no single quotes).
 */
export function shellWords(words: string[], platform: NodeJS.Platform = process.platform): string {
  const quote = (part: string) =>
    /^[\w./:@=-]+$/.test(part)
      ? part
      : platform === 'win32'
        ? `"${part.replace(/(["\\$`])/g, '\\$1')}"`
        : `'${part.replace(/'/g, "'\\''")}'`;
  return words.map(quote).join(' ');
}

/** A `coffer` command line as typed in a shell ("coffer status", or node and the script quoted). */
export function shellCommand(args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const { command, args: prefix } = cofferInvocation(env);
  return shellWords([command, ...prefix, ...args]);
}

/** True when this package runs from npx's cache, which `npm cache clean` or a new version removes. */
export const runsFromNpxCache = (): boolean => /[\\/]_npx[\\/]/.test(packagePath());
