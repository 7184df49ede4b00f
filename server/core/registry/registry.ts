import { CofferError } from '../../wire/errors.js';
import type { ContextWith } from '../context.js';
import { parseAmount } from '../../wire/money.js';
import type { MetaStore, ModelRecord, RegistryStore, ServiceRecord } from '../ports/store.js';
import { bazaarForSearch } from './bazaar.js';
import type { CatalogService, Model, Models, SearchResult, Service, ServicesPaidTo } from '../../wire/answers/registry.js';
import { quotedIdOr } from '../../wire/quoted-id.js';
import { openBase } from '../rails.js';

export const SEARCH_DEFAULT_LIMIT = 20;

/** Where the catalog lists the demo API (coffer demo-api's default port). */
export const DEMO_API_LISTED_URL = 'http://127.0.0.1:7403';

/**
 * A listing's endpoint where it is served now: the demo API's name the port it really runs on when it
 * runs elsewhere than the catalog's default (it says where, see demoApiUrl). What the registry shows
 * and what a payment's URL is matched against are the same, or a listed demo service bought on its
 * real port would be judged outside the registry (its name, allowedServices, its price cap).
 */
const servedEndpoint = (endpoint: string, demoApiUrl: string | null): string =>
  demoApiUrl !== null && endpoint.includes(`${DEMO_API_LISTED_URL}/`) ? endpoint.replace(DEMO_API_LISTED_URL, demoApiUrl) : endpoint;

/**
 * A service as the registry answers it, its endpoint where it is served now (servedEndpoint), and its
 * Base terms only where this Coffer's Base rail is open: listed with the rail off, an agent was told
 * to pay it on Base, and refused `rail_unavailable` (helper 183).
 */
const serviceView = (service: ServiceRecord, demoApiUrl: string | null, baseOpen: boolean): CatalogService => ({
  id: service.id,
  name: service.name,
  description: service.description,
  category: service.category,
  pricing: service.pricing,
  pricePerCall: service.pricePerCall,
  endpoint: servedEndpoint(service.endpoint, demoApiUrl),
  source: service.source,
  payTo: service.payTo,
  network: service.network,
  base: baseOpen ? service.base : null,
});

const modelView = (model: ModelRecord): Model => ({
  id: model.id,
  displayName: model.displayName,
  provider: model.provider,
  description: model.description,
  pricing: model.pricing,
  enabled: model.enabled,
});

/**
 * Full-text search of the registry (FTS5, ranked; an empty query lists everything), then, when Bazaar
 * discovery is on, the facilitator's listings that match by the same rule, searched by the store as
 * the catalog is (bazaar.ts): the shipped catalog's matches first, the Bazaar's after them, `limit`
 * in all. `bazaar` says where its list stands (null: off).
 */
export async function searchServices(
  ctx: ContextWith<RegistryStore & MetaStore>,
  query: string,
  limit = SEARCH_DEFAULT_LIMIT,
): Promise<SearchResult> {
  const { results, total, totalIsCapped } = ctx.store.searchServices(query, limit);
  const demo = ctx.demoApiUrl?.() ?? null;
  const catalog: Service[] = results.map((service) => serviceView(service, demo, openBase(ctx) !== null));
  const bazaar = await bazaarForSearch(ctx, query, Math.max(0, limit - catalog.length));
  return {
    query,
    results: [...catalog, ...(bazaar?.results ?? [])],
    total: total + (bazaar?.total ?? 0),
    totalIsCapped: totalIsCapped || (bazaar?.totalIsCapped ?? false),
    bazaar: bazaar?.status ?? null,
  };
}

export function getService(ctx: ContextWith<RegistryStore>, id: string): CatalogService {
  const service = ctx.store.getService(id);
  if (service === null) throw new CofferError('service_not_found', `no service ${quotedIdOr(id, 'with that id')} in the registry`);
  return serviceView(service, ctx.demoApiUrl?.() ?? null, openBase(ctx) !== null);
}

/** The registry's services paid to an address: how a paying client finds the listed price of a 402. */
export function servicesPaidTo(ctx: ContextWith<RegistryStore>, payTo: string): ServicesPaidTo {
  // An EVM address is a service's Base terms, listed only where the Base rail is open (serviceView).
  const baseOpen = openBase(ctx) !== null;
  if (!baseOpen && payTo.startsWith('0x')) return { results: [] };
  const demo = ctx.demoApiUrl?.() ?? null;
  return { results: ctx.store.servicesPaidTo(payTo).map((service) => serviceView(service, demo, baseOpen)) };
}

