/**
 * `coffer activity`: payments, newest first, as the dashboard's Activity page and an agent's page
 * list them. As the owner: the last ones across every agent, or one agent's history; `--refusals`:
 * what the policies refused instead. In a linked terminal: its agent's own history.
 */
import { keyClient, type CofferClient } from '../../client/coffer-client.js';
import { agentCredentials } from '../../linked-agent/agent-config.js';
import type { Activity, Refusal, SpendRecord } from '../../wire/answers/payments.js';
import { localTime } from '../local-time.js';
import { ownerClient } from '../owner-connection.js';
import { printJson } from './owner-commands.js';

type Out = NodeJS.WritableStream;

/** Who reads: the linked agent its own history, or the owner (any agent's, all of them, refusals). */
export type ActivityReader = { as: 'agent'; configPath: string } | { as: 'owner'; dataDir?: string };

export interface ActivityArgs {
  reader: ActivityReader;
  /** One agent's history; left out, the owner's view across agents (or the linked agent's own). */
  agentId?: string;
  refusals?: boolean;
  /** How many of one agent's payments (1 to 500); the view across agents is the dashboard's last 20. */
  limit?: number;
  json?: boolean;
}

/** An agent's own history reads this many payments unless told. */
const HISTORY_LIMIT = 20;

export async function activityCommand(args: ActivityArgs, out: Out = process.stdout): Promise<number> {
  if (args.reader.as === 'agent') {
    const agent = agentCredentials(args.reader.configPath);
    const api = keyClient(agent.url, { owner: agent.owner, key: agent.apiKey });
    return historyOf(api, args.agentId ?? agent.agentId, args, out);
  }
  const { api } = ownerClient(args.reader.dataDir);
  if (args.agentId !== undefined && !args.refusals) return historyOf(api, args.agentId, args, out);
  const dashboard = await api.dashboard();
  if (args.refusals) {
    const refusals = dashboard.recentRefusals.filter((refusal) => args.agentId === undefined || refusal.agent === args.agentId);
    if (args.json) return printJson({ refusals }, out);
    const whose = args.agentId === undefined ? 'any agent' : args.agentId;
    out.write(refusals.length === 0 ? `No payment of ${whose} was refused lately.\n` : aligned(refusals.map(refusalCells)));
    return 0;
  }
  const activity = dashboard.recentActivity;
  if (args.json) return printJson({ activity }, out);
  out.write(activity.length === 0 ? 'No payments yet.\n' : aligned(activity.map(activityCells)));
  return 0;
}

async function historyOf(api: CofferClient, agentId: string, args: ActivityArgs, out: Out): Promise<number> {
  const history = await api.spendHistory(agentId, args.limit ?? HISTORY_LIMIT);
  if (args.json) return printJson(history, out);
  out.write(history.payments.length === 0 ? `${agentId} has made no payments yet.\n` : aligned(history.payments.map(spendCells)));
  return 0;
}

/** What an x402 purchase bought, and the rail where it is not Solana: the line's last words. */
const tail = (payment: { rail: string; protocol: string; resource: string | null }) => [
  ...(payment.rail === 'base' ? ['on Base'] : []),
  ...(payment.protocol === 'x402' ? [`x402 ${payment.resource ?? ''}`.trim()] : []),
];

/** The activity feed's `approved` is the spend history's `confirmed`: one word for a payment that went through. */
const statusWord = (status: string) => `(${status === 'approved' ? 'confirmed' : status})`;

const usdc = (amount: string) => `${amount} USDC`;

/** One payment of an agent's history: when, how much, to what, where it stands. */
export const spendCells = (payment: SpendRecord): string[] => [
  localTime(payment.timestamp),
  usdc(payment.amount),
  payment.service,
  statusWord(payment.status),
  ...tail(payment),
];

const activityCells = (payment: Activity): string[] => [
  localTime(payment.timestamp),
  payment.agent,
  usdc(payment.amount),
  payment.venue,
  statusWord(payment.status),
  ...tail(payment),
];

const refusalCells = (refusal: Refusal): string[] => [
  localTime(refusal.timestamp),
  refusal.agent,
  usdc(refusal.amount),
  refusal.venue,
  `${refusal.code}: ${refusal.message}`,
];

/** Rows as lines, each column as wide as its widest cell (amounts to the right), indented. */
export function aligned(rows: string[][], indent = '  '): string {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(0, ...rows.map((row) => row[column]?.length ?? 0)));
  const isAmount = (cell: string) => /^[\d,.]+ USDC$/.test(cell);
  return rows
    .map(
      (row) =>
        `${indent}${row
          .map((cell, column) => (isAmount(cell) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
