import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpLaunch } from '../server/wire/mcp-config.js';

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

/** What an AppImage's AppRun puts before the arguments unless they hold it already (see desktopMcpLaunch). */
export const NO_SANDBOX = '--no-sandbox';

/**
 * How an MCP host launches Coffer's MCP bridge from the desktop app: the app's own executable run
 * as plain Node (ELECTRON_RUN_AS_NODE, which skips the app, its window and its single-instance lock),
 * on the installed bridge. On AppImage the executable lives in that changing mount: $APPIMAGE is the
 * image file itself, which passes the variable on to the executable inside.
 *
 * An AppImage's AppRun (electron-builder 26, app-builder-lib appImageUtil.js) puts `--no-sandbox`
 * before the arguments when user namespaces are restricted (Ubuntu 24.04's AppArmor default), unless
 * the arguments hold it already; run as Node, a `--no-sandbox` before the script is Node's option, and
 * Node exits ("bad option"). So the AppImage's launch holds it itself, after the script: AppRun adds
 * nothing, and the bridge takes it as its own argument and ignores it.
 */
export function desktopMcpLaunch(execPath: string, env: NodeJS.ProcessEnv, bridge: string): McpLaunch {
  const appImage = env.APPIMAGE || null;
  return {
    command: appImage ?? execPath,
    args: appImage === null ? [bridge, 'mcp'] : [bridge, 'mcp', NO_SANDBOX],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
}
