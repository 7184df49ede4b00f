import type { McpLaunch } from '../server/wire/mcp-config.js';
import { appImageOf } from './app-image.js';
import { MCP_FLAG } from './mcp-mode.js';

/**
 * How an MCP host launches Coffer's MCP bridge from the desktop app: the app's own executable with
 * `--coffer-mcp` (mcp-mode.ts), which serves MCP instead of starting the app. Unpackaged (`npm
 * start`), Electron's executable is told which app to run first. On AppImage the executable lives
 * in a mount that changes at every start: the image file itself (app-image.ts) passes the
 * arguments on to the executable inside (its AppRun may put `--no-sandbox` first, a Chromium switch
 * the bridge ignores). Nothing is set in the environment: ELECTRON_RUN_AS_NODE is off by the fuses.
 */
export function desktopMcpLaunch(execPath: string, env: NodeJS.ProcessEnv, appEntry: string | null): McpLaunch {
  return {
    command: appImageOf(execPath, env) ?? execPath,
    args: appEntry === null ? [MCP_FLAG] : [appEntry, MCP_FLAG],
    env: {},
  };
}
