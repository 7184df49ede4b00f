/**
 * The owner's hands on the treasury from a terminal: what the dashboard offers the owner, through the
 * owner key of the running Coffer's connection file (DIR/connection.json, readable by its user only).
 * Every read takes --json, which prints the API's answer as it is, for scripts.
 */
import type { Deployed, RailWallets } from '../../wire/answers/agents.js';
import { startingLimits } from '../../wire/policy/policy.js';
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import { checkConfigWritable, defaultConfigPath, readAgentConfig, writeAgentConfig } from '../../linked-agent/agent-config.js';
import { CofferApiError } from '../../client/client-error.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { formatUsdc, tryParseUsdc } from '../../wire/money.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { heldShortfall } from '../../wire/held-shortfall.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import { printJson } from './print-json.js';
import { baseRailOpen } from './rail-lines.js';
import { policyText } from './policy.js';
import { resolve } from 'node:path';

type Out = NodeJS.WritableStream;

/** What `coffer deploy` takes: the agent's id, and what the owner chose of its start. */
export interface DeployArgs {
  agentId: string;
  /** The policy it starts under, as `coffer policy`'s flags read (policy-flags.ts). */
  policy?: PolicyUpdate;
  fund?: string;
  /** The rail `fund` moves on (Solana when left out). */
  rail?: Rail;
  name?: string;
  dataDir?: string;
  json?: boolean;
  /** A linked terminal's config file to keep its key in, instead of showing it. */
  config?: string;
  /** Replace the config file though it holds another agent. */
  force?: boolean;
}

/**
 * `coffer deploy <agent>`: a new agent with its wallet, its policy (what the flags set; the two limits
 * left out, the ones a linked terminal's agent starts with) and its API key, shown once, with the MCP
 * config a host takes; or with --config kept in that file, so this terminal acts as the agent at once
 * (`coffer key --config` afterwards would revoke the key deploy showed).
 */
export async function deploy(args: DeployArgs, out: Out = process.stdout, err: Out = process.stderr): Promise<number> {
  const { api, url, owner } = ownerClient(args.dataDir);
  // Before the agent exists: a file that cannot be written, or that holds another agent, deploys nothing.
  if (args.config !== undefined) checkConfigWritable(args.config, args.force === true);
  const policy = args.policy ?? {};
  const answer = await api.deploy({
    agentId: args.agentId,
    ...policy,
    ...startingLimits(policy.dailyBudget, policy.maxPerPayment),
    ...(args.fund === undefined ? {} : { fund: args.fund, ...(args.rail === undefined ? {} : { fundRail: args.rail }) }),
    ...(args.name === undefined ? {} : { displayName: args.name }),
  });
  // The owner's own requests never wait: a 202 here would be a bug of the server.
  if (answer.status !== 200) throw new Error(`the deploy of ${args.agentId} waits for an approval (${answer.body.approvalId})`);
  const { agent, apiKey } = answer.body;
  // What else it starts under (budgets, breaker, asks…) said in full, so a flag read otherwise than
  // meant (--breaker 50/15m: refusals, not a share) shows at once.
  const whole = async () => (beyondLimits(policy) ? policyText(await api.policy(args.agentId)) : '');
  const said = async (config: string | null) =>
    deployedWords(answer.body, await whole(), config, args.rail, args.dataDir, await baseRailOpen(api));
  if (args.config === undefined) {
    if (args.json) return printJson(answer.body, out);
    out.write(await said(null));
    return 0;
  }
  try {
    // The owner's own deploy always issues its key: one without would be a bug of the server.
    if (apiKey === undefined) throw new Error('the deploy answered no key');
    writeAgentConfig(args.config, {
      agentId: agent.agentId,
      walletAddress: agent.walletAddress,
      apiKey,
      linkedAt: new Date().toISOString(),
      owner,
      url,
    });
  } catch (error) {
    // The agent exists: its key is shown rather than lost, with why the file has it not.
    err.write(`coffer: ${agent.agentId} is deployed, but its key could not be kept in ${args.config}: ${(error as Error).message}\n`);
    if (args.json) printJson(answer.body, out);
    else out.write(await said(null));
    return 1;
  }
  // Kept in the file, the key is printed nowhere, as JSON neither: the answer without it, and where it is.
  if (args.json) {
    const { apiKey: _kept, mcpConfig: _carriesIt, ...rest } = answer.body;
    return printJson({ ...rest, config: args.config }, out);
  }
  out.write(await said(args.config));
  return 0;
}

