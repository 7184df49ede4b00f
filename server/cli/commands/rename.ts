/** `coffer rename <agent> <name>`, through the owner key of the running Coffer's connection file. */
import { ownerClient } from '../owner-connection.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

/** `coffer rename <agent> <name>`: the name the dashboard and the tray show. */
export async function rename(args: { agentId: string; name: string; dataDir?: string; json?: boolean }, out: Out = process.stdout) {
  const { api } = ownerClient(args.dataDir);
  const body = await api.rename(args.agentId, { displayName: args.name });
  if (args.json) return printJson(body, out);
  out.write(`Renamed ${args.agentId}: "${body.displayName}".\n`);
  return 0;
}
