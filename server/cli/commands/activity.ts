/**
 * `coffer activity`: payments, newest first, as the dashboard's Activity page and an agent's page
 * list them. As the owner: the last ones across every agent, or one agent's history; `--refusals`:
 * what the policies refused instead. As the linked agent (who-acts.ts): its own history.
 */
import type { CofferClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import type { Activity, Refusal, SpendRecord } from '../../wire/answers/payments.js';
import { failureWords } from '../../wire/payment-failure.js';
import { railName } from '../../wire/rail-words.js';
import type { Rail } from '../../wire/rails.js';
import { aligned } from '../columns.js';
import { localTime } from '../local-time.js';
import { clientFor, type Actor } from '../who-acts.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

export interface ActivityArgs {
  /** One agent's history; left out, the owner's view across agents (or the linked agent's own). */
  agentId?: string;
  refusals?: boolean;
  /** How many (20 unless told): of one agent's payments up to 500; across agents, of the dashboard's last 20. */
  limit?: number;
  json?: boolean;
}

/** How many payments are shown unless told: the dashboard's own count across agents. */
const SHOWN = 20;

export async function activityCommand(actor: Actor, args: ActivityArgs, out: Out = process.stdout): Promise<number> {
  const { api, agentId } = clientFor(actor, args.agentId, `the payments of ${args.agentId ?? 'every agent'}`);
  // The table refuses a linked agent's --refusals: the across-agents reads below are the owner's.
  if (agentId !== undefined && !args.refusals) return historyOf(api, agentId, args, out);
  const dashboard = await api.dashboard();
  const shown = args.limit ?? SHOWN;
  if (args.refusals) {
    // The dashboard's last 20 refusals across agents, one agent's among them where it is named.
    const agentId = args.agentId;
    if (agentId !== undefined && ![...dashboard.agents, ...dashboard.archivedAgents].some((agent) => agent.agentId === agentId))
      throw new CofferApiError(404, 'agent_not_found', `no agent "${agentId}"`);
    const refusals = dashboard.recentRefusals.filter((refusal) => agentId === undefined || refusal.agent === agentId).slice(0, shown);
    if (args.json) return printJson({ refusals }, out);
    const whose = agentId === undefined ? 'the last 20 across agents' : `the last 20 across agents, ${agentId}'s`;
    out.write(refusals.length === 0 ? `No refusal among ${whose}.\n` : aligned(refusals.map(refusalCells)));
    return 0;
  }
  const activity = dashboard.recentActivity.slice(0, shown);
  if (args.json) return printJson({ activity }, out);
  out.write(activity.length === 0 ? 'No payments yet.\n' : aligned(activity.map(activityCells)));
  return 0;
}

async function historyOf(api: CofferClient, agentId: string, args: ActivityArgs, out: Out): Promise<number> {
  const history = await api.spendHistory(agentId, args.limit ?? SHOWN);
  if (args.json) return printJson(history, out);
  out.write(history.payments.length === 0 ? `${agentId} has made no payments yet.\n` : aligned(history.payments.map(spendCells)));
  return 0;
}

/** What an x402 purchase bought: the line's last column, empty for another payment (left out where empty on every line: aligned). */
const bought = (payment: { protocol: string; resource: string | null }) =>
  payment.protocol === 'x402' ? `x402 ${payment.resource ?? ''}`.trim() : '';

/**
 * The rail beside the amount, on every line, as a balance names it ("0.01 USDC  on Solana") and as a
 * refusal does. Not only where some line is on Base: the same payment would read differently beside
 * others, and an agent that paid on Solana alone would never say where.
 */
const onRail = (rail: Rail) => `on ${railName(rail)}`;

/**
 * The activity feed's `approved` is the spend history's `confirmed`: one word for a payment that went
 * through. A failed one says why ("failed: denied by the owner").
 */
const statusWord = ({ status, errorCode, approvedAt }: { status: string; errorCode?: string; approvedAt?: string }) =>
  status === 'held' && approvedAt !== undefined
    ? '(approved, not bought yet)'
    : `(${status === 'approved' ? 'confirmed' : status}${status === 'failed' && errorCode !== undefined ? `: ${failureWords(errorCode)}` : ''})`;

const usdc = (amount: string) => `${amount} USDC`;

/** One payment of an agent's history: when, how much and where, to what, where it stands. */
export const spendCells = (payment: SpendRecord): string[] => [
  localTime(payment.timestamp),
  usdc(payment.amount),
  onRail(payment.rail),
  payment.service,
  statusWord(payment),
  bought(payment),
];

const activityCells = (payment: Activity): string[] => [
  localTime(payment.timestamp),
  payment.agent,
  usdc(payment.amount),
  onRail(payment.rail),
  payment.venue,
  statusWord(payment),
  bought(payment),
];

const refusalCells = (refusal: Refusal): string[] => [
  localTime(refusal.timestamp),
  refusal.agent,
  usdc(refusal.amount),
  // Both rails named: the same refusal on each is two lines. One kept before Coffer kept its rail has none.
  refusal.rail === null ? '' : onRail(refusal.rail),
  refusal.venue,
  `${refusal.code}: ${refusal.message}`,
];
