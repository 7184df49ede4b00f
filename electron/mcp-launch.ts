import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpLaunch } from '../server/core/context.js';

/**
 * The MCP bridge, copied out of the app to a stable place: the data dir. Inside the packaged app it
 * sits in an archive (and on AppImage in a mount whose path changes at every start), where an MCP
 * host could not run it; this copy keeps one path across starts and updates. Rewritten only when
 * its content changed.
 */
export function installMcpBridge(bundle: string, dataDir: string): string {
  const target = join(dataDir, 'mcp', 'coffer-mcp.mjs');
  // Read and written whole: reading from an asar archive is supported, copying out of one less so.
  const content = readFileSync(bundle);
  if (!existsSync(target) || !readFileSync(target).equals(content)) {
    mkdirSync(join(dataDir, 'mcp'), { recursive: true, mode: 0o700 });
    writeFileSync(target, content, { mode: 0o600 });
  }
  return target;
}

/**
 * How an MCP host launches Coffer's MCP bridge from the desktop app: the app's own executable run
 * as plain Node (ELECTRON_RUN_AS_NODE, which skips the app, its window and its single-instance lock),
 * on the installed bridge. On AppImage the executable lives in that changing mount: $APPIMAGE is the
 * image file itself, which passes the variable on to the executable inside.
 */
export function desktopMcpLaunch(execPath: string, env: NodeJS.ProcessEnv, bridge: string): McpLaunch {
  return { command: env.APPIMAGE || execPath, args: [bridge, 'mcp'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}
