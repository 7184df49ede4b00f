/**
 * The /v1 answers of the registry: the paid services and image models agents may buy, a search of
 * them (the shipped catalog and, when Bazaar discovery is on, a facilitator's listings), and where
 * that discovery stands.
 */
import type { ErrorCode } from '../errors.js';

/** Where a catalog service comes from: Coffer's own demo services, the image models, the x402 marketplace. */
export type CatalogSource = 'svc-native' | 'model-registry' | 'x402-marketplace';

/** A service of the shipped catalog (GET /v1/services/:id). */
export type CatalogService = {
  id: string;
  name: string;
  description: string;
  category: string;
  /** Resolution prices ("1k", "2k", "4k"); empty for per-call APIs. */
  pricing: Record<string, string>;
  /** The price of one call, for per-call APIs. */
  pricePerCall: string | null;
  /** `METHOD URL`, path parameters and query as `{name}`. */
  endpoint: string;
  source: CatalogSource;
  /** Who is paid on Solana, and the network. */
  payTo: string;
  network: string;
  /** Who is paid on Base, and the network; null where the service is paid on Solana only. */
  base: { payTo: string; network: string } | null;
};

/** The /v1 client's name for GET /v1/services/:id's answer. */
export type ServiceListing = CatalogService;

/** Where a Bazaar listing was found. */
export type BazaarDiscovery = {
  facilitator: string;
  resource: string;
  lastUpdated: string | null;
  x402Version: 1 | 2;
};

/** A Bazaar listing in the registry, beside the catalog's services: the same fields, and where it was found. */
export type BazaarListing = Omit<CatalogService, 'pricePerCall' | 'source'> & {
  pricePerCall: string;
  source: 'x402-bazaar';
  discovery: BazaarDiscovery;
};

/** A service as a search answers it: a catalog service, or a Bazaar listing (`source: "x402-bazaar"`, with `discovery`). */
export type Service = Omit<CatalogService, 'source'> & {
  source: CatalogSource | 'x402-bazaar';
  discovery?: BazaarDiscovery;
};

/** `stale`: older than 10 minutes, or the last read failed (the last good list is shown); `failed`: no list, the last read failed. */
export type BazaarState = 'off' | 'loading' | 'fresh' | 'stale' | 'failed';

/** Why an item of a Bazaar list is not in the registry. */
export type LeftOutReason = 'invalid' | 'not_http' | 'other_network' | 'not_usdc' | 'not_exact' | 'duplicate' | 'over_limit';

/** Where Bazaar discovery stands (GET /v1/bazaar, and a search answer's `bazaar`). */
export type Bazaar = {
  facilitator: string | null;
  state: BazaarState;
  /** When the list shown was read; null without one. */
  fetchedAt: string | null;
  ageSeconds: number | null;
  /** The last read that failed after that list (or without one). */
  error: { code: ErrorCode; message: string; at: string } | null;
  /** Its listings in the registry (what this Coffer can pay). */
  listed: number;
  /** The items of the list left out, counted by why. */
  leftOut: Record<LeftOutReason, number> | null;
  /** Why nothing, or only the Base rail's offers, can be paid here (sim, a local cluster); else null. */
  note: string | null;
};

/** GET /v1/services/search: the catalog's matches first, the Bazaar's after them; `bazaar` null when discovery is off. */
export type SearchResult = {
  query: string;
  results: Service[];
  total: number;
  totalIsCapped: boolean;
  bazaar: Bazaar | null;
};

/** GET /v1/services?payTo=: the catalog's services paid to an address. */
export type ServicesPaidTo = {
  results: CatalogService[];
};

/** An image model that /generate can buy from, with its price per resolution. */
export type Model = {
  id: string;
  displayName: string;
  provider: string;
  description: string;
  pricing: Record<string, string>;
  enabled: boolean;
};

export type Models = {
  models: Model[];
};
