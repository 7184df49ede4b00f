import { closestOf } from '../wire/did-you-mean.js';
import { CofferApiError } from '../client/client-error.js';
import { isCofferError } from '../wire/errors.js';
import { packageVersion } from '../package/package-files.js';
import { UsageError, type Command } from './command-line.js';
import { commandHelp, commandSynopsis, helpText } from './help.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import * as engine from './table/engine.js';
import * as linkedAgent from './table/linked-agent.js';
import * as agents from './table/agents.js';
import * as backups from './table/backups.js';
import * as owner from './table/owner.js';
import { exitStatusOf } from './exit-status.js';
import { shellWords } from '../boot/cli-invocation.js';

const version = packageVersion();

const help: Command = {
  name: 'help',
  aliases: ['--help', '-h'],
  usage: `  coffer help [command]
                 this text, or one command's (as \`coffer <command> --help\`)`,
  run: async ([name]) => {
    if (name === undefined) console.log(helpText(COMMANDS, version));
    else if (COMMANDS.some((command) => command.name === name)) console.log(helpFor(name));
    else return unknownCommand(name);
    return 0;
  },
};

const versionCommand: Command = {
  name: 'version',
  aliases: ['--version'],
  run: async () => {
    console.log(version);
    return 0;
  },
};

/** Every command, in the order `coffer help` lists them; each loads what it runs only when it runs. */
const COMMANDS: readonly Command[] = [
  engine.serve,
  engine.start,
  engine.demoApi,
  engine.demoX402,
  linkedAgent.link,
  linkedAgent.status,
  linkedAgent.activity,
  linkedAgent.images,
  agents.policy,
  agents.settings,
  linkedAgent.pay,
  linkedAgent.fetch,
  linkedAgent.services,
  linkedAgent.models,
  owner.deploy,
  owner.allocate,
  owner.returnFunds,
  owner.rename,
  owner.key,
  owner.archive,
  owner.deposits,
  owner.allocations,
  owner.faucet,
  owner.approvals,
  owner.approve,
  owner.deny,
  agents.kill,
  agents.resume,
  agents.open,
  backups.backup,
  backups.restore,
  linkedAgent.mcp,
  help,
  versionCommand,
];

const NAMES = COMMANDS.map((command) => command.name);

const helpFor = (name: string) => commandHelp(COMMANDS, name, version);
const synopsisOf = (name: string) => commandSynopsis(COMMANDS, name, version);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) return help.run(rest, { version });
  // `coffer <command> --help` explains the command instead of running it (or failing on the flag).
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(helpFor(name));
    return 0;
  }
  const command = COMMANDS.find((known) => known.name === name || known.aliases?.includes(name));
  if (command !== undefined) return command.run(rest, { version });
  return unknownCommand(name, rest);
}

/** Words people use for a command that no spelling distance finds ("coffer history"). */
const OTHER_WORDS = new Map([
  ['history', 'activity'],
  ['payments', 'activity'],
  ['log', 'activity'],
  ['pause', 'kill'],
  ['unpause', 'resume'],
  // What the dashboard and the words say ("stopped", "fund it"), not what the commands are called.
  ['stop', 'kill'],
  ['fund', 'allocate'],
  ['withdraw', 'return'],
  ['balance', 'status'],
]);

/**
 * A command not known (run, or asked help for): the one most likely meant ("stauts", "pya") where one
 * is close enough, else the whole usage; exit 2. An option first (`coffer --data-dir DIR status`): the
 * line as meant, where a command follows among `rest`, with that command's usage.
 */
function unknownCommand(name: string, rest: string[] = []): number {
  if (name.startsWith('-')) {
    const args = [name, ...rest];
    const at = args.findIndex((word) => NAMES.includes(word));
    console.error(
      at === -1
        ? `coffer: a command comes first, then its options ("${name}" is an option): coffer <command> [options]; coffer help lists the commands`
        : `coffer: a command comes first, then its options. Did you mean "coffer ${shellWords([args[at]!, ...args.slice(0, at), ...args.slice(at + 1)])}"?\n\n${synopsisOf(args[at]!)}`,
    );
    return 2;
  }
  // `coffer resume-all`, `coffer kill-all`: the API's words for what these commands do with --all.
  const [, withAll] = /^(.+)[-_]all$/.exec(name) ?? [];
  if (COMMANDS.find((command) => command.name === withAll)?.options?.includes('all')) {
    console.error(`coffer: unknown command "${name}". Did you mean "coffer ${withAll!} --all"?\n\n${synopsisOf(withAll!)}`);
    return 2;
  }
  const meant = OTHER_WORDS.get(name) ?? closestOf(name, NAMES);
  if (meant !== null) console.error(`coffer: unknown command "${name}". Did you mean "coffer ${meant}"?\n\n${synopsisOf(meant)}`);
  else console.error(`coffer: unknown command "${name}"\n\n${helpText(COMMANDS, version)}`);
  return 2;
}

// `coffer status | head -1`: quiet when the reader goes away, for every command (closed-pipe.ts).
endQuietlyOnClosedPipe();

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      // A command used wrongly: what was wrong, then how the command is used and where the rest is.
      console.error(`coffer: ${error.message}\n\n${synopsisOf(error.command)}`);
      process.exitCode = 2;
      return;
    }
    // The server's message, and its stable code for scripts (`coffer: ... (insufficient_funds)`).
    const code = error instanceof CofferApiError || isCofferError(error) ? error.code : null;
    console.error(`coffer: ${(error as Error).message}${code === null ? '' : ` (${code})`}`);
    process.exitCode = exitStatusOf(code);
  },
);
