/**
 * The treasury's own money from a terminal, as the dashboard's Treasury card shows it: what arrived
 * (deposits on each rail, and what the sim faucet minted), what moved to and from agents, and, on
 * sim, the faucet itself.
 */
import type { Deposit, FundsMove } from '../../wire/answers/treasury.js';
import { railName } from '../../wire/rail-words.js';
import { fundsMoveStanding } from '../../wire/funds-move-words.js';
import type { Rail } from '../../wire/rails.js';
import { localTime } from '../local-time.js';
import { ownerClient } from '../owner-connection.js';
import { aligned } from '../columns.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

/** `coffer deposits`: USDC that came into the treasury, newest first: when, how much, on which rail, from whom. */
export async function depositsCommand(args: { dataDir?: string; json?: boolean }, out: Out = process.stdout): Promise<number> {
  const { api } = ownerClient(args.dataDir);
  const { deposits } = await api.deposits();
  if (args.json) return printJson({ deposits }, out);
  out.write(
    deposits.length === 0
      ? 'No USDC has come into the treasury yet (coffer status shows its addresses).\n'
      : aligned(deposits.map(depositCells)),
  );
  return 0;
}

const depositCells = (deposit: Deposit): string[] => [
  localTime(deposit.timestamp),
  `${deposit.amount} USDC`,
  `on ${railName(deposit.rail)}`,
  deposit.source === 'faucet' ? 'from the sim faucet (test money)' : `from ${deposit.from}`,
  deposit.txSignature,
];

/** `coffer allocations [AGENT]`: USDC moved between the treasury and agents, newest first, as the dashboard's agent page lists an agent's. */
export async function allocationsCommand(
  args: { agentId?: string; limit?: number; dataDir?: string; json?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const { api } = ownerClient(args.dataDir);
  const answer = await api.allocations({ agentId: args.agentId, limit: args.limit });
  if (args.json) return printJson(answer, out);
  const { allocations } = answer;
  out.write(
    allocations.length === 0
      ? `No USDC has moved between the treasury and ${args.agentId ?? 'any agent'} yet (coffer allocate AGENT AMOUNT funds one).\n`
      : aligned(allocations.map(moveCells)),
  );
  return 0;
}

const moveCells = (move: FundsMove): string[] => [
  localTime(move.timestamp),
  move.kind === 'allocation' ? `allocated to ${move.agentId}` : `returned from ${move.agentId}`,
  `${move.amount} USDC`,
  `on ${railName(move.rail)}`,
  fundsMoveStanding(move),
  move.txSignature ?? '',
];

/** `coffer faucet <amount> [--rail]`: test USDC minted into the treasury, on the sim network only. */
export async function faucetCommand(
  args: { amount: string; rail?: Rail; dataDir?: string; json?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const { api } = ownerClient(args.dataDir);
  const result = await api.faucet({ amount: args.amount, ...(args.rail === undefined ? {} : { rail: args.rail }) });
  if (args.json) return printJson(result, out);
  const { deposit, treasury } = result;
  out.write(
    `Minted ${deposit.amount} test USDC into the treasury on ${railName(treasury.rail)}: it holds ${treasury.balance} USDC there (transaction ${deposit.txSignature}).\n`,
  );
  return 0;
}
