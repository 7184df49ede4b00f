/**
 * `coffer allocate` and `coffer return`: USDC between the treasury and an agent's wallet, on either
 * rail, through the owner key of the running Coffer's connection file.
 */
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { formatUsdc, tryParseUsdc } from '../../wire/money.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { heldShortfall } from '../../wire/held-shortfall.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

/** The rail a command names (`--rail`; left out, Solana). */
const railOf = (rail: Rail | undefined) => (rail === undefined ? {} : { rail });
/** Where a wallet is, in words, its rail always said ("its wallet on Solana"): an agent has one on each. */
const walletOn = (rail: Rail) => `its wallet on ${railName(rail)}`;

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
