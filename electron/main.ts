import { isMcpLaunch, runMcpInApp } from './mcp-mode.js';

/**
 * The app's entry, in Electron's main process: an MCP host's launch of the bridge (mcp-mode.ts), or
 * the desktop app (desktop-main.ts). The bridge never loads Electron's API, nor the desktop app.
 * Electron emits `ready` once this entry has resolved (its ESM docs): the desktop app's import is
 * awaited so that what it does before `ready` (the single-instance lock) happens before it; the
 * bridge is not awaited, since it runs until its host closes it.
 */
if (isMcpLaunch(process.argv)) void runMcpInApp(process.argv);
else await import('./desktop-main.js');
