/**
 * The registry from a terminal, as the dashboard's Registry page shows it: the services agents may
 * pay (the catalog, and a facilitator's x402 Bazaar where the owner turned it on) and the image
 * models with their prices. The registry is public (no key): any terminal reads it.
 */
import { keyClient } from '../../client/coffer-client.js';
import { agentCredentials, linkedHere } from '../../linked-agent/agent-config.js';
import type { Model, Service } from '../../wire/answers/registry.js';
import { readOwnerConnection } from '../owner-connection.js';
import { aligned } from './activity.js';
import { printJson } from './owner-commands.js';

type Out = NodeJS.WritableStream;

/** Which Coffer a terminal reads: its linked agent's, else the data dir's running one, else the default port. */
export function registryUrl(configPath: string, dataDir: string | undefined): string {
  if (dataDir === undefined && linkedHere(configPath)) return agentCredentials(configPath).url;
  try {
    return readOwnerConnection(dataDir).url;
  } catch (error) {
    if (dataDir !== undefined) throw error;
    return `http://127.0.0.1:${process.env.COFFER_PORT || 7402}`;
  }
}

/** What a service costs: "0.01 USDC a call", or a price a resolution ("1k 0.04, 2k 0.08 USDC"). */
const priceWords = (service: Pick<Service, 'pricePerCall' | 'pricing'>) =>
  service.pricePerCall !== null
    ? `${service.pricePerCall} USDC a call`
    : `${Object.entries(service.pricing)
        .map(([resolution, price]) => `${resolution} ${price}`)
        .join(', ')} USDC`;

/** Where it is paid: Solana always (the catalog's `payTo`), Base beside it where it names a Base recipient. */
const railWords = (service: Service) => (service.base === null ? 'Solana' : 'Solana or Base');

/**
 * `coffer services [<query>]`: what matches (every service without a query), the catalog's first; the
 * image models are listed by `coffer models`, as the dashboard lists them apart.
 */
export async function servicesCommand(args: { url: string; query?: string; limit?: number; json?: boolean }, out: Out = process.stdout) {
  const api = keyClient(args.url, {});
  const result = await api.searchServices(args.query ?? '', args.limit);
  if (args.json) return printJson(result, out);
  const services = result.results.filter((service) => service.source !== 'model-registry');
  if (services.length === 0) {
    out.write(args.query ? `No service matches "${args.query}".\n` : 'The registry lists no service.\n');
  } else {
    const rows = services.map((service) => [service.id, priceWords(service), railWords(service), service.name]);
    const lines = aligned(rows).split('\n');
    services.forEach((service, index) => {
      const found = service.discovery === undefined ? '' : ` (x402 Bazaar of ${new URL(service.discovery.facilitator).host})`;
      out.write(`${lines[index]}\n      ${service.endpoint}${found}\n`);
    });
  }
  const shown = result.results.length;
  if (result.totalIsCapped || result.total > shown)
    out.write(`${shown} of ${result.total}${result.totalIsCapped ? '+' : ''} shown: --limit N for more\n`);
  if (result.bazaar !== null && result.bazaar.state === 'failed')
    out.write(`The x402 Bazaar could not be read: ${result.bazaar.error?.message ?? 'no list'}\n`);
  return 0;
}

/** `coffer models`: the image models `/generate` buys from, each price a resolution, and whether it can be bought now. */
export async function modelsCommand(args: { url: string; json?: boolean }, out: Out = process.stdout) {
  const api = keyClient(args.url, {});
  const { models } = await api.models();
  if (args.json) return printJson({ models }, out);
  if (models.length === 0) {
    out.write('No image model is listed.\n');
    return 0;
  }
  out.write(aligned(models.map(modelCells)));
  return 0;
}

const modelCells = (model: Model): string[] => [
  model.id,
  priceWords({ pricePerCall: null, pricing: model.pricing }),
  model.provider,
  model.enabled ? model.displayName : `${model.displayName} (not offered)`,
];