export function listModels(ctx: ContextWith<RegistryStore>): Models {
  return { models: ctx.store.listModels().map(modelView) };
}

/**
 * The most a service may be paid for one call, as the registry lists it: its price per call, or the
 * dearest of its per-resolution prices; null when it lists no price.
 */
export function listedPrice(service: ServiceRecord): bigint | null {
  if (service.pricePerCall !== null) return parseAmount(service.pricePerCall);
  const prices = Object.values(service.pricing).map((price) => parseAmount(price));
  return prices.length === 0 ? null : prices.reduce((a, b) => (a > b ? a : b));
}

/**
 * The registry's view of a recipient: the service whose endpoint is this URL (or the only service
 * paid to that address), and the price that caps the payment: that service's listed price, or the
 * dearest listed price among the services paid there. Outside the registry the URL's host names it.
 */
export function registryServiceFor(
  ctx: ContextWith<RegistryStore>,
  payTo: string,
  url: string,
): { service: ServiceRecord | null; serviceId: string; listed: bigint | null } {
  const candidates = ctx.store.servicesPaidTo(payTo);
  const target = new URL(url);
  // Where the demo API runs now is read (a file) only for a demo listing: not on every purchase's path.
  const served = (endpoint: string) =>
    endpoint.includes(`${DEMO_API_LISTED_URL}/`) ? servedEndpoint(endpoint, ctx.demoApiUrl?.() ?? null) : endpoint;
  const matched = candidates.find((candidate) => endpointMatches(served(candidate.endpoint), target));
  const service = matched ?? soleService(candidates);
  return { service, serviceId: service?.id ?? target.host, listed: dearestListed(service ? [service] : candidates) };
}

/**
 * The registry's view of a /pay: the service it pays (the one it names, else the only one paid at its
 * recipient's address) and the price that caps it: that service's listed price, or, under a name
 * outside the registry, the dearest price listed at the address. Under any name a payment gives it,
 * money sent to a registry service is that service's: its budgets, allowedServices and price hold, as
 * for an x402 purchase paid there. The owner's treasury is neither: its services (images) are bought
 * by /generate alone, and money sent back there buys none of them.
 */
export function registryServiceForPay(
  ctx: ContextWith<RegistryStore>,
  serviceId: string,
  recipient: string | undefined,
  treasury: string,
): { service: ServiceRecord | null; listed: bigint | null } {
  const named = ctx.store.getService(serviceId);
  if (named !== null) return { service: named, listed: listedPrice(named) };
  if (recipient === undefined || recipient === treasury) return { service: null, listed: null };
  const candidates = ctx.store.servicesPaidTo(recipient);
  const service = soleService(candidates);
  return { service, listed: dearestListed(service ? [service] : candidates) };
}

/** The one service of these; null where there are none or several (an address several services share names none of them). */
const soleService = (services: ServiceRecord[]): ServiceRecord | null => (services.length === 1 ? services[0]! : null);

/** The dearest listed price of these services; null where none lists one. */
function dearestListed(services: ServiceRecord[]): bigint | null {
  const prices = services.map(listedPrice).filter((price): price is bigint => price !== null);
  return prices.length === 0 ? null : prices.reduce((a, b) => (a > b ? a : b));
}

/** "GET https://host/path?q={q}" matches a URL on that origin and path. */
function endpointMatches(endpoint: string, target: URL): boolean {
  const spelled = endpoint.split(' ').pop() ?? '';
  if (!URL.canParse(spelled.replace(/\{[^}]*\}/g, 'x'))) return false;
  const listed = new URL(spelled.replace(/\{[^}]*\}/g, 'x'));
  return listed.origin === target.origin && listed.pathname === target.pathname;
}

/** Registry ids a mistyped one may have meant: the search's nearest few (never the whole registry). */
export const nearServiceIds = (ctx: ContextWith<RegistryStore>, typed: string): string[] =>
  ctx.store.searchServices(typed.replace(/[^\p{L}\p{N}]+/gu, ' '), 20).results.map((service) => service.id);
