/**
 * `coffer deploy <agent>`: the owner's new agent from a terminal, through the owner key of the running
 * Coffer's connection file (DIR/connection.json, readable by its user only), as the dashboard's Deploy
 * makes one.
 */
import type { Deployed, RailWallets } from '../../wire/answers/agents.js';
import { startingLimits } from '../../wire/policy/policy.js';
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import { checkConfigWritable, writeAgentConfig } from '../../linked-agent/agent-config.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import { printJson } from './print-json.js';
import { baseRailOpen } from './rail-lines.js';
import { policyText } from './policy.js';
import { keptInWords } from './agent-key.js';

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
