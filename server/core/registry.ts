import { CofferError } from './errors.js';
import type { EngineContext } from './context.js';
import { parseAmount } from './money.js';
import type { ModelRecord, ServiceRecord } from './ports/store.js';

export const SEARCH_DEFAULT_LIMIT = 20;

export const serviceView = (service: ServiceRecord) => ({
  id: service.id,
  name: service.name,
  description: service.description,
  category: service.category,
  pricing: service.pricing,
  pricePerCall: service.pricePerCall,
  endpoint: service.endpoint,
  source: service.source,
  payTo: service.payTo,
  network: service.network,
});

export const modelView = (model: ModelRecord) => ({
  id: model.id,
  displayName: model.displayName,
  provider: model.provider,
  description: model.description,
  pricing: model.pricing,
  enabled: model.enabled,
});

/** Full-text search of the registry (FTS5, ranked); an empty query lists everything. */
export function searchServices(ctx: EngineContext, query: string, limit = SEARCH_DEFAULT_LIMIT) {
  const { results, total, totalIsCapped } = ctx.store.searchServices(query, limit);
  return { query, results: results.map(serviceView), total, totalIsCapped };
}

export function getService(ctx: EngineContext, id: string) {
  const service = ctx.store.getService(id);
  if (service === null) throw new CofferError('service_not_found', `no service "${id}" in the registry`);
  return serviceView(service);
}

/** The registry's services paid to an address: how a paying client finds the listed price of a 402. */
export function servicesPaidTo(ctx: EngineContext, payTo: string) {
  return { results: ctx.store.servicesPaidTo(payTo).map(serviceView) };
}

export function listModels(ctx: EngineContext) {
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
