import { keyClient } from '../../client/coffer-client.js';
import { readOwnerConnection } from '../owner-connection.js';

type Out = NodeJS.WritableStream;

/**
 * `coffer settings [--time-zone ZONE|machine]`: the owner's time zone (where calendar budgets begin
 * and the day a policy ends); with the flag, set first. The owner's, through the running Coffer's
 * connection file.
 */
export async function settingsCommand(args: { timeZone?: string; dataDir?: string }, out: Out = process.stdout): Promise<number> {
  const owner = readOwnerConnection(args.dataDir);
  const api = keyClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  const settings =
    args.timeZone === undefined
      ? await api.settings()
      : await api.updateSettings({ timeZone: args.timeZone === 'machine' ? null : args.timeZone });
  out.write(`time zone  ${settings.timeZone} (${settings.timeZoneFrom === 'machine' ? "this machine's" : 'set by you'})\n`);
  return 0;
}
