/**
 * The registry from a terminal, as the dashboard's Registry page shows it: the services agents may
 * pay (the catalog, and a facilitator's x402 Bazaar where the owner turned it on) and the image
 * models with their prices. The registry is public (no key): any terminal reads it.
 */
import { keyClient } from '../../client/coffer-client.js';
import { agentCredentials, linkedHere } from '../../linked-agent/agent-config.js';
import type { Model, Service } from '../../wire/answers/registry.js';
import { readOwnerConnection, runningCofferUrl } from '../owner-connection.js';
import { aligned } from '../columns.js';
import { listedServices, railsOf } from '../../wire/registry-listing.js';
import { railName } from '../../wire/rail-words.js';
import { LIST_LIMITS } from '../../wire/limits.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

/** Which Coffer a terminal reads: its linked agent's, else the data dir's running one (named, it must run), else the default port. */
export function registryUrl(configPath: string, dataDir: string | undefined): string {
  if (dataDir === undefined && linkedHere(configPath)) return agentCredentials(configPath).url;
  return dataDir === undefined ? runningCofferUrl() : readOwnerConnection(dataDir).url;
}

/** What a service costs: "0.01 USDC a call", or a price a resolution ("1k 0.04, 2k 0.08 USDC"). */
const priceWords = (service: Pick<Service, 'pricePerCall' | 'pricing'>) =>
  service.pricePerCall !== null
    ? `${service.pricePerCall} USDC a call`
    : `${Object.entries(service.pricing)
        .map(([resolution, price]) => `${resolution} ${price}`)
        .join(', ')} USDC`;

/**
 * `coffer services [<query>]`: what matches (every service without a query), the catalog's first; the
 * image models are listed by `coffer models`, as the dashboard lists them apart.
 */
export async function servicesCommand(args: { url: string; query?: string; limit?: number; json?: boolean }, out: Out = process.stdout) {
  const api = keyClient(args.url, {});
  // The API's most: the image models among the matches are left out below, and --limit counts what is shown.
  const result = await api.searchServices(args.query ?? '', LIST_LIMITS.search);
  if (args.json) return printJson(result, out);
  const services = listedServices(result);
  const shown = services.slice(0, args.limit ?? services.length);
  const models = result.results.length - services.length;
  if (shown.length === 0) {
    const none = args.query ? `No service matches "${args.query}"` : 'The registry lists no service';
    out.write(models > 0 ? `${none}; ${plural(models, 'image model')} ${models === 1 ? 'does' : 'do'}: coffer models\n` : `${none}.\n`);
    return 0;
  }
  const lines = aligned(
    shown.map((service) => [service.id, priceWords(service), railsOf(service).map(railName).join(' or '), service.name]),
  ).split('\n');
  shown.forEach((service, index) => {
    const found = service.discovery === undefined ? '' : ` (x402 Bazaar of ${new URL(service.discovery.facilitator).host})`;
    out.write(`${lines[index]}\n      ${service.endpoint}${found}\n`);
  });
  // What matched beyond the API's answer, and what --limit left out, are said; the image models are coffer models's.
  const matched = result.total - models;
  if (shown.length < matched || result.totalIsCapped)
    out.write(
      `${shown.length} of ${matched}${result.totalIsCapped ? '+' : ''} services shown${args.limit === undefined ? '' : ': --limit N for more'}\n`,
    );
  if (result.bazaar !== null && result.bazaar.state === 'failed')
    out.write(`The x402 Bazaar could not be read: ${result.bazaar.error?.message ?? 'no list'}\n`);
  return 0;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

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
