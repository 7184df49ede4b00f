// The owner's commands: what the dashboard offers the owner, through the running Coffer's owner key.
import { defineCommand, UsageError } from '../command-line.js';
import { railOption } from './rail-option.js';
import { POLICY_FLAGS_USAGE, policyFlagOptions } from './policy-options.js';
import { amountArgument, amountFlag } from './amount-argument.js';
import { limitOption } from './limit-option.js';
import { LIST_LIMITS } from '../../wire/limits.js';

const deployCommand = () => import('../commands/deploy.js');
const fundsCommands = () => import('../commands/agent-funds.js');
const archiveCommand = () => import('../commands/archive.js');
const renameCommand = () => import('../commands/rename.js');
const keyCommand = () => import('../commands/agent-key.js');
const approvalCommands = () => import('../commands/approvals.js');

/** Every owner command reads the running Coffer of a data dir (--data-dir, else COFFER_HOME, else ~/.coffer); reads print JSON with --json. */
const reach = { 'data-dir': { type: 'string' }, json: { type: 'boolean', default: false } } as const;
const DATA_DIR = '[--data-dir DIR] [--json]';

export const deploy = defineCommand({
  name: 'deploy',
  usage: `  coffer deploy <agent> [--fund AMOUNT [--rail sol|base]] [--name NAME] [--config FILE] [--force]
                 ${POLICY_FLAGS_USAGE}
                 ${DATA_DIR}
                 a new agent: its wallet, its policy (the flags coffer policy takes; --daily and
                 --max left out, 5.00 in any 24 hours and 0.50 a payment, or what fits the one
                 given), funded from the treasury with --fund, on Solana or with --rail base on
                 Base; prints its API key once and the MCP server entry a host takes,
                 or with --config keeps the key in FILE: this terminal acts as the agent at once
                 (another agent's FILE is replaced only with --force).
                 Example: coffer deploy researcher --fund 2 --budget 20/month --ask-above 0.25`,
  options: {
    ...reach,
    ...policyFlagOptions,
    fund: { type: 'string' },
    rail: { type: 'string' },
    name: { type: 'string' },
    config: { type: 'string' },
    force: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, ...extra] = positionals;
    if (agentId === undefined) throw new UsageError("coffer deploy needs the new agent's id", 'deploy');
    if (extra.length > 0) throw new UsageError(`coffer deploy takes one agent, not also "${extra[0]}"`, 'deploy');
    const { agentIdSchema } = await import('../../wire/schemas.js');
    const id = agentIdSchema.safeParse(agentId);
    if (!id.success) throw new UsageError(`"${agentId}" is not an agent id: it ${id.error.issues[0]!.message}`, 'deploy');
    const { 'data-dir': dataDir, json, fund, rail: railWord, name, config, force, ...flags } = values;
    const rail = railOption(railWord, 'deploy');
    if (rail !== undefined && fund === undefined)
      throw new UsageError('--rail says where --fund moves the USDC: name --fund too', 'deploy');
    const { PolicyFlagError, amountOf, namingFlags, policyUpdateOf } = await import('../policy-flags.js');
    try {
      // Read as `coffer policy` reads them, so a bad one names its flag before any Coffer is asked.
      const policy = policyUpdateOf(flags);
      const funds = fund === undefined ? undefined : amountOf('--fund', fund);
      return await (await deployCommand()).deploy({ agentId, dataDir, json, policy, fund: funds, rail, name, config, force });
    } catch (error) {
      if (error instanceof PolicyFlagError) throw new UsageError(error.message, 'deploy');
      throw namingFlags(error);
    }
  },
});

export const allocate = defineCommand({
  name: 'allocate',
  usage: `  coffer allocate <agent> <amount> [--rail sol|base] ${DATA_DIR}
                 moves USDC from the treasury to the agent's wallet, on chain: on Solana, or with
                 --rail base from the treasury's Base account to the agent's`,
  options: { ...reach, rail: { type: 'string' } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, typed] = two(positionals, 'allocate', 'an agent and an amount');
    const amount = amountArgument(typed, 'allocate', 'the agent first, then the amount', agentId);
    const rail = railOption(values.rail, 'allocate');
    return (await fundsCommands()).allocate({ agentId, amount, rail, dataDir: values['data-dir'], json: values.json });
  },
});

