/**
 * How the registry's search answer is shown, the same in the dashboard's Registry page and in
 * `coffer services`: the services listed (the image models have their own list) and the rails each
 * is paid on.
 */
import type { SearchResult, Service } from './answers/registry.js';
import type { Rail } from './rails.js';

/** The services to show: every one but the image models, which have their own list with prices. */
export const listedServices = (result: Pick<SearchResult, 'results'>): Service[] =>
  result.results.filter((service) => service.source !== 'model-registry');

/**
 * The rails a service is paid on: Solana unless it names its Base recipient as its `payTo` (a Bazaar
 * listing payable on Base alone carries its Base account there, and in `base`), Base where `base`
 * names one. (The networks cannot tell them apart: on sim both rails' networks are `sim`.)
 */
export function railsOf(service: Pick<Service, 'payTo' | 'base'>): Rail[] {
  if (service.base === null) return ['sol'];
  return service.payTo === service.base.payTo ? ['base'] : ['sol', 'base'];
}
