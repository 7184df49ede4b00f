import { parseArgs } from 'node:util';
import { defaultConfigPath } from './agent-config.js';
import { readOwnerConnection } from './owner-connection.js';
import { CofferApiError } from './api-client.js';
import { packageVersion } from '../boot/package-files.js';

// Each command loads what it runs, and only that: `coffer --version` loads no engine, `coffer serve`
// no MCP SDK, `coffer mcp` no engine.
const agentCommands = () => import('./commands/agent-commands.js');

const version = packageVersion();

const HELP = `coffer ${version}: a personal treasury for software agents

usage:
  coffer serve [--data-dir DIR] [--port PORT] [--network sim|devnet|mainnet|<rpc-url>]
                 run the engine and the localhost /v1 server (headless)
  coffer start [--data-dir DIR] [--port PORT] [--network NET]
                 the desktop app; headless where Electron cannot run
  coffer demo-api [--port 7403] [--data-dir DIR] [--coffer-url URL] [--network NET] [--facilitator URL]
                 a small paid API (weather, quotes at 0.01 USDC) protected by Coffer's paywall;
                 with --facilitator (devnet, mainnet) x402 clients pay it too
  coffer link [--url URL] [--data-dir DIR] [--config FILE] [--force]
                 link this terminal to the owner's Coffer: the owner approves in the browser,
                 the agent's key is saved to FILE (0600; default in your config dir)
  coffer status [--config FILE]
                 the linked agent's balance, policy and recent payments
  coffer pay <service> <amount> [--recipient ADDR] [--nonce N] [--description TEXT] [--config FILE]
                 pay from the linked agent's wallet, within its policy; prints the receipt
  coffer fetch <url> [--method M] [--header 'Name: value']... [--data BODY] [--config FILE]
                 call a URL as the linked agent; a 402 (Coffer's or x402) is paid within its policy,
                 the body bought goes to stdout, what was paid to stderr
  coffer kill [<agent>] [--all] [--config FILE] [--data-dir DIR]
                 stop the linked agent, another agent or all of them (the last two as owner)
  coffer open [--data-dir DIR]
                 open the dashboard, signed in (owner)
  coffer mcp [--config FILE]
                 the MCP tool server (stdio) for the linked agent
  coffer help    this text; \`coffer <command> --help\` for one command

environment: COFFER_HOME (data dir, default ~/.coffer), COFFER_PORT (7402), COFFER_NETWORK (sim),
             COFFER_KEYSTORE (auto|keychain|file), COFFER_USDC_MINT (USDC mint of a custom RPC cluster),
             COFFER_IMAGE_PROVIDER_URL / COFFER_IMAGE_PROVIDER_KEY (OpenAI-compatible images API)`;

const serveOptions = {
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  network: { type: 'string' },
} as const;

/** The usage lines of one command, or the whole text for an unknown one. */
function helpFor(command: string): string {
  const lines = HELP.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  coffer ${command}`));
  if (start === -1) return HELP;
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('                 '));
  return `usage:\n${lines.slice(start, end).join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `coffer <command> --help` explains the command instead of running it (or failing on the flag).
  if (command !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
    console.log(helpFor(command));
    return 0;
  }
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).serve(parseArgs({ args: rest, options: serveOptions, strict: true }).values, version);
    case 'start':
      return (await import('./start.js')).start(parseArgs({ args: rest, options: serveOptions, strict: true }).values, version);
    case 'link': {
      const { values } = parseArgs({
        args: rest,
        options: { url: { type: 'string' }, config: { type: 'string' }, 'data-dir': { type: 'string' }, force: { type: 'boolean', default: false } },
        strict: true,
      });
      const url = values.url ?? process.env.COFFER_URL ?? serverUrl(values['data-dir']);
      return (await import('./commands/link.js')).link({ url, configPath: values.config ?? defaultConfigPath(), force: values.force });
    }
    case 'status': {
      const { values } = parseArgs({ args: rest, options: { config: { type: 'string' } }, strict: true });
      return (await agentCommands()).status(values.config ?? defaultConfigPath());
    }
    case 'pay': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { config: { type: 'string' }, recipient: { type: 'string' }, nonce: { type: 'string' }, description: { type: 'string' } },
        strict: true,
      });
      const [service, amount] = positionals;
      if (!service || !amount) throw new Error('usage: coffer pay <service> <amount> [--recipient ADDR] [--nonce N]');
      return (await agentCommands()).payCommand(values.config ?? defaultConfigPath(), { service, amount, recipient: values.recipient, nonce: values.nonce, description: values.description });
    }
    case 'fetch': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { config: { type: 'string' }, method: { type: 'string' }, header: { type: 'string', multiple: true }, data: { type: 'string' } },
        strict: true,
      });
      const [url] = positionals;
      if (!url || positionals.length > 1) throw new Error("usage: coffer fetch <url> [--method M] [--header 'Name: value']... [--data BODY]");
      return (await import('./commands/fetch-command.js')).fetchCommand(values.config ?? defaultConfigPath(), { url, method: values.method, headers: values.header ?? [], data: values.data });
    }
    case 'kill': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { config: { type: 'string' }, all: { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
        strict: true,
      });
      return (await agentCommands()).kill(values.config ?? defaultConfigPath(), { agentId: positionals[0], all: values.all ?? false, dataDir: values['data-dir'] });
    }
    case 'open': {
      const { values } = parseArgs({ args: rest, options: { 'data-dir': { type: 'string' } }, strict: true });
      return (await agentCommands()).open({ dataDir: values['data-dir'] });
    }
    case 'mcp': {
      const { values } = parseArgs({ args: rest, options: { config: { type: 'string' } }, strict: true });
      return (await import('../mcp/mcp-server.js')).runMcpServer({ configPath: values.config ?? defaultConfigPath(), version });
    }
    case 'demo-api':
      return (await import('./demo-api.js')).demoApi(
        parseArgs({ args: rest, options: { ...serveOptions, 'coffer-url': { type: 'string' }, facilitator: { type: 'string' } }, strict: true }).values,
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

/** The running Coffer's URL from its connection file, else the default port. */
function serverUrl(dataDir?: string): string {
  try {
    return readOwnerConnection(dataDir).url;
  } catch {
    return `http://127.0.0.1:${process.env.COFFER_PORT || 7402}`;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    // The server's message, and its stable code for scripts (`coffer: ... (insufficient_funds)`).
    console.error(`coffer: ${(error as Error).message}${error instanceof CofferApiError ? ` (${error.code})` : ''}`);
    // A mistyped flag is a usage error: say how the command is used.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`\n${helpFor(process.argv[2] ?? '')}`);
    process.exitCode = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  },
);
