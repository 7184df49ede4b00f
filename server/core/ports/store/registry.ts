import type { CatalogService, Model } from '../../../wire/answers/registry.js';

/**
 * Port: the registry of payable services and image models (read-only to the core). A service and a
 * model are stored as the wire shows them (decimal-string prices, no bigints): one shape each.
 */
export type ServiceRecord = CatalogService;

export type ModelRecord = Model;

/** A listing searched beside the catalog (a Bazaar listing): the fields a catalog service is searched by. */
export interface SearchListing {
  id: string;
  name: string;
  description: string;
  category: string;
}

export interface RegistryStore {
  /**
   * Ranked matches (every word a prefix, any word matching; an empty query lists every service);
   * `total` counts them up to a cap (`totalIsCapped` beyond).
   */
  searchServices(query: string, limit: number): { results: ServiceRecord[]; total: number; totalIsCapped: boolean };
  /**
   * Replaces the listings held for search beside the catalog (the Bazaar's, when its list changes):
   * held for this process only, never in the ledger, and none until given.
   */
  replaceSearchListings(listings: SearchListing[]): void;
  /**
   * The listings held that match a query by searchServices' rule and ranking, best first (an empty
   * query lists them all, by name): their ids, and how many match.
   */
  searchListings(query: string, limit: number): { ids: string[]; total: number; totalIsCapped: boolean };
  getService(id: string): ServiceRecord | null;
  servicesPaidTo(payTo: string): ServiceRecord[];
  listModels(): ModelRecord[];
  getModel(id: string): ModelRecord | null;
}
