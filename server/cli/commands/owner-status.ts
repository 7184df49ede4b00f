/**
 * `coffer status` as the owner: the treasury on each rail (its balance and address there, the gas it
 * holds for moves on Base), each agent (its state, balance on each rail, what it spent against its
 * daily budget, the budget nearest its limit) and what waits for the owner, as the dashboard's
 * overview says it.
 */
import type { AgentRow, ArchivedAgent, RailBalances } from '../../wire/answers/agents.js';
import { RAILS, type Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { tryParseUsdc } from '../../wire/money.js';
import { heldOfItWords } from '../../wire/policy/asks.js';
import { shareWords } from '../../wire/policy/budget.js';
import { paysOnWords } from '../../wire/network-words.js';
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import { printJson } from './print-json.js';
import { gasLine, heldOn, walletLines } from './rail-lines.js';
import { aligned } from '../columns.js';

type Out = NodeJS.WritableStream;

/** Under the treasury's first line, its other lines start here. */
const TREASURY_INDENT = ' '.repeat('  treasury  '.length);

export async function ownerStatus(
  args: { dataDir?: string; json?: boolean; connection?: ReturnType<typeof ownerClient> },
  out: Out = process.stdout,
): Promise<number> {
  const { api, url } = args.connection ?? ownerClient(args.dataDir);
  const [dashboard, approvals, links] = await Promise.all([api.dashboard(), api.approvals('pending'), api.linkRequests()]);
  const waiting = { approvals: approvals.approvals, linkRequests: links.sessions };
  if (args.json) {
    const { treasury, spent24h, held24h, agents, archivedAgents } = dashboard;
    return printJson({ treasury, spent24h, held24h, agents, archivedAgents, waiting }, out);
  }
  const { treasury } = dashboard;
  // Every wallet has a Base address filed whether or not the rail is open: where it is off, Base is
  // left out as the dashboard leaves it out; where its node did not answer, its balances say unknown.
  const onBase = treasury.baseNetwork !== null;
  // The Base rail's own network said where it is another (devnet's Base Sepolia, the demo's local
  // EVM chain): its balances read "on Base" below, test money or not.
  out.write(`Coffer at ${url}, ${paysOnWords(treasury.network, treasury.baseNetwork)}\n`);
  const gas = gasLine(treasury);
  const [first, ...more] = [...walletLines(treasury.wallets, treasury.balances, treasury.baseNetwork), ...(gas === null ? [] : [gas])];
  out.write(`  treasury  ${first}\n${more.map((line) => `${TREASURY_INDENT}${line}\n`).join('')}`);
  out.write(
    dashboard.agents.length === 0 ? noAgentsLine(dashboard.archivedAgents.length, args.dataDir) : agentTable(dashboard.agents, onBase),
  );
  out.write(archivedLine(dashboard.archivedAgents, args.dataDir));
  out.write(strandedLines(dashboard.archivedAgents, args.dataDir));
  // The day's total, as the overview says it (agents archived since included); an older Coffer gives none.
  if (dashboard.spent24h !== undefined)
    out.write(`  agents spent ${dashboard.spent24h} USDC in the last 24 h${heldPart(dashboard.held24h)}\n`);
  const count = waiting.approvals.length + waiting.linkRequests.length;
  out.write(count === 0 ? '  nothing waits for you\n' : `  ${count} waiting for you: ${ownerCommandLine(['approvals'], args.dataDir)}\n`);
  return 0;
}

/** No agent to show: none yet, or (archived ones kept, their ids taken for good) none left. */
const noAgentsLine = (archived: number, dataDir?: string) => {
  const deploy = ownerCommandLine(['deploy', 'AGENT'], dataDir);
  return archived === 0
    ? `  no agents yet: ${deploy}\n`
    : `  no agents but ${archived === 1 ? '1 archived (its id stays its own)' : `${archived} archived (their ids stay theirs)`}: ${deploy}\n`;
};

/**
 * The archived agents by id, under those in use, as the overview lists them apart, with the command
 * that reads one's history ("" where none is).
 */
function archivedLine(archived: ArchivedAgent[], dataDir?: string): string {
  if (archived.length === 0) return '';
  const ids = archived.map((agent) => agent.agentId);
  const named = ids.length <= 8 ? ids.join(', ') : `${ids.slice(0, 8).join(', ')} and ${ids.length - 8} more`;
  const kept = ids.length === 1 ? 'stopped for good, its history kept' : 'stopped for good, their history kept';
  return `  archived  ${named}: ${kept} (${ownerCommandLine(['activity', ids[0]!], dataDir)})\n`;
}

/**
 * USDC an archived agent's wallet still holds (sent after the archive): no one spends it there, so
 * it is said with the command that returns it, as the overview badges it ("still holds … on Base").
 */
function strandedLines(archived: ArchivedAgent[], dataDir?: string): string {
  return archived
    .flatMap((agent) =>
      RAILS.map((rail) => ({ rail, held: heldBy(agent, rail) }))
        .filter(({ held }) => (tryParseUsdc(held ?? '0') ?? 0n) > 0n)
        .map(
          ({ rail, held }) =>
            `  archived ${agent.agentId} still holds ${held} USDC on ${railName(rail)}: ${ownerCommandLine(['return', agent.agentId, ...(rail === 'base' ? ['--rail', 'base'] : [])], dataDir)}\n`,
        ),
    )
    .join('');
}

/** What an archived agent holds on a rail; an older Coffer's answer has no `balances`: its Solana `balance` alone. */
const heldBy = (agent: ArchivedAgent, rail: Rail): string | null =>
  (agent.balances as RailBalances | undefined)?.[rail] ?? (rail === 'sol' ? (agent.balance ?? null) : null);

/** What of a sum spent waits for the owner's yes, in words; null where nothing does (or an older Coffer does not say). */
const heldWords = (held: string | undefined) => heldOfItWords(tryParseUsdc(held ?? '0') ?? 0n, 'your');

/** The held words in brackets after a sum, or nothing. */
const heldPart = (held: string | undefined) => {
  const words = heldWords(held);
  return words === null ? '' : ` (${words})`;
};

/** The share of its daily budget an agent spent, in whole percents, as the server counts a budget's (budget-warnings.ts). */
const dailyShare = (spent: string, daily: string) => {
  const limit = tryParseUsdc(daily) ?? 0n;
  return Number(((tryParseUsdc(spent) ?? 0n) * 100n) / (limit > 0n ? limit : 1n));
};

/**
 * What an agent spent in 24 h of its daily budget, its share beside it, then its tightest budget
 * where that is another one.
 */
function budgetCells(agent: AgentRow): [string, string] {
  const { tightestBudget: tightest, policy, spent24h, held24h } = agent;
  const warned = tightest.warned ? ', warned' : '';
  // Held payments count against the budget unpaid: said apart, so "spent" is not read as paid.
  const held = heldWords(held24h);
  // The daily budget's own words (budget-warnings.ts dailyStanding): the tightest is the daily one.
  if (tightest.budget === `${policy.dailyBudget} USDC in any 24 hours`) {
    return [
      `${spent24h} of ${policy.dailyBudget} in 24 h (${shareWords(tightest.percent, spent24h)} %${warned}${held === null ? '' : `; ${held}`})`,
      '',
    ];
  }
  return [
    `${spent24h} of ${policy.dailyBudget} in 24 h (${shareWords(dailyShare(spent24h, policy.dailyBudget), spent24h)} %${held === null ? '' : `; ${held}`})`,
    `${shareWords(tightest.percent, tightest.used)} % of ${tightest.budget}${tightest.warned ? ' (warned)' : ''}`,
  ];
}

/**
 * One line an agent, its columns aligned: id (and its name), state, balance on each rail (the dashboard's rows carry
 * both; Base left out where the rail is off), spent in 24 h of its daily budget, its tightest budget.
 */
function agentTable(agents: AgentRow[], onBase: boolean): string {
  const rows = agents.map((agent) => [
    // The name the owner gave it (coffer rename), where it is not the id.
    agent.displayName && agent.displayName !== agent.agentId ? `${agent.agentId} "${agent.displayName}"` : agent.agentId,
    agent.status === 'suspended' ? `STOPPED${agent.statusReason === undefined ? '' : ` (${agent.statusReason})`}` : 'active',
    heldOn(agent.balance, 'sol'),
    ...(onBase ? [heldOn(agent.balances.base, 'base')] : []),
    ...budgetCells(agent),
  ]);
  return `  agents\n${aligned(rows, '    ')}`;
}
