/**
 * The registry: the paid services and models agents may buy. Read this first. registry.ts (the
 * shipped catalog, searched; a service's listed price caps what is paid to it), bazaar.ts (a
 * facilitator's x402 Bazaar discovery list, read, cached and searched beside the catalog) and
 * bazaar-listing.ts (that list read as untrusted input).
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { BazaarBody } from '../../wire/schemas.js';
import { getService, listModels, searchServices, servicesPaidTo } from './registry.js';
import { readBazaar, refreshBazaar, setBazaar, stopBazaar } from './bazaar.js';

export const registryApp = (ctx: EngineContext) => ({
  searchServices: (query: string, limit?: number) => searchServices(ctx, query, limit),
  listModels: () => listModels(ctx),
  service: (id: string) => getService(ctx, id),
  servicesPaidTo: (payTo: string) => servicesPaidTo(ctx, payTo),
  /** Bazaar discovery: the facilitator whose list the registry shows. */
  bazaar: (p: Principal) => readBazaar(ctx, p),
  setBazaar: (p: Principal, body: BazaarBody) => setBazaar(ctx, p, body),
  refreshBazaar: (p: Principal) => refreshBazaar(ctx, p),
  /** Stops a discovery read under way (the data dir closes). */
  stopBazaar: () => stopBazaar(ctx),
});
