/**
 * Bazaar discovery: the registry lists, beside the shipped catalog, the x402 services a facilitator's
 * discovery endpoint returns (`GET <facilitator>/discovery/resources`), once the owner names that
 * facilitator (off by default: nothing reaches out unasked).
 *
 * The list is cached: read at most once every 10 minutes, when a search wants it (and at once when the
 * owner sets the facilitator or asks for a refresh); a search never waits on the network, except for
 * a first list, and then only within 2 s of that read's start. A read has 10 s in all. A failed read
 * keeps the last good list, marked stale with the failure, and is not tried again for a minute. The
 * last good list is kept in the ledger's meta too, so a restart shows it before the facilitator
 * answers again.
 *
 * What the list says is judged by bazaar-listing.ts. Its listings are searched by the catalog's own
 * rule: the store holds them for search (RegistryStore.replaceSearchListings) from when the list's
 * view is made, so the list is written there once per change and a search is one query of the store.
 *
 * A listing is for finding: it sets no price cap and is no service id a policy or /pay can name; its
 * API is paid as any x402 API (fetch_paid), under the agent's policy, and allowed by its recipient's
 * address.
 */
import { audit, type ContextWith, type EngineState } from '../context.js';
import { actorOf, requireOwner, type Principal } from '../auth.js';
import { CofferError, isCofferError, type ErrorCode } from '../../wire/errors.js';
import type { Bazaar as BazaarStatus, BazaarState } from '../../wire/answers/registry.js';
import { iso } from '../../wire/views.js';
import {
  MAX_BAZAAR_ITEMS,
  mapItems,
  readDiscoveryPage,
  readItem,
  requirementOf,
  storedItemSchema,
  type BazaarEntry,
  type DiscoveredItem,
  type LeftOut,
  type PayableHere,
} from './bazaar-listing.js';
import type { AuditStore, MetaStore, RegistryStore } from '../ports/store.js';
import type { BazaarBody } from '../../wire/schemas.js';
import { z } from 'zod';
import { openBase } from '../rails.js';

/** A list this young is fresh: no search reads it again. */
export const BAZAAR_FRESH_MS = 10 * 60_000;
/** After a failed read, the next try waits this long (a search never hammers a facilitator that is down). */
export const BAZAAR_RETRY_MS = 60_000;
/** One read of the whole list (every page) has this long. */
export const BAZAAR_READ_TIMEOUT_MS = 10_000;
/** The longest a search waits for a first list (later searches answer from the cache at once). */
export const BAZAAR_SEARCH_WAIT_MS = 2_000;
/** How long a read waits for the Base token's name, which judges its Base offers (askSigningRefusals). */
const SIGNING_REFUSALS_WAIT_MS = 3_000;
/** Items asked for per page, pages read at most. */
export const BAZAAR_PAGE_SIZE = 100;
const MAX_PAGES = 10;

const FACILITATOR_KEY = 'bazaar.facilitator';
const LIST_KEY = 'bazaar.list';

/** The last good list: whose, when read, what it held (and what was left out while reading it). */
interface BazaarList {
  facilitator: string;
  fetchedAt: number;
  items: DiscoveredItem[];
  invalid: number;
  overLimit: number;
  duplicate: number;
}

const storedListSchema = z.object({
  facilitator: z.string().max(500),
  fetchedAt: z.number().int().min(0),
  items: z.array(storedItemSchema).max(MAX_BAZAAR_ITEMS),
  invalid: z.number().int().min(0),
  overLimit: z.number().int().min(0),
  duplicate: z.number().int().min(0),
});

/** What the engine holds of the Bazaar while it runs (EngineState.bazaar). */
export interface BazaarCache {
  /** The stored list was read from meta (once per process). */
  loaded: boolean;
  list: BazaarList | null;
  /**
   * The list as this Coffer's registry shows it (derived from `list`; null until asked), its
   * entries by id; the store holds them for search while it is the view.
   */
  view: { entries: BazaarEntry[]; byId: Map<string, BazaarEntry>; leftOut: LeftOut } | null;
  lastFailure: { facilitator: string; at: number; code: ErrorCode; message: string } | null;
  /** The read under way; `started` in real milliseconds (performance.now), for how long searches may still wait for it. */
  reading: { facilitator: string; done: Promise<void>; abort: AbortController; started: number } | null;
  /** Bumped by every read started and every setting: a read that ends after another began changes nothing. */
  generation: number;
}

