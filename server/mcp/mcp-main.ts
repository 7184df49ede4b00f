import { parseArgs } from 'node:util';
import { defaultConfigPath } from '../linked-agent/agent-config.js';
import { packageVersion } from '../package/package-files.js';
import { runMcpServer } from './mcp-server.js';

/**
 * The MCP bridge on its own: `coffer-mcp.mjs mcp [--config FILE]`, bundled into one file by the build
 * (build/scripts/compile.mjs). The desktop app hands MCP hosts a launch of this file, copied out of
 * its archive to a stable place: it needs nothing else of Coffer's (it is a client of the /v1 server).
 */
declare const COFFER_VERSION: string | undefined;
// The build writes the version in; run from the sources, it is read from package.json.
const version = typeof COFFER_VERSION === 'string' ? COFFER_VERSION : packageVersion();

const args = process.argv.slice(2);
if (args[0] === 'mcp') args.shift();
// `--no-sandbox`: an AppImage's launch carries it so that its AppRun adds none before the script
// (electron/mcp-launch.ts); it means nothing here.
const { values } = parseArgs({ args, options: { config: { type: 'string' }, 'no-sandbox': { type: 'boolean' } }, strict: true });
process.exitCode = await runMcpServer({ configPath: values.config ?? defaultConfigPath(), version });
