/**
 * `coffer status` as the owner: the treasury on each rail (its balance and address there, the gas it
 * holds for moves on Base), each agent (its state, balance on each rail, what it spent against its
 * daily budget, the budget nearest its limit) and what waits for the owner, as the dashboard's
 * overview says it.
 */
import type { AgentRow } from '../../wire/answers/agents.js';
import { networkWords } from '../../wire/network-words.js';
import { CofferApiError } from '../../client/client-error.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { ownerClient } from '../owner-connection.js';
import { printJson } from './owner-commands.js';
import { gasLine, heldOn, walletLines } from './rail-lines.js';

type Out = NodeJS.WritableStream;

/** Under the treasury's first line, its other lines start here. */
const TREASURY_INDENT = ' '.repeat('  treasury  '.length);

export async function ownerStatus(args: { dataDir?: string; json?: boolean }, out: Out = process.stdout): Promise<number> {
  const { api, url } = ownerClient(args.dataDir);
  const [dashboard, approvals, links] = await Promise.all([api.dashboard(), api.approvals('pending'), api.linkRequests()]);
  const waiting = { approvals: approvals.approvals, linkRequests: links.sessions };
  if (args.json) return printJson({ treasury: dashboard.treasury, agents: dashboard.agents, waiting }, out);
  const { treasury } = dashboard;
  // The Base rail off, or its node away, for the treasury: so it is for every agent, and none is asked.
  const onBase = treasury.balances.base === null ? null : await agentsOnBase(api, dashboard.agents);
  out.write(`Coffer at ${url}, on ${networkWords(treasury.network)}\n`);
  const gas = gasLine(treasury);
  const [first, ...more] = [...walletLines(treasury.wallets, treasury.balances), ...(gas === null ? [] : [gas])];
  out.write(`  treasury  ${first}\n${more.map((line) => `${TREASURY_INDENT}${line}\n`).join('')}`);
  out.write(dashboard.agents.length === 0 ? '  no agents yet: coffer deploy <agent>\n' : agentTable(dashboard.agents, onBase));
  const count = waiting.approvals.length + waiting.linkRequests.length;
  out.write(count === 0 ? '  nothing waits for you\n' : `  ${count} waiting for you: coffer approvals\n`);
  return 0;
}

/** At most this many balance reads at once: a treasury of many agents does not flood its own server. */
const READS_AT_ONCE = 8;

/**
 * Each agent's balance on Base. The dashboard's rows carry the Solana one only, so it is each agent's
 * balance answer; one an answer refuses (an agent archived meanwhile) reads as unknown.
 */
async function agentsOnBase(api: CofferClient, agents: AgentRow[]): Promise<Map<string, string | null>> {
  const balances = new Map<string, string | null>();
  let next = 0;
  const reader = async () => {
    while (next < agents.length) {
      const { agentId } = agents[next++]!;
      try {
        balances.set(agentId, (await api.balance(agentId)).balances.base);
      } catch (error) {
        // Coffer gone (nothing answered) is said as for any command; a refusal is this agent's alone.
        if (!(error instanceof CofferApiError) || error.status === 0) throw error;
        balances.set(agentId, null);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, agents.length) }, reader));
  return balances;
}

/**
 * One line an agent, its columns aligned: id, state, balance on each rail (Base left out where it was
 * not read), spent in 24 h of its daily budget, its tightest budget.
 */
function agentTable(agents: AgentRow[], onBase: Map<string, string | null> | null): string {
  const rows = agents.map((agent) => [
    agent.agentId,
    agent.status === 'suspended' ? `STOPPED${agent.statusReason === undefined ? '' : ` (${agent.statusReason})`}` : 'active',
    heldOn(agent.balance, 'sol'),
    ...(onBase === null ? [] : [heldOn(onBase.get(agent.agentId) ?? null, 'base')]),
    `${agent.spent24h} of ${agent.policy.dailyBudget} today`,
    `${agent.tightestBudget.percent} % of ${agent.tightestBudget.budget}${agent.tightestBudget.warned ? ' (warned)' : ''}`,
  ]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return `  agents\n${rows
    .map(
      (row) =>
        `    ${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('')}`;
}