const newBazaarCache = (): BazaarCache => ({ loaded: false, list: null, view: null, lastFailure: null, reading: null, generation: 0 });

/**
 * Each engine's cache, made when first asked for. Keyed by the engine's in-process state, so two
 * engines in one process (tests, a restart in place) never share one, and the engine's context need
 * not know the registry's types.
 */
const caches = new WeakMap<EngineState, BazaarCache>();

type BazaarContext = ContextWith<MetaStore & AuditStore & RegistryStore>;
type ViewContext = ContextWith<MetaStore & RegistryStore>;

export const bazaarFacilitatorOf = (ctx: ContextWith<MetaStore>): string | null => ctx.store.getMeta(FACILITATOR_KEY);

/** The stored last good list, read once per process (a damaged one is dropped: it is input too). */
function cacheOf(ctx: ContextWith<MetaStore>): BazaarCache {
  let cache = caches.get(ctx.state);
  if (cache === undefined) {
    cache = newBazaarCache();
    caches.set(ctx.state, cache);
  }
  if (!cache.loaded) {
    cache.loaded = true;
    const stored = ctx.store.getMeta(LIST_KEY);
    if (stored !== null) {
      let parsed: ReturnType<typeof storedListSchema.safeParse> | null;
      try {
        parsed = storedListSchema.safeParse(JSON.parse(stored));
      } catch {
        parsed = null;
      }
      if (parsed?.success) cache.list = parsed.data;
      else ctx.log('bazaar: the stored discovery list could not be read; it is dropped and read again');
    }
  }
  return cache;
}

function payableHere(ctx: ContextWith<MetaStore>): PayableHere {
  const names = ctx.x402?.networks ?? { sol: null, base: null };
  const base = openBase(ctx);
  return {
    sol: names.sol === null ? null : { networks: names.sol, usdc: ctx.chain.usdc, network: ctx.chain.network },
    base: names.base === null || base === null ? null : { networks: names.base, usdc: base.usdc, network: base.network },
    network: ctx.chain.network,
  };
}

/**
 * The registry's view of the list in use (the list of the facilitator set now, else none). Made
 * once per list: its entries are then given to the store for search, replacing the last view's (a
 * search reads them only while there is a view).
 */
function viewOf(ctx: ViewContext, cache: BazaarCache, facilitator: string) {
  if (cache.list === null || cache.list.facilitator !== facilitator) return null;
  if (cache.view === null) {
    const { entries, leftOut } = mapItems(cache.list.items, payableHere(ctx), facilitator, cache.list);
    ctx.store.replaceSearchListings(entries.map(({ id, name, description, category }) => ({ id, name, description, category })));
    cache.view = { entries, byId: new Map(entries.map((entry) => [entry.id, entry])), leftOut };
  }
  return cache.view;
}

/**
 * Reads every page (at most MAX_BAZAAR_ITEMS items, MAX_PAGES pages), each item checked on its own. A
 * page that brings nothing new (a facilitator that ignores `offset` answers the first again) ends it.
 */