export const returnFunds = defineCommand({
  name: 'return',
  usage: `  coffer return <agent> [<amount>] [--rail sol|base] ${DATA_DIR}
                 moves USDC from the agent's wallet back to the treasury (without an amount: all it holds
                 that no payment has promised away), on Solana or with --rail base on Base; a payment
                 waiting for your yes holds nothing back (its yes then fails unless you fund it again)`,
  options: { ...reach, rail: { type: 'string' } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, amount, extra] = positionals;
    if (agentId === undefined || extra !== undefined)
      throw new UsageError('coffer return takes an agent and, if you like, an amount', 'return');
    const rail = railOption(values.rail, 'return');
    return (await fundsCommands()).returnFunds({
      agentId,
      amount:
        amount === undefined
          ? undefined
          : amountArgument(amount, 'return', 'the agent first, then the amount (or none: all it can)', agentId),
      rail,
      dataDir: values['data-dir'],
      json: values.json,
    });
  },
});

export const archive = defineCommand({
  name: 'archive',
  usage: `  coffer archive <agent> ${DATA_DIR}
                 stops the agent for good and revokes its keys; its history stays (return its USDC first)`,
  options: reach,
  positionals: true,
  run: async ({ values, positionals }) => {
    const agentId = one(positionals, 'archive', 'an agent');
    return (await archiveCommand()).archive({ agentId, dataDir: values['data-dir'], json: values.json });
  },
});

export const rename = defineCommand({
  name: 'rename',
  usage: `  coffer rename <agent> <name> ${DATA_DIR}
                 the name the dashboard and the tray show for the agent`,
  options: reach,
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, name] = two(positionals, 'rename', 'an agent and a name (quoted if it has spaces)');
    return (await renameCommand()).rename({ agentId, name, dataDir: values['data-dir'], json: values.json });
  },
});

export const key = defineCommand({
  name: 'key',
  usage: `  coffer key <agent> [--config FILE] [--force] ${DATA_DIR}
                 a new API key for the agent, shown once (with its MCP config); every older key
                 of it stops working at once (a lost or leaked one). With --config, kept in FILE
                 instead: this terminal acts as that agent (one deployed already; coffer link
                 makes a new one); another agent's FILE is replaced only with --force`,
  options: { ...reach, config: { type: 'string' }, force: { type: 'boolean', default: false } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const agentId = one(positionals, 'key', 'an agent');
    return (await keyCommand()).replaceKey({
      agentId,
      dataDir: values['data-dir'],
      json: values.json,
      config: values.config,
      force: values.force,
    });
  },
});

const treasuryCommands = () => import('../commands/treasury.js');

export const deposits = defineCommand({
  name: 'deposits',
  usage: `  coffer deposits ${DATA_DIR}
                 the USDC that came into the treasury, newest first: on which rail, from whom, and
                 what the sim faucet minted`,
  options: reach,
  run: async ({ values }) => (await treasuryCommands()).depositsCommand({ dataDir: values['data-dir'], json: values.json }),
});

export const allocations = defineCommand({
  name: 'allocations',
  usage: `  coffer allocations [<agent>] [--limit N] ${DATA_DIR}
                 the USDC moved between the treasury and agents, newest first (50, or --limit):
                 allocated to an agent or returned, on which rail, where each stands; one agent's
                 with its id (an archived one's too)`,
  options: { ...reach, limit: { type: 'string' } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, extra] = positionals;
    if (extra !== undefined) throw new UsageError('coffer allocations takes one agent at most', 'allocations');
    const limit = limitOption(values.limit, LIST_LIMITS.allocations, 'allocations');
    return (await treasuryCommands()).allocationsCommand({ agentId, limit, dataDir: values['data-dir'], json: values.json });
  },
});

export const faucet = defineCommand({
  name: 'faucet',
  usage: `  coffer faucet <amount> [--rail sol|base] ${DATA_DIR}
                 mints test USDC into the treasury, on the sim network only (on Base with --rail base)`,
  options: { ...reach, rail: { type: 'string' } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const amount = amountArgument(one(positionals, 'faucet', 'an amount of test USDC'), 'faucet', 'an amount of test USDC');
    const rail = railOption(values.rail, 'faucet');
    return (await treasuryCommands()).faucetCommand({ amount, rail, dataDir: values['data-dir'], json: values.json });
  },
});

