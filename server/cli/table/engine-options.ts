import { UsageError } from '../command-line.js';
import { parseNetwork } from '../../chain/solana/networks.js';
import { portProblem } from '../../boot/serve-config.js';
import { facilitatorUrlProblem } from '../../wire/schemas.js';

/**
 * The flags of the commands that run Coffer or its demos (`--port`, `--network`, `--facilitator`),
 * checked before anything starts: a value none of them can use is a usage error (exit 2, with the
 * command's usage), as any other flag used wrongly. Left out, each command takes its default.
 */
export function engineOptions(values: { port?: string; network?: string; facilitator?: string }, command: string): void {
  const { port, network, facilitator } = values;
  const badPort = port === undefined ? null : portProblem(port);
  if (badPort !== null) throw new UsageError(`--port ${badPort}`, command);
  if (network !== undefined) {
    try {
      parseNetwork(network);
    } catch (error) {
      // Base is a rail beside the network, not a network of its own: a newcomer's likely mix-up.
      const base = /^base/i.test(network) ? ': Base is a rail, paid beside the network (its node: COFFER_BASE_RPC), not a --network' : '';
      throw new UsageError(`${(error as Error).message}${base}`, command);
    }
  }
  const badFacilitator = facilitator === undefined ? null : facilitatorUrlProblem(facilitator);
  if (badFacilitator !== null) throw new UsageError(`--facilitator ${badFacilitator} (got "${facilitator}")`, command);
}