/** Whether a policy names more than the two limits the deploy's first line says. */
const beyondLimits = (policy: PolicyUpdate) => Object.keys(policy).some((field) => !['dailyBudget', 'maxPerPayment'].includes(field));

function deployedWords(
  deployed: Deployed,
  wholePolicy: string,
  config: string | null,
  rail: Rail | undefined,
  dataDir: string | undefined,
  onBase: boolean,
): string {
  const { agent, policy, funding } = deployed;
  const fund = (...more: string[]) => ownerCommandLine(['allocate', agent.agentId, 'AMOUNT', ...more], dataDir);
  const lines = [
    `Deployed ${agent.agentId} (${walletsWords(agent.wallets, onBase)}): ${policy.dailyBudget} USDC in any 24 hours, at most ${policy.maxPerPayment} a payment.`,
  ];
  if (wholePolicy !== '') lines.push(wholePolicy.trimEnd());
  if (funding?.status === 'funded')
    lines.push(
      `Funded with ${funding.allocation.amount} USDC on ${railName(funding.allocation.rail)} (transaction ${funding.allocation.txSignature}).`,
    );
  if (funding?.status === 'failed')
    lines.push(`Not funded: ${funding.error} (${funding.code}); the agent exists: ${fund(...(rail === 'base' ? ['--rail', 'base'] : []))}`);
  // No --fund: its wallets start empty, and its first payment would be refused for want of funds.
  if (funding === undefined)
    lines.push(`${onBase ? 'Its wallets are' : 'Its wallet is'} empty: ${fund()} funds it${onBase ? ' (--rail base on Base)' : ''}.`);
  if (config !== null) {
    lines.push(keptInWords(agent.agentId, config));
  } else {
    lines.push(`Its API key, shown this once: ${deployed.apiKey ?? '(none)'}`);
    lines.push(`Its MCP server, for an MCP host's "mcpServers":`, JSON.stringify({ [agent.agentId]: deployed.mcpConfig }, null, 2));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * An agent's wallets, each with its rail: the Base one is where its Base USDC is sent and seen. Every
 * wallet has a Base address filed whether or not the rail is open: where it is off, Base goes unsaid,
 * as status and the dashboard leave it out.
 */
const walletsWords = (wallets: RailWallets, onBase: boolean) =>
  wallets.base === null || !onBase ? `wallet ${wallets.sol}` : `wallets: ${wallets.sol} on Solana, ${wallets.base} on Base`;

/** The rail a command names (`--rail`; left out, Solana). */
const railOf = (rail: Rail | undefined) => (rail === undefined ? {} : { rail });
/** Where a wallet is, in words: "its wallet" on Solana, "its wallet on Base" there. */
const walletOn = (rail: Rail) => (rail === 'base' ? 'its wallet on Base' : 'its wallet');

/** `coffer allocate <agent> <amount> [--rail]`: USDC from the treasury to the agent's wallet, on chain. */
export async function allocate(
  args: { agentId: string; amount: string; rail?: Rail; dataDir?: string; json?: boolean },
  out: Out = process.stdout,
) {
  const { api } = ownerClient(args.dataDir);
  const answer = await api.allocate(args.agentId, { amount: args.amount, ...railOf(args.rail) });
  if (answer.status !== 200) throw new Error(`the allocation waits for an approval (${answer.body.approvalId})`);
  if (args.json) return printJson(answer.body, out);
  const { amount, balance, txSignature, rail } = answer.body;
  out.write(`Allocated ${amount} USDC to ${args.agentId}: ${walletOn(rail)} holds ${balance} USDC (transaction ${txSignature}).\n`);
  return 0;
}

/** `coffer return <agent> [<amount>]`: USDC back from the agent's wallet to the treasury (all it can, without an amount). */
export async function returnFunds(
  args: { agentId: string; amount?: string; rail?: Rail; dataDir?: string; json?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const { api } = ownerClient(args.dataDir);
  const body = await api.returnFunds(args.agentId, { ...(args.amount === undefined ? {} : { amount: args.amount }), ...railOf(args.rail) });
  if (args.json) return printJson(body, out);
  out.write(
    `Returned ${body.amount} USDC from ${args.agentId} to the treasury: ${walletOn(body.rail)} holds ${body.balance} USDC (transaction ${body.txSignature}).\n`,
  );
  const short = await heldShortfallWords(api, args.agentId, body.rail, body.balance, args.dataDir);
  if (short !== null) out.write(`${short}\n`);
  return 0;
}

/**
 * After a return, where what waits for the owner's yes on that rail is more than the wallet holds
 * (wire/held-shortfall.ts): said, with the command that funds it again; null where nothing lacks.
 */
async function heldShortfallWords(
  api: CofferClient,
  agentId: string,
  rail: Rail,
  balanceText: string,
  dataDir?: string,
): Promise<string | null> {
  const lacking = heldShortfall((await api.approvals('pending')).approvals, agentId, rail, tryParseUsdc(balanceText) ?? 0n);
  if (lacking === null) return null;
  const { payments, needed, short } = lacking;
  const count = payments.length === 1 ? '1 payment' : `${payments.length} payments`;
  return (
    `${count} of ${agentId} ${payments.length === 1 ? 'waits' : 'wait'} for your yes on ${railName(rail)} (${formatUsdc(needed)} USDC), ` +
    `more than its wallet there holds now (${balanceText}): a yes fails (insufficient_funds) unless you fund it again ` +
    `(${ownerCommandLine(['allocate', agentId, formatUsdc(short), ...(rail === 'base' ? ['--rail', 'base'] : [])], dataDir)}), ` +
    (payments.length === 1
      ? `or deny it (${ownerCommandLine(['deny', payments[0]!.approvalId], dataDir)}).`
      : `or deny them (${ownerCommandLine(['approvals'], dataDir)} lists them).`)
  );
}

/** `coffer archive <agent>`: stopped for good, its keys revoked, its history kept (its wallet must be empty). */
export async function archive(
  args: { agentId: string; dataDir?: string; json?: boolean },
  out: Out = process.stdout,
  err: Out = process.stderr,
) {
  const { api } = ownerClient(args.dataDir);
  let body;
  try {
    body = await api.archive(args.agentId);
  } catch (error) {
    if (!(error instanceof CofferApiError) || error.code !== 'agent_has_funds') throw error;
    // The server says what it holds (or what is on its way); here, the commands that give back what
    // its wallet holds on each rail, read from its balance (the dashboard's Archive… does it for you).
    const returns = await returnCommands(api, args.agentId, args.dataDir);
    err.write(`coffer: ${error.message} (${error.code})\n`);
    if (returns.length > 0)
      err.write(`Return it first: ${returns.join(' and ')}, then ${ownerCommandLine(['archive', args.agentId], args.dataDir)}\n`);
    return 1;
  }
  if (args.json) return printJson(body, out);
  out.write(`Archived ${args.agentId}: stopped for good, its keys revoked, its history kept.\n`);
  return 0;
}

/**
 * `coffer return` for each rail the agent's wallet holds USDC free on (none where it cannot be read
 * now): what pending payments and returns may still take is not there to return.
 */
async function returnCommands(api: ReturnType<typeof ownerClient>['api'], agentId: string, dataDir?: string): Promise<string[]> {
  const held = await api.balance(agentId).catch(() => null);
  if (held === null) return [];
  const holds = (balance: string | null | undefined) => (tryParseUsdc(balance ?? '0') ?? 0n) > 0n;
  // An older Coffer's answer has no `available`: what it holds is all it can say.
  const free = held.available ?? held.balances ?? { sol: held.balance, base: null };
  return [
    ...(holds(free.sol) ? [ownerCommandLine(['return', agentId], dataDir)] : []),
    ...(holds(free.base) ? [ownerCommandLine(['return', agentId, '--rail', 'base'], dataDir)] : []),
  ];
}

/** `coffer rename <agent> <name>`: the name the dashboard and the tray show. */
export async function rename(args: { agentId: string; name: string; dataDir?: string; json?: boolean }, out: Out = process.stdout) {
  const { api } = ownerClient(args.dataDir);
  const body = await api.rename(args.agentId, { displayName: args.name });
  if (args.json) return printJson(body, out);
  out.write(`Renamed ${args.agentId}: "${body.displayName}".\n`);
  return 0;
}

/**
 * `coffer key <agent> [--config FILE]`: a new API key; every older key of the agent stops working at
 * once. Shown once, or with --config kept in FILE as a linked terminal's config: this terminal then
 * acts as the agent (an agent deployed already; `coffer link` makes a new one).
 */
export async function replaceKey(
  args: { agentId: string; dataDir?: string; json?: boolean; config?: string; force?: boolean },
  out: Out = process.stdout,
) {
  const { api, url, owner } = ownerClient(args.dataDir);
  // Before the old key stops: a file that cannot be written, or that holds another agent, loses nothing.
  if (args.config !== undefined) checkConfigWritable(args.config, args.force === true || holdsAgent(args.config, owner, args.agentId));
  const body = await api.replaceKey(args.agentId);
  if (args.config !== undefined) {
    const { walletAddress } = await api.balance(args.agentId);
    writeAgentConfig(args.config, {
      agentId: body.agentId,
      walletAddress,
      apiKey: body.apiKey,
      linkedAt: new Date().toISOString(),
      owner,
      url,
    });
  }
  if (args.json) return printJson(body, out);
  const lines = [`Issued ${body.agentId} a new API key; every older one stopped working.`];
  if (args.config === undefined) {
    lines.push(
      `Its API key, shown this once: ${body.apiKey}`,
      `Its MCP server, for an MCP host's "mcpServers":`,
      JSON.stringify({ [body.agentId]: body.mcpConfig }, null, 2),
      // A terminal linked as this agent keeps the old key in its config file.
      `A terminal linked as ${body.agentId} needs the new key: ${ownerCommandLine(['key', body.agentId, '--config', 'FILE'], args.dataDir)} writes it there (FILE: its config).`,
    );
  } else {
    lines.push(keptInWords(body.agentId, args.config));
  }
  out.write(lines.join('\n') + '\n');
  return 0;
}

/** Where a terminal's commands find the agent whose key is kept in a config file. */
function keptInWords(agentId: string, config: string): string {
  // The agent's commands read the default config (COFFER_CONFIG, else the platform's place): another file is named to them.
  return resolve(config) === resolve(defaultConfigPath())
    ? `This terminal acts as ${agentId} now: its key is in ${config} (0600).`
    : `Its key is in ${config} (0600): commands act as ${agentId} with --config ${config}, or with COFFER_CONFIG=${config}.`;
}

/** Whether a config file holds this very agent (its old key, which the new one replaces anyway). */
function holdsAgent(file: string, owner: string, agentId: string): boolean {
  try {
    const held = readAgentConfig(file);
    return held.agentId === agentId && held.owner === owner;
  } catch {
    return false;
  }
}