async function readList(ctx: ContextWith<MetaStore>, facilitator: string, signal: AbortSignal) {
  const reader = ctx.discovery;
  if (reader === undefined) throw new CofferError('bazaar_unreachable', 'this Coffer has no way to read a discovery list');
  const items: DiscoveredItem[] = [];
  const seen = new Set<string>();
  const counted = { invalid: 0, overLimit: 0, duplicate: 0 };
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const { items: raw, total } = readDiscoveryPage(await reader.readPage(facilitator, { limit: BAZAAR_PAGE_SIZE, offset }, signal));
    const fresh: DiscoveredItem[] = [];
    const pageCount = { invalid: 0, overLimit: 0, duplicate: 0 };
    for (const entry of raw) {
      if (items.length + fresh.length >= MAX_BAZAAR_ITEMS) {
        pageCount.overLimit += 1;
        continue;
      }
      const item = readItem(entry);
      const key = item === null ? null : `${item.method ?? ''} ${item.resource}`;
      if (item === null || key === null) pageCount.invalid += 1;
      else if (seen.has(key)) pageCount.duplicate += 1;
      else {
        seen.add(key);
        fresh.push(item);
      }
    }
    // Only items already read: the facilitator answered an earlier page again (it ignores `offset`).
    if (page > 0 && fresh.length === 0 && pageCount.duplicate > 0) break;
    items.push(...fresh);
    counted.invalid += pageCount.invalid;
    counted.overLimit += pageCount.overLimit;
    counted.duplicate += pageCount.duplicate;
    offset += raw.length;
    const unread = total === null ? 0 : Math.max(0, total - offset);
    if (unread === 0 || raw.length === 0) break;
    if (items.length >= MAX_BAZAAR_ITEMS || page === MAX_PAGES - 1) {
      counted.overLimit += unread;
      break;
    }
  }
  await askSigningRefusals(ctx, items, signal);
  return { items, ...counted };
}

/**
 * Each offer on this Coffer's Base network asked of the x402 buyer, which reads the chain's USDC
 * (its EIP-712 name and version): one it would refuse to sign, such as one naming another token, is
 * kept with why, so its listing is not called payable. Asked here, with the list, so that the view
 * is made without I/O. The token's reads are one, shared: where they do not answer within
 * SIGNING_REFUSALS_WAIT_MS (a Base node hung), or before the read's own time is up, the offers go
 * unjudged (as a purchase's buyer that cannot tell) and the list is kept, its Solana listings and all.
 */
async function askSigningRefusals(ctx: ContextWith<MetaStore>, items: DiscoveredItem[], signal: AbortSignal): Promise<void> {
  const buyer = ctx.x402 ?? null;
  const names = buyer?.networks.base ?? null;
  if (buyer === null || names === null) return;
  const offers = items.flatMap((item) => item.accepts.filter((offer) => offer.network === (item.x402Version === 1 ? names.v1 : names.v2)));
  if (offers.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answers = await Promise.race([
    Promise.all(offers.map((offer) => buyer.signingRefusal(requirementOf(offer), 'base'))),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SIGNING_REFUSALS_WAIT_MS))),
    // The read's own time up meanwhile: the facilitator answered, so its list stands, unjudged.
    new Promise<null>((resolve) => {
      if (signal.aborted) resolve(null);
      signal.addEventListener('abort', () => resolve(null), { once: true });
    }),
  ]).finally(() => clearTimeout(timer));
  if (answers === null) return;
  // Kept with the list in the ledger, whose stored form holds 500 characters of it.
  offers.forEach((offer, index) => (offer.refused = answers[index]?.slice(0, 500) ?? null));
}

/** Starts a read of the facilitator's list (one at a time: a read under way for it is joined). */
function startRead(ctx: ContextWith<MetaStore>, facilitator: string): Promise<void> {
  const cache = cacheOf(ctx);
  if (cache.reading !== null && cache.reading.facilitator === facilitator) return cache.reading.done;
  cache.reading?.abort.abort();
  const generation = (cache.generation += 1);
  const abort = new AbortController();
  const timer = setTimeout(
    () =>
      abort.abort(
        new CofferError(
          'bazaar_timeout',
          `the facilitator at ${facilitator} did not answer its discovery list within ${BAZAAR_READ_TIMEOUT_MS / 1000} s`,
        ),
      ),
    BAZAAR_READ_TIMEOUT_MS,
  );
  const done = (async () => {
    try {
      const read = await readList(ctx, facilitator, abort.signal);
      if (generation !== cache.generation) return;
      cache.list = { facilitator, fetchedAt: ctx.clock.now(), ...read };
      cache.view = null;
      cache.lastFailure = null;
      store(ctx, cache.list);
    } catch (error) {
      if (generation !== cache.generation) return;
      const failure = abort.signal.aborted && isCofferError(abort.signal.reason) ? abort.signal.reason : error;
      cache.lastFailure = {
        facilitator,
        at: ctx.clock.now(),
        code: isCofferError(failure) ? failure.code : 'bazaar_unreachable',
        message: isCofferError(failure) ? failure.message : `reading the discovery list of ${facilitator} failed`,
      };
      if (!isCofferError(failure)) ctx.log(`bazaar: reading ${facilitator} failed: ${String(failure)}`);
    } finally {
      clearTimeout(timer);
      if (generation === cache.generation) cache.reading = null;
    }
  })();
  cache.reading = { facilitator, done, abort, started: performance.now() };
  return done;
}

