import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestOf } from '../core/did-you-mean.js';
import { defaultConfigPath } from '../linked-agent/agent-config.js';
import { readOwnerConnection } from './owner-connection.js';
import { CofferApiError } from '../client/client-error.js';
import { isCofferError } from '../wire/errors.js';
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
  coffer demo-x402 [--port 7404] [--data-dir DIR]
                 x402 end to end on this machine, with TEST MONEY: a local Solana cluster
                 (demo-localnet, not devnet), the official x402 facilitator, the demo seller behind
                 the official @x402/express middleware, and a Coffer with a funded agent, in a
                 temporary folder (DIR keeps it); prints the coffer fetch and official-client
                 commands that pay it; Ctrl-C stops it all
  coffer link [--url URL] [--data-dir DIR] [--config FILE] [--force]
                 link this terminal to the owner's Coffer: the owner approves in the browser,
                 the agent's key is saved to FILE (0600; default in your config dir)
  coffer status [--config FILE]
                 the linked agent's balance, policy and recent payments
  coffer policy [<agent>] [--budget AMOUNT/WINDOW[:SCOPE]]... [--count N/WINDOW[:SCOPE]]...
                 [--expires DAY|TIME|never] [--warn-at P,P|none] [--breaker N/TIME|P%/TIME|none]...
                 [--ask-above AMOUNT|none] [--ask-new-recipient yes|no]
                 [--daily AMOUNT] [--max AMOUNT] [--cooldown SECONDS] [--allow SERVICE|any]...
                 [--config FILE] [--data-dir DIR]
                 show the linked agent's policy, each budget now; with flags, change it first (what
                 tightens applies, what loosens asks the owner); another agent's as the owner.
                 WINDOW: hour, 24h, 7d, 30d (rolling), day, week, month (calendar), lifetime;
                 SCOPE: a registry service or a recipient address. Budgets replace the list
                 (--budget none: no budgets), and --breaker the breaker (name both its rules to
                 keep both). Payments above --ask-above (0: every one) and the first to a new
                 recipient (--ask-new-recipient yes) wait for the owner's yes. Examples:
                   coffer policy --budget 50/month --budget 2/day:demo-weather --count 30/hour
                   coffer policy --expires 2026-12-31 --warn-at 50,90
                   coffer policy researcher --breaker 5/10m --breaker 50%/15m
                   coffer policy researcher --ask-above 5 --ask-new-recipient yes
  coffer settings [--time-zone ZONE|machine] [--bazaar URL|off] [--bazaar-refresh] [--data-dir DIR]
                 the owner's time zone, where calendar budgets (day, week, month) begin and the day
                 a policy ends; --time-zone Europe/Berlin sets it, --time-zone machine follows this
                 machine again (owner). --bazaar https://api.cdp.coinbase.com/platform/v2/x402
                 lists that facilitator's x402 Bazaar services in the registry, beside the catalog
                 (cached, read again every 10 minutes when searched; off: none, the default);
                 --bazaar-refresh reads its list now
  coffer pay <service> <amount> [--recipient ADDR] [--nonce N] [--description TEXT] [--receipt] [--config FILE]
                 pay from the linked agent's wallet, within its policy; prints the receipt
                 (--receipt: only the X-Payment value, to send at once: with \`coffer demo-api\` running,
                 curl -H "X-Payment: $(coffer pay demo-weather 0.01 --receipt)" http://127.0.0.1:7403/weather?city=Lisbon);
                 without --nonce a Coffer paywall takes the receipt once, up to 300 s (its default)
                 after it lands, and a registry service is paid at least its listed price (less is
                 refused, nothing is paid)
  coffer fetch <url> [--method M] [--header 'Name: value']... [--data BODY] [--config FILE]
                 call a URL as the linked agent; a 402 (Coffer's or x402) is paid within its policy,
                 the body bought goes to stdout, what was paid to stderr
  coffer kill [<agent> | --all] [--config FILE] [--data-dir DIR]
                 stop the linked agent, another agent or all of them (the last two as owner)
  coffer resume [<agent> | --all] [--config FILE] [--data-dir DIR]
                 resume another agent or all of them (as owner); without either, the linked agent
                 asks the owner to resume it
  coffer open [--data-dir DIR]
                 open the dashboard, signed in (owner)
  coffer backup --out FILE [--data-dir DIR]
                 write an encrypted backup file (owner): the ledger and every wallet's key, under a
                 passphrase asked for here (or read from a pipe); it restores everything as it was
  coffer backup schedule --folder DIR [--every HOURS] [--keep N] [--data-dir DIR]
                 a backup file every HOURS (24) into DIR, the newest N (10) kept; the first is
                 written now; the passphrase is asked for once and kept in the key store
  coffer backup schedule --off [--data-dir DIR]
                 stop scheduled backups (the files stay)
  coffer backup phrase [--data-dir DIR]
                 show the treasury's recovery phrase and check three of its words (owner); it
                 restores the treasury and every agent wallet, also in Phantom or Solflare
  coffer restore FILE [--data-dir DIR] [--network NET]
                 restore a backup file into an empty data dir (asks its passphrase), then check
                 it against the chain; refuses a data dir in use, another network, a damaged file
  coffer restore --phrase --network devnet|mainnet|<rpc-url> [--data-dir DIR]
                 restore the treasury and every agent wallet used on that chain from the recovery
                 phrase (asked for, not echoed) into an empty data dir; agents come back stopped
  coffer mcp [--config FILE]
                 the MCP tool server (stdio) for the linked agent
  coffer help    this text; \`coffer <command> --help\` for one command

environment: COFFER_HOME (data dir, default ~/.coffer), COFFER_PORT (7402), COFFER_NETWORK (sim),
             COFFER_KEYSTORE (auto|keychain|file), COFFER_USDC_MINT (USDC mint of a custom RPC cluster),
             COFFER_IMAGE_PROVIDER_URL / COFFER_IMAGE_PROVIDER_KEY (OpenAI-compatible images API),
             COFFER_MCP_HELD_WAIT_SECONDS (45: how long an MCP call waits for the owner's yes)`;

const serveOptions = {
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  network: { type: 'string' },
} as const;

/** The usage lines of one command (each of its forms), or the whole text for an unknown one. */
function helpFor(command: string): string {
  const lines = HELP.split('\n');
  const isForm = (line: string) => line.startsWith(`  coffer ${command} `) || line === `  coffer ${command}`;
  const start = lines.findIndex(isForm);
  if (start === -1) return HELP;
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('                 ') && !isForm(line));
  return `usage:\n${lines.slice(start, end).join('\n')}`;
}

