import { createReadStream, fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { isatty, ReadStream } from 'node:tty';
import { defaultConfigPath } from '../server/linked-agent/agent-config.js';
import { packageVersion } from '../server/package/package-files.js';
import { runMcpServer } from '../server/mcp/mcp-server.js';

/**
 * The MCP bridge run by the app's own executable: `Coffer --coffer-mcp [--config FILE]` starts the
 * app's main process, which serves MCP on stdio instead of starting the desktop app (no window, no
 * tray, no single-instance lock). This replaces running the executable as plain Node
 * (ELECTRON_RUN_AS_NODE), which the packaged app's fuses turn off: with that door open any process of
 * the same user could run arbitrary code as Coffer's signed binary, the one the keychain trusts with
 * the wallet keys. Only the app's own code runs this way.
 *
 * Chromium's switches may stand anywhere in the arguments (an AppImage's AppRun puts `--no-sandbox`
 * first where user namespaces are restricted): everything but `--config` is ignored.
 */
export const MCP_FLAG = '--coffer-mcp';

/**
 * Whether this start is an MCP host launching the bridge: the flag, or the launch the desktop app
 * handed out before its fuses were closed (`<data dir>/mcp/coffer-mcp.mjs mcp`, with
 * ELECTRON_RUN_AS_NODE=1, which the executable now ignores): MCP hosts configured then keep working.
 */
export function isMcpLaunch(argv: readonly string[]): boolean {
  return argv.includes(MCP_FLAG) || argv.some((arg, i) => /coffer-mcp\.mjs$/.test(arg) && argv[i + 1] === 'mcp');
}

/** The linked-agent file named by `--config FILE` or `--config=FILE`; null when none. */
export function configArgument(argv: readonly string[]): string | null {
  for (const [i, arg] of argv.entries()) {
    if (arg === '--config') return argv[i + 1] ?? null;
    if (arg.startsWith('--config=')) return arg.slice('--config='.length);
  }
  return null;
}

/** Serves MCP on stdio until the host closes it, then ends the process (Electron's would run on). */
export async function runMcpInApp(argv: readonly string[]): Promise<never> {
  const code = await runMcpServer({
    configPath: configArgument(argv) ?? defaultConfigPath(),
    version: packageVersion(),
    stdin: hostInput(),
  });
  process.exit(code);
}

/**
 * What the host writes, read from descriptor 0 as Node makes `process.stdin` (a terminal, a file, else
 * a pipe or socket). Electron's main process on Windows replaces `process.stdin` with a stream that
 * has already ended, whatever the parent gave (lib/common/init.ts: "Always returns EOF for stdin
 * stream"), which would end the bridge at once; the descriptor itself holds the host's pipe.
 */
function hostInput(): Readable {
  if (isatty(0)) return new ReadStream(0);
  if (fstatSync(0).isFile()) return createReadStream('', { fd: 0, autoClose: false });
  return new Socket({ fd: 0, readable: true, writable: false });
}
