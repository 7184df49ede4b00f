/** `coffer archive <agent>`, through the owner key of the running Coffer's connection file. */
import { ownerCommandLine } from '../owner-command-line.js';
import { ownerClient } from '../owner-connection.js';
import { CofferApiError } from '../../client/client-error.js';
import { tryParseUsdc } from '../../wire/money.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

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
    // The server's words end with its HTTP door ("(POST /v1/agents/…/return)"): here, its commands say it.
    const said = returns.length > 0 ? error.message.replace(/ \(POST \/v1\/agents\/[^()]*\/return[^()]*\)$/, '') : error.message;
    err.write(`coffer: ${said} (${error.code})\n`);
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