const COMMANDS = [
  'serve',
  'start',
  'demo-api',
  'demo-x402',
  'link',
  'status',
  'policy',
  'settings',
  'pay',
  'fetch',
  'kill',
  'resume',
  'open',
  'backup',
  'restore',
  'mcp',
  'help',
  'version',
];

/** The command a mistyped one most likely meant ("stauts", "pya"), when one is close enough to say so. */
const closestCommand = (typed: string): string | null => closestOf(typed, COMMANDS);

/** A command used wrongly: said in one line, then the command's usage (exit 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}

/** node:util parseArgs, with its errors said in a line a person reads (and the usage after it). */
/** A negative amount ("-1", "-.5") is an argument to refuse in words, not an option parseArgs knows not. */
const NEGATIVE_NUMBER = /^-\.?\d/;

function parse<const T extends ParseArgsConfig>(command: string, config: T) {
  try {
    // Negative numbers go after a "--", so they stay arguments (in their order among the arguments).
    const args = config.args ?? [];
    const negatives = config.allowPositionals && !args.includes('--') ? args.filter((arg) => NEGATIVE_NUMBER.test(arg)) : [];
    const parsed = negatives.length === 0 ? args : [...args.filter((arg) => !NEGATIVE_NUMBER.test(arg)), '--', ...negatives];
    return parseArgs({ ...config, args: parsed, strict: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (!code?.startsWith('ERR_PARSE_ARGS')) throw error;
    const option = /'(-[^']*)'/.exec(message)?.[1];
    const meant = option === undefined ? null : closestOf(option.replace(/^-+/, ''), Object.keys(config.options ?? {}));
    const said =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `unknown option ${option ?? ''} for coffer ${command}${meant === null ? '' : ` (did you mean --${meant}?)`}`
        : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
          ? `option ${option?.replace(/ .*/, '') ?? ''} needs a value`
          : code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
            ? `coffer ${command} takes no argument "${/'([^']*)'/.exec(message)?.[1] ?? ''}"`
            : message;
    throw new UsageError(said.replace(/\s+/g, ' ').trim(), command);
  }
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
      return (await import('./serve.js')).serve(parse(command, { args: rest, options: serveOptions }).values, version);
    case 'start':
      return (await import('./start.js')).start(parse(command, { args: rest, options: serveOptions }).values, version);
    case 'link': {
      const { values } = parse(command, {
        args: rest,
        options: {
          url: { type: 'string' },
          config: { type: 'string' },
          'data-dir': { type: 'string' },
          force: { type: 'boolean', default: false },
        },
      });
      const url = values.url ?? process.env.COFFER_URL ?? serverUrl(values['data-dir']);
      return (await import('./commands/link.js')).link({ url, configPath: values.config ?? defaultConfigPath(), force: values.force });
    }
    case 'status': {
      const { values } = parse(command, { args: rest, options: { config: { type: 'string' } } });
      return (await agentCommands()).status(values.config ?? defaultConfigPath());
    }
    case 'policy': {
      const { values, positionals } = parse(command, {
        args: rest,
        allowPositionals: true,
        options: {
          config: { type: 'string' },
          'data-dir': { type: 'string' },
          budget: { type: 'string', multiple: true },
          count: { type: 'string', multiple: true },
          expires: { type: 'string' },
          'warn-at': { type: 'string' },
          breaker: { type: 'string', multiple: true },
          'ask-above': { type: 'string' },
          'ask-new-recipient': { type: 'string' },
          daily: { type: 'string' },
          max: { type: 'string' },
          cooldown: { type: 'string' },
          allow: { type: 'string', multiple: true },
        },
      });
      const [agentId, extra] = positionals;
      if (extra !== undefined) throw new UsageError(`coffer policy takes one agent at a time, not also "${extra}"`, command);
      const { config, 'data-dir': dataDir, ...flags } = values;
      const { policyCommand } = await import('./commands/policy.js');
      const { PolicyFlagError } = await import('./policy-flags.js');
      try {
        return await policyCommand(config ?? defaultConfigPath(), { agentId, dataDir, flags });
      } catch (error) {
        if (error instanceof PolicyFlagError) throw new UsageError(error.message, command);
        throw error;
      }
    }
    case 'settings': {
      const { values } = parse(command, {
        args: rest,
        options: {
          'time-zone': { type: 'string' },
          bazaar: { type: 'string' },
          'bazaar-refresh': { type: 'boolean' },
          'data-dir': { type: 'string' },
        },
      });
      return (await import('./commands/settings.js')).settingsCommand({
        timeZone: values['time-zone'],
        bazaar: values.bazaar,
        bazaarRefresh: values['bazaar-refresh'],
        dataDir: values['data-dir'],
      });
    }
    case 'pay': {
      const { values, positionals } = parse(command, {
        args: rest,
        allowPositionals: true,
        options: {
          config: { type: 'string' },
          recipient: { type: 'string' },
          nonce: { type: 'string' },
          description: { type: 'string' },
          receipt: { type: 'boolean', default: false },
        },
      });
      const [service, amount, extra] = positionals;
      if (!service) throw new UsageError('which service to pay? (a registry id, or a name with --recipient)', command);
      if (!amount) throw new UsageError('how much to pay? (USDC, such as 0.01)', command);
      if (extra !== undefined) throw new UsageError(`coffer pay takes a service and an amount, not "${extra}"`, command);
      return (await agentCommands()).payCommand(values.config ?? defaultConfigPath(), {
        service,
        amount,
        recipient: values.recipient,
        nonce: values.nonce,
        description: values.description,
        receiptOnly: values.receipt ?? false,
      });
    }
    case 'fetch': {
      const { values, positionals } = parse(command, {
        args: rest,
        allowPositionals: true,
        options: {
          config: { type: 'string' },
          method: { type: 'string' },
          header: { type: 'string', multiple: true },
          data: { type: 'string' },
        },
      });
      const [url] = positionals;
      if (!url) throw new UsageError('which URL to fetch?', command);
      if (positionals.length > 1) throw new UsageError(`coffer fetch takes one URL, not also "${positionals[1]}"`, command);
      return (await import('./commands/fetch-command.js')).fetchCommand(values.config ?? defaultConfigPath(), {
        url,
        method: values.method,
        headers: values.header ?? [],
        data: values.data,
      });
    }
    case 'kill':
    case 'resume': {
      const { values, positionals } = parse(command, {
        args: rest,
        allowPositionals: true,
        options: { config: { type: 'string' }, all: { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
      });
      const [agentId, extra] = positionals;
      if (agentId !== undefined && values.all) throw new UsageError(`name one agent or --all, not both ("${agentId}" and --all)`, command);
      if (extra !== undefined) throw new UsageError(`coffer ${command} takes one agent at a time (or --all), not also "${extra}"`, command);
      const target = { agentId, all: values.all ?? false, dataDir: values['data-dir'] };
      const commands = await agentCommands();
      return (command === 'kill' ? commands.kill : commands.resume)(values.config ?? defaultConfigPath(), target);
    }
    case 'open': {
      const { values } = parse(command, { args: rest, options: { 'data-dir': { type: 'string' } } });
      return (await agentCommands()).open({ dataDir: values['data-dir'] });
    }
    case 'backup': {
      const { values, positionals } = parse(command, {
        args: rest,
        options: {
          'data-dir': { type: 'string' },
          out: { type: 'string' },
          folder: { type: 'string' },
          every: { type: 'string' },
          keep: { type: 'string' },
          off: { type: 'boolean', default: false },
        },
        allowPositionals: true,
      });
      const commands = await import('./commands/backup.js');
      const scheduleFlags = values.folder !== undefined || values.every !== undefined || values.keep !== undefined || values.off;
      if (positionals.length === 1 && positionals[0] === 'schedule' && values.out === undefined) {
        if (values.off && (values.folder ?? values.every ?? values.keep) !== undefined) {
          throw new UsageError('--off takes no --folder, --every or --keep', command);
        }
        if (!values.off && values.folder === undefined)
          throw new UsageError('where should the backups go? --folder DIR (or --off)', command);
        return commands.backupSchedule({
          dataDir: values['data-dir'],
          off: values.off ?? false,
          folder: values.folder,
          everyHours: countFlag('--every', values.every, command),
          keep: countFlag('--keep', values.keep, command),
        });
      }
      if (scheduleFlags) throw new UsageError('--folder, --every, --keep and --off belong to coffer backup schedule', command);
      if (positionals.length === 1 && positionals[0] === 'phrase' && values.out === undefined) {
        return commands.backupPhrase({ dataDir: values['data-dir'] });
      }
      if (positionals.length === 0 && values.out !== undefined)
        return commands.backupFile({ dataDir: values['data-dir'], out: values.out });
      throw new UsageError('coffer backup takes --out FILE (an encrypted backup file) or "phrase" (the recovery phrase)', command);
    }
    case 'restore': {
      const { values, positionals } = parse(command, {
        args: rest,
        options: { 'data-dir': { type: 'string' }, network: { type: 'string' }, phrase: { type: 'boolean', default: false } },
        allowPositionals: true,
      });
      const [file, extra] = positionals;
      const commands = await import('./commands/restore.js');
      if (values.phrase) {
        if (file !== undefined) throw new UsageError(`coffer restore --phrase takes no file ("${file}"): the phrase is asked for`, command);
        return commands.restorePhrase({ dataDir: values['data-dir'], network: values.network });
      }
      if (file === undefined)
        throw new UsageError('which backup file to restore? (or --phrase, to restore from the recovery phrase)', command);
      if (extra !== undefined) throw new UsageError(`coffer restore takes one backup file, not also "${extra}"`, command);
      return commands.restoreFile({ file, dataDir: values['data-dir'], network: values.network });
    }
    case 'mcp': {
      // `--no-sandbox`: what an AppImage's launch carries (electron/mcp-launch.ts); it means nothing here.
      const { values } = parse(command, { args: rest, options: { config: { type: 'string' }, 'no-sandbox': { type: 'boolean' } } });
      return (await import('../mcp/mcp-server.js')).runMcpServer({ configPath: values.config ?? defaultConfigPath(), version });
    }
    case 'demo-api':
      return (await import('./demo-api.js')).demoApi(
        parse(command, { args: rest, options: { ...serveOptions, 'coffer-url': { type: 'string' }, facilitator: { type: 'string' } } })
          .values,
      );
    case 'demo-x402':
      return (await import('./demo-x402.js')).demoX402(
        parse(command, { args: rest, options: { port: { type: 'string' }, 'data-dir': { type: 'string' } } }).values,
        version,
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
    default: {
      const meant = closestCommand(command);
      if (meant !== null) {
        console.error(`coffer: unknown command "${command}". Did you mean "coffer ${meant}"?\n\n${helpFor(meant)}`);
      } else console.error(`coffer: unknown command "${command}"\n\n${HELP}`);
      return 2;
    }
  }
}

/** A whole number given to a flag (--every 12), or undefined when the flag was not given. */
function countFlag(flag: string, value: string | undefined, command: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,4}$/.test(value)) throw new UsageError(`${flag} takes a whole number (got "${value}")`, command);
  return Number(value);
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
    if (error instanceof UsageError) {
      // A command used wrongly: what was wrong, then how the command is used.
      console.error(`coffer: ${error.message}\n\n${helpFor(error.command)}`);
      process.exitCode = 2;
      return;
    }
    // The server's message, and its stable code for scripts (`coffer: ... (insufficient_funds)`).
    const code = error instanceof CofferApiError || isCofferError(error) ? ` (${error.code})` : '';
    console.error(`coffer: ${(error as Error).message}${code}`);
    process.exitCode = 1;
  },
);