function store(ctx: ContextWith<MetaStore>, list: BazaarList): void {
  try {
    ctx.store.setMeta(LIST_KEY, JSON.stringify(list));
  } catch (error) {
    // The list in memory is good; it is only not kept for the next start (a ledger closing meanwhile).
    ctx.log(`bazaar: the discovery list could not be stored: ${String(error)}`);
  }
}

/** Reads again when the list in use is older than BAZAAR_FRESH_MS (or missing), unless a read failed within BAZAAR_RETRY_MS. */
function readIfDue(ctx: ContextWith<MetaStore>, cache: BazaarCache, facilitator: string): void {
  const now = ctx.clock.now();
  const list = cache.list?.facilitator === facilitator ? cache.list : null;
  const due = list === null || now - list.fetchedAt >= BAZAAR_FRESH_MS;
  const failedLately = cache.lastFailure?.facilitator === facilitator && now - cache.lastFailure.at < BAZAAR_RETRY_MS;
  if (due && !failedLately) void startRead(ctx, facilitator);
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });

/**
 * The Bazaar's listings that match a query (by the catalog's rule and ranking, `limit` at most, all
 * of them counted) and its status: null when no facilitator is set. Starts a read when due; waits
 * for it (at most BAZAAR_SEARCH_WAIT_MS) only when there is no list at all yet.
 */
export async function bazaarForSearch(
  ctx: ViewContext,
  query: string,
  limit: number,
): Promise<{ results: BazaarEntry[]; total: number; totalIsCapped: boolean; status: BazaarStatus } | null> {
  const facilitator = bazaarFacilitatorOf(ctx);
  if (facilitator === null) return null;
  const cache = cacheOf(ctx);
  readIfDue(ctx, cache, facilitator);
  if (viewOf(ctx, cache, facilitator) === null && cache.reading !== null) {
    // Searches wait for a first list only within 2 s of the read's start; after that they answer at once.
    const left = cache.reading.started + BAZAAR_SEARCH_WAIT_MS - performance.now();
    if (left > 0) await Promise.race([cache.reading.done, sleep(left)]);
  }
  const view = viewOf(ctx, cache, facilitator);
  const status = statusOf(ctx, cache, facilitator);
  if (view === null) return { results: [], total: 0, totalIsCapped: false, status };
  const found = ctx.store.searchListings(query, limit);
  const results = found.ids.map((id) => {
    const entry = view.byId.get(id);
    // The store holds this view's entries (viewOf): an id it does not know is a bug, not input.
    if (entry === undefined) throw new Error(`the store's Bazaar listings are not the list in use (${id})`);
    return entry;
  });
  return { results, total: found.total, totalIsCapped: found.totalIsCapped, status };
}

/**
 * Where the Bazaar stands: `off` (no facilitator), `loading` (no list yet, a read under way), `fresh`,
 * `stale` (older than 10 minutes, or the last read failed: the last good list is shown), `failed`
 * (no list, the last read failed).
 */
