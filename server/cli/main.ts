import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { serve } from './serve.js';
import { start } from './start.js';
import { demoApi } from './demo-api.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const HELP = `coffer ${version}: a personal treasury for software agents

usage:
  coffer serve [--data-dir DIR] [--port PORT] [--network sim|devnet|mainnet|<rpc-url>]
                 run the engine and the localhost /v1 server (headless)
  coffer start   the desktop app; headless where Electron cannot run
  coffer demo-api [--port 7403] [--data-dir DIR] [--coffer-url URL] [--network NET]
                 a small paid API (weather, quotes at 0.01 USDC) protected by Coffer's paywall
  coffer help    this text

environment: COFFER_HOME (data dir, default ~/.coffer), COFFER_PORT (7402), COFFER_NETWORK (sim),
             COFFER_KEYSTORE (auto|keychain|file), COFFER_USDC_MINT (USDC mint of a custom RPC cluster),
             COFFER_IMAGE_PROVIDER_URL / COFFER_IMAGE_PROVIDER_KEY (OpenAI-compatible images API)`;

const serveOptions = {
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  network: { type: 'string' },
} as const;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(parseArgs({ args: rest, options: serveOptions, strict: true }).values, version);
    case 'start':
      return start(parseArgs({ args: rest, options: serveOptions, strict: true }).values, version);
    case 'demo-api':
      return demoApi(
        parseArgs({ args: rest, options: { ...serveOptions, 'coffer-url': { type: 'string' } }, strict: true }).values,
      );
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return 0;
    case '--version':
    case 'version':
      console.log(version);
      return 0;
    default:
      console.error(`coffer: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`coffer: ${(error as Error).message}`);
    process.exitCode = 1;
  },
);