export const approvals = defineCommand({
  name: 'approvals',
  usage: `  coffer approvals [--all] ${DATA_DIR}
                 what waits for you: agents' requests (a held payment, a looser policy, funds, to be
                 resumed, another agent), what each asks and why, and terminals asking to be linked;
                 --all: what was decided too`,
  options: { ...reach, all: { type: 'boolean', default: false } },
  run: async ({ values }) => (await approvalCommands()).listApprovals({ all: values.all, dataDir: values['data-dir'], json: values.json }),
});

export const approve = defineCommand({
  name: 'approve',
  usage: `  coffer approve <id> ${DATA_DIR}
  coffer approve <link URL> --code CODE [--agent ID] [--name NAME] [--daily AMOUNT] [--max AMOUNT] [--fund AMOUNT [--rail sol|base]]
                 [--data-dir DIR] [--json]
                 carries out an agent's request as it asked (once; coffer approvals lists their
                 ids); or links the terminal whose \`coffer link\` printed that URL, once the code it
                 shows is the one you type: a new agent with the limits given (left out, 5.00 a
                 day, 0.50 a payment)`,
  options: {
    ...reach,
    code: { type: 'string' },
    agent: { type: 'string' },
    name: { type: 'string' },
    daily: { type: 'string' },
    max: { type: 'string' },
    fund: { type: 'string' },
    rail: { type: 'string' },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const id = one(positionals, 'approve', "a request's id or a link URL");
    const { 'data-dir': dataDir, rail: railWord, ...rest } = values;
    const rail = railOption(railWord, 'approve');
    if (rail !== undefined && rest.fund === undefined)
      throw new UsageError('--rail says where --fund moves the USDC: name --fund too', 'approve');
    // A request's id takes none of a link's choices: said, not left unused.
    const isLink = id.startsWith('lnk_') || URL.canParse(id);
    const linkOnly = (['code', 'agent', 'name', 'daily', 'max', 'fund'] as const).filter((flag) => rest[flag] !== undefined);
    if (!isLink && linkOnly.length > 0)
      throw new UsageError(`--${linkOnly[0]} is for a link URL; a request (${id}) is carried out as it asked`, 'approve');
    // The link's amounts checked here, as deploy's are: a mistyped one is said before anything is asked.
    const amounts = Object.fromEntries(
      (['daily', 'max', 'fund'] as const).flatMap((flag) =>
        rest[flag] === undefined ? [] : [[flag, amountFlag(flag, rest[flag], 'approve')]],
      ),
    );
    return (await approvalCommands()).approve({ id, dataDir, ...rest, ...amounts, ...(rail === undefined ? {} : { rail }) });
  },
});

export const deny = defineCommand({
  name: 'deny',
  usage: `  coffer deny <id|link URL> ${DATA_DIR}
  coffer deny --links ${DATA_DIR}
                 refuses an agent's request (a held payment is never paid), or a terminal's link
                 request (its URL, or the id coffer approvals shows); --links: every terminal
                 waiting to be linked (their terminals are told there is nothing to wait for)`,
  options: { ...reach, links: { type: 'boolean', default: false } },
  positionals: true,
  run: async ({ values, positionals }) => {
    if (values.links) {
      if (positionals.length > 0) throw new UsageError(`coffer deny --links takes no id ("${positionals[0]}")`, 'deny');
      return (await approvalCommands()).deny({ links: true, dataDir: values['data-dir'], json: values.json });
    }
    const id = one(positionals, 'deny', "a request's id, a link URL, or --links");
    return (await approvalCommands()).deny({ id, dataDir: values['data-dir'], json: values.json });
  },
});

/** The command's one argument; else what it takes, in words. */
function one(positionals: string[], command: string, what: string): string {
  const [first, extra] = positionals;
  if (first === undefined || extra !== undefined) throw new UsageError(`coffer ${command} takes ${what}`, command);
  return first;
}

/** The command's two arguments; else what it takes, in words. */
function two(positionals: string[], command: string, what: string): [string, string] {
  const [first, second, extra] = positionals;
  if (first === undefined || second === undefined || extra !== undefined) throw new UsageError(`coffer ${command} takes ${what}`, command);
  return [first, second];
}