function statusOf(ctx: ViewContext, cache: BazaarCache, facilitator: string | null): BazaarStatus {
  const now = ctx.clock.now();
  const here = payableHere(ctx);
  const note =
    here.sol !== null
      ? null
      : here.base === null
        ? `this Coffer runs on ${here.network}: x402 is paid on devnet and mainnet only, so no Bazaar offer can be paid here`
        : `this Coffer runs on ${here.network}: x402 is paid on Solana on devnet and mainnet only, and on Base here on ${here.base.networks.v2} (${here.base.network}), so only Bazaar offers there can be paid`;
  if (facilitator === null) {
    return {
      facilitator,
      state: 'off',
      fetchedAt: null,
      ageSeconds: null,
      error: null,
      listed: 0,
      leftOut: null,
      note: null,
    };
  }
  const view = viewOf(ctx, cache, facilitator);
  const list = view === null ? null : cache.list;
  const failure =
    cache.lastFailure?.facilitator === facilitator && (list === null || cache.lastFailure.at >= list.fetchedAt) ? cache.lastFailure : null;
  const state: BazaarState =
    list === null
      ? failure !== null && cache.reading === null
        ? 'failed'
        : 'loading'
      : failure !== null || now - list.fetchedAt >= BAZAAR_FRESH_MS
        ? 'stale'
        : 'fresh';
  return {
    facilitator,
    state,
    fetchedAt: list === null ? null : iso(list.fetchedAt),
    ageSeconds: list === null ? null : Math.max(0, Math.floor((now - list.fetchedAt) / 1000)),
    error: failure === null ? null : { code: failure.code, message: failure.message, at: iso(failure.at) },
    listed: view?.entries.length ?? 0,
    leftOut: view?.leftOut ?? null,
    note,
  };
}

/** GET /v1/bazaar: the facilitator set, and where its list stands. */
export function readBazaar(ctx: BazaarContext, principal: Principal): BazaarStatus {
  requireOwner(principal);
  const facilitator = bazaarFacilitatorOf(ctx);
  const cache = cacheOf(ctx);
  if (facilitator !== null) readIfDue(ctx, cache, facilitator);
  return statusOf(ctx, cache, facilitator);
}

/**
 * Sets the facilitator (null: off, and its list forgotten). A new one is read at once; the answer
 * waits for that read (at most its 10 s) and says what it found, or why it found nothing.
 */
export async function setBazaar(ctx: BazaarContext, principal: Principal, body: BazaarBody): Promise<BazaarStatus> {
  requireOwner(principal);
  const before = bazaarFacilitatorOf(ctx);
  const cache = cacheOf(ctx);
  if (body.facilitator !== before) {
    if (body.facilitator === null) ctx.store.deleteMeta(FACILITATOR_KEY);
    else ctx.store.setMeta(FACILITATOR_KEY, body.facilitator);
    // Another facilitator's list is not this one's: gone from the registry and from the ledger.
    cache.reading?.abort.abort();
    cache.reading = null;
    cache.generation += 1;
    cache.list = null;
    cache.view = null;
    cache.lastFailure = null;
    ctx.store.deleteMeta(LIST_KEY);
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      action: 'registry.bazaar',
      detail: { before, after: body.facilitator },
    });
  }
  if (body.facilitator !== null && (cache.list === null || cache.list.facilitator !== body.facilitator)) {
    await startRead(ctx, body.facilitator);
  }
  return statusOf(ctx, cache, body.facilitator);
}

/** POST /v1/bazaar/refresh: reads the list now; a failure is refused with its code (the last good list stays). */
export async function refreshBazaar(ctx: BazaarContext, principal: Principal): Promise<BazaarStatus> {
  requireOwner(principal);
  const facilitator = bazaarFacilitatorOf(ctx);
  if (facilitator === null) {
    throw new CofferError(
      'bazaar_off',
      'Bazaar discovery is off: set a facilitator first (POST /v1/bazaar, or coffer settings --bazaar URL)',
    );
  }
  const cache = cacheOf(ctx);
  const started = ctx.clock.now();
  await startRead(ctx, facilitator);
  const failure = cache.lastFailure;
  if (failure !== null && failure.facilitator === facilitator && failure.at >= started) {
    throw new CofferError(failure.code, `${failure.message}; the registry keeps the last good list`);
  }
  return statusOf(ctx, cache, facilitator);
}

/** Stops a read under way (the data dir closes). */
export function stopBazaar(ctx: ContextWith<MetaStore>): void {
  const cache = caches.get(ctx.state);
  if (cache === undefined) return;
  cache.generation += 1;
  cache.reading?.abort.abort();
  cache.reading = null;
}
