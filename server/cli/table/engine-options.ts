import { UsageError } from '../command-line.js';
import { parseNetwork } from '../../chain/solana/networks.js';

/**
 * The flags of the commands that run Coffer or its demos (`--port`, `--network`, `--facilitator`),
 * checked before anything starts: a value none of them can use is a usage error (exit 2, with the
 * command's usage), as any other flag used wrongly. Left out, each command takes its default.
 */
export function engineOptions(values: { port?: string; network?: string; facilitator?: string }, command: string): void {
  const { port, network, facilitator } = values;
  if (port !== undefined && (!/^\d+$/.test(port) || Number(port) > 65_535)) {
    throw new UsageError(`--port must be a number from 0 to 65535 (got "${port}")`, command);
  }
  if (network !== undefined) {
    try {
      parseNetwork(network);
    } catch (error) {
      // Base is a rail beside the network, not a network of its own: a newcomer's likely mix-up.
      const base = /^base/i.test(network) ? ': Base is a rail, paid beside the network (its node: COFFER_BASE_RPC), not a --network' : '';
      throw new UsageError(`${(error as Error).message}${base}`, command);
    }
  }
  if (facilitator !== undefined && !/^https?:\/\//.test(facilitator)) {
    throw new UsageError(`--facilitator must be an http(s) URL (got "${facilitator}")`, command);
  }
}
