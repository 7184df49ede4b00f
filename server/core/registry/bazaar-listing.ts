/**
 * What a facilitator's x402 Bazaar discovery list says, read as untrusted input: its answer
 * validated once (zod, below), each item on its own (a bad item is left out and counted, never the
 * whole list), every string and list capped; then each item mapped to a registry entry Coffer can
 * pay (`exact`, on this Coffer's network, in its USDC), or left out with the reason. Pure: no I/O.
 *
 * The answer's shape is the official one (`@x402/extensions/bazaar`'s `DiscoveryResourcesResponse`):
 * `{x402Version, items: [{resource, type, x402Version, accepts, lastUpdated, description?, mimeType?,
 * serviceName?, tags?, extensions?}], pagination: {limit, offset, total}}`; facilitators built from
 * the x402 repository's examples also send `discoveryInfo` (the seller's declaration) and `metadata`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CofferError } from '../../wire/errors.js';
import type { BazaarListing, LeftOutReason } from '../../wire/answers/registry.js';
import { formatUsdc, MAX_AMOUNT_MICRO } from '../../wire/money.js';
import { checksummedEvmAddress } from '../../wire/rails.js';
import { isPayableOn, isUsdcOn } from '../payments/x402-payable.js';
import type { X402Names, X402Requirement } from '../ports/x402.js';

/** Items kept from one list at most (the rest counted as `over_limit`). */
export const MAX_BAZAAR_ITEMS = 1_000;
/** Offers read per item at most: an item offering more is refused as a whole. */
const MAX_ACCEPTS = 20;
/** What the registry shows of a description, and a name. */
const DESCRIPTION_CHARS = 500;
const NAME_CHARS = 64;
/** An EVM token's EIP-712 name or version, kept (USDC's are "USD Coin" and "2"). */
const TOKEN_CHARS = 64;
/** Tags kept per item (as the bazaar's own sanitizer keeps them: 5, of at most 32 characters). */
const MAX_TAGS = 5;
const TAG_CHARS = 32;
/** Query parameters named in an endpoint at most. */
const MAX_QUERY_PARAMS = 10;

export type { LeftOutReason };
export type LeftOut = Record<LeftOutReason, number>;
export const noneLeftOut = (): LeftOut => ({
  invalid: 0,
  not_http: 0,
  other_network: 0,
  not_usdc: 0,
  not_exact: 0,
  duplicate: 0,
  over_limit: 0,
});

const digits = z.string().regex(/^\d{1,78}$/);
/** An amount as a purchase reads one: a decimal with no leading zero. */
const CANONICAL_AMOUNT = /^(0|[1-9]\d*)$/;
const shortText = (max: number) => z.string().max(max);

/** One offer of an item (a PaymentRequirements of x402 v2, or v1's with maxAmountRequired), only what Coffer reads. */
const offerSchema = z.object({
  scheme: shortText(64),
  network: shortText(128),
  amount: digits.optional(),
  maxAmountRequired: digits.optional(),
  asset: shortText(128).optional(),
  payTo: shortText(128).optional(),
  description: shortText(10_000).optional(),
  maxTimeoutSeconds: z.unknown().optional(),
  // x402 lets `extra` be null (v1 offers often say so).
  extra: z.record(z.string(), z.unknown()).nullish(),
});

/** The seller's declaration (the bazaar extension's `info`), only what names how to call it. */
const declarationSchema = z.object({
  input: z.object({
    type: shortText(16),
    method: shortText(16).optional(),
    toolName: shortText(200).optional(),
    queryParams: z.record(z.string(), z.unknown()).optional(),
  }),
});
const bazaarExtensionSchema = z.object({ info: declarationSchema, routeTemplate: shortText(300).optional() });

const isHttpUrl = (text: string): boolean => {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
};

/** One item of the list, validated; what Coffer keeps of it (also what it stores of the last good list). */
export const discoveredItemSchema = z.object({
  resource: shortText(2048),
  type: shortText(32),
  x402Version: z.union([z.literal(1), z.literal(2)]),
  accepts: z.array(offerSchema).min(1).max(MAX_ACCEPTS),
  lastUpdated: shortText(64).optional(),
  description: shortText(10_000).optional(),
  serviceName: shortText(200).optional(),
  tags: z.array(shortText(200)).max(50).optional(),
  routeTemplate: shortText(300).optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
  discoveryInfo: z.unknown().optional(),
});

/** An item as Coffer keeps it: plain, capped, cleaned. */
export interface DiscoveredItem {
  resource: string;
  type: string;
  x402Version: 1 | 2;
  method: string | null;
  queryParams: string[];
  routeTemplate: string | null;
  description: string;
  serviceName: string | null;
  tags: string[];
  lastUpdated: string | null;
  accepts: {
    scheme: string;
    network: string;
    amount: string | null;
    asset: string | null;
    payTo: string | null;
    /** `extra.assetTransferMethod` where the offer names one (Permit2 on an EVM chain); absent in a list stored before it was kept. */
    transferMethod?: string | null;
    /** The EIP-712 name and version the offer names its token by (`extra.name`, `extra.version`); null where it names none. Absent in a list stored before it was kept, as are the two below. */
    token?: { name: string; version: string } | null;
    /** `maxTimeoutSeconds` where it is a whole number. */
    maxTimeoutSeconds?: number | null;
    /**
     * Why Coffer's x402 buyer would not sign it (X402Buyer.signingRefusal: on Base a token named
     * otherwise than the chain's USDC, no time given), asked as the list is read; null where it would,
     * or could not tell then.
     */
    refused?: string | null;
  }[];
}

/** The same, as stored with the last good list and read back at start (checked again: a stored list is input too). */
export const storedItemSchema: z.ZodType<DiscoveredItem> = z.object({
  resource: shortText(2048),
  type: shortText(32),
  x402Version: z.union([z.literal(1), z.literal(2)]),
  method: shortText(16).nullable(),
  queryParams: z.array(shortText(40)).max(MAX_QUERY_PARAMS),
  routeTemplate: shortText(300).nullable(),
  description: shortText(DESCRIPTION_CHARS * 2),
  serviceName: shortText(NAME_CHARS * 2).nullable(),
  tags: z.array(shortText(TAG_CHARS)).max(MAX_TAGS),
  lastUpdated: shortText(64).nullable(),
  accepts: z
    .array(
      z.object({
        scheme: shortText(64),
        network: shortText(128),
        amount: digits.nullable(),
        asset: shortText(128).nullable(),
        payTo: shortText(128).nullable(),
        transferMethod: shortText(64).nullable().optional(),
        token: z
          .object({ name: shortText(TOKEN_CHARS), version: shortText(TOKEN_CHARS) })
          .nullable()
          .optional(),
        maxTimeoutSeconds: z.number().int().nullable().optional(),
        refused: shortText(500).nullable().optional(),
      }),
    )
    .min(1)
    .max(MAX_ACCEPTS),
});

const paginationSchema = z.object({
  limit: z.number().int().min(0).optional(),
  offset: z.number().int().min(0).optional(),
  total: z.number().int().min(0).optional(),
});

/** The answer's envelope; its items are read one by one (readItem). */
const discoveryPageSchema = z.object({
  items: z.array(z.unknown()),
  pagination: paginationSchema.optional().catch(undefined),
});

/** A page of the list: its items unread, and the total the facilitator says it holds (if it says). */
export function readDiscoveryPage(json: unknown): { items: unknown[]; total: number | null } {
  const parsed = discoveryPageSchema.safeParse(json);
  if (!parsed.success) {
    throw new CofferError('bazaar_bad_answer', 'the facilitator answered no discovery list (expected {items: [...], pagination})');
  }
  return { items: parsed.data.items, total: parsed.data.pagination?.total ?? null };
}

/**
 * Text from the list as the owner and agents read it: control, bidirectional and invisible characters
 * (and unpaired surrogates) become spaces, runs of space one, cut to `max` characters.
 */
export function cleanText(text: string, max: number): string {
  const cleaned = text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, ' ')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(cleaned);
  return chars.length <= max ? cleaned : `${chars.slice(0, max - 1).join('')}…`;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
const PARAM_NAME = /^[A-Za-z0-9_.-]{1,40}$/;
/** A route template as the bazaar spells it ("/weather/:city"): a path of safe characters, no traversal. */
const ROUTE_TEMPLATE = /^\/[A-Za-z0-9_/:.\-~]{0,299}$/;

/** The seller's declaration, wherever the facilitator put it (the official `extensions.bazaar`, or `discoveryInfo`). */
function declarationOf(item: z.infer<typeof discoveredItemSchema>) {
  const fromExtension = bazaarExtensionSchema.safeParse(item.extensions?.['bazaar']);
  if (fromExtension.success) return { ...fromExtension.data.info.input, routeTemplate: fromExtension.data.routeTemplate };
  const info = declarationSchema.safeParse(item.discoveryInfo);
  return info.success ? { ...info.data.input, routeTemplate: undefined } : null;
}

/** Reads one item: what Coffer keeps of it, or null when it does not hold to the shape. */
export function readItem(raw: unknown): DiscoveredItem | null {
  const parsed = discoveredItemSchema.safeParse(raw);
  if (!parsed.success || !isHttpUrl(parsed.data.resource)) return null;
  const item = parsed.data;
  const declared = declarationOf(item);
  const method = (declared?.method ?? '').toUpperCase();
  const template = item.routeTemplate ?? declared?.routeTemplate;
  const firstDescription = item.description ?? item.accepts.find((offer) => offer.description !== undefined)?.description ?? '';
  const updated = item.lastUpdated === undefined ? NaN : Date.parse(item.lastUpdated);
  return {
    resource: item.resource,
    type: item.type,
    x402Version: item.x402Version,
    method: METHODS.has(method) ? method : null,
    queryParams: Object.keys(declared?.queryParams ?? {})
      .filter((name) => PARAM_NAME.test(name))
      .slice(0, MAX_QUERY_PARAMS),
    routeTemplate: template !== undefined && ROUTE_TEMPLATE.test(template) && !template.includes('..') ? template : null,
    description: cleanText(firstDescription, DESCRIPTION_CHARS),
    serviceName: item.serviceName === undefined ? null : cleanText(item.serviceName, NAME_CHARS) || null,
    tags: (item.tags ?? [])
      .map((tag) => cleanText(tag, TAG_CHARS))
      .filter((tag) => tag !== '')
      .slice(0, MAX_TAGS),
    lastUpdated: Number.isNaN(updated) ? null : new Date(updated).toISOString(),
    accepts: item.accepts.map((offer) => ({
      scheme: offer.scheme,
      network: offer.network,
      amount: (item.x402Version === 1 ? offer.maxAmountRequired : offer.amount) ?? null,
      asset: offer.asset ?? null,
      payTo: offer.payTo ?? null,
      transferMethod: transferMethodOf(offer.extra),
      token: tokenOf(offer.extra),
      maxTimeoutSeconds: Number.isSafeInteger(offer.maxTimeoutSeconds) ? (offer.maxTimeoutSeconds as number) : null,
    })),
  };
}

/** The EIP-712 name and version an offer names its token by (`extra.name`, `extra.version`), as strings, kept short; null where it names none. */
function tokenOf(extra: Record<string, unknown> | null | undefined): { name: string; version: string } | null {
  const { name, version } = extra ?? {};
  if (typeof name !== 'string' || typeof version !== 'string') return null;
  return { name: name.slice(0, TOKEN_CHARS), version: version.slice(0, TOKEN_CHARS) };
}

/**
 * A listed offer as the x402 buyer judges a purchase's requirement (its signingRefusal): what the
 * list kept of it, so the listing says payable only where a purchase on the same terms would sign.
 */
export function requirementOf(offer: DiscoveredItem['accepts'][number]): X402Requirement {
  return {
    scheme: offer.scheme,
    network: offer.network,
    amount: offer.amount !== null && CANONICAL_AMOUNT.test(offer.amount) ? BigInt(offer.amount) : -1n,
    asset: offer.asset ?? '',
    payTo: offer.payTo ?? '',
    feePayer: null,
    maxTimeoutSeconds: offer.maxTimeoutSeconds ?? null,
    extra: {
      ...(offer.token == null ? {} : offer.token),
      ...(offer.transferMethod == null ? {} : { assetTransferMethod: offer.transferMethod }),
    },
  };
}

/** How an offer says its token moves (`extra.assetTransferMethod`), kept short; null where it does not say. */
function transferMethodOf(extra: Record<string, unknown> | null | undefined): string | null {
  const method = extra?.assetTransferMethod;
  if (method === undefined) return null;
  return typeof method === 'string' ? method.slice(0, 64) : 'unreadable';
}

/** Where this Coffer pays x402 on one rail: the x402 names of its network, its USDC and the network's own name. */
export interface PayableOn {
  networks: X402Names;
  usdc: string;
  network: string;
}

/** Where this Coffer pays x402, by rail (null: not on that rail, as Solana on sim), and its Solana network's name. */
export interface PayableHere {
  sol: PayableOn | null;
  base: PayableOn | null;
  network: string;
}

/** A Bazaar listing in the registry, beside the catalog's services (the same fields, and where it was found). */
export type BazaarEntry = BazaarListing;

/** An item's endpoint as the registry spells them: `METHOD URL`, its path parameters and query as `{name}`. */
function endpointOf(item: DiscoveredItem): string {
  const url = new URL(item.resource);
  const path = item.routeTemplate === null ? url.pathname : item.routeTemplate.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const query = item.queryParams.map((name) => `${name}={${name}}`).join('&');
  return `${item.method ?? 'GET'} ${url.origin}${path}${query === '' ? '' : `?${query}`}`;
}

/** A stable id: the host (readable) and a hash of what is called (a URL may be long, and ids travel in paths). */
function idOf(item: DiscoveredItem, endpoint: string): string {
  const hash = createHash('sha256').update(endpoint).digest('hex').slice(0, 10);
  return `bazaar:${new URL(item.resource).host}:${hash}`;
}

/**
 * An item as a registry entry, or why it is left out: not an HTTP API (an MCP tool: fetch_paid calls
 * URLs), or no offer Coffer can pay (the closest reason: another network, another asset on this one,
 * another scheme). Of the payable offers the cheapest on Solana, else on Base, gives the listing its
 * price, `payTo` and `network`. A listing is for finding: the rail a purchase pays on is chosen when
 * it is made (the owner's preferred rail, else the one with the balance), at the price the seller's
 * 402 then names for it, under the agent's policy.
 */
export function mapItem(item: DiscoveredItem, here: PayableHere, facilitator: string): BazaarEntry | LeftOutReason {
  if (item.type !== 'http') return 'not_http';
  let onNetwork = 0;
  let inUsdc = 0;
  let exact = 0;
  const payable = (['sol', 'base'] as const).map((rail) => {
    const on = here[rail];
    const network = on === null ? null : item.x402Version === 1 ? on.networks.v1 : on.networks.v2;
    if (on === null || network === null) return undefined;
    const offers = item.accepts.filter((offer) => offer.network === network);
    onNetwork += offers.length;
    const usdc = offers.filter((offer) => isUsdcOn(rail, on.usdc, offer.asset));
    inUsdc += usdc.length;
    exact += usdc.filter((offer) => offer.scheme === 'exact').length;
    // What a purchase would pay (the cheapest payable: x402-entry.ts), at a price the registry can list.
    const payableHere = usdc.filter((offer) => {
      // In one spelling only (no leading zero), as a purchase reads it (server/x402/buyer/offer-terms.ts).
      const amount = offer.amount === null || !CANONICAL_AMOUNT.test(offer.amount) ? null : BigInt(offer.amount);
      const terms = { ...offer, amount, transferMethod: offer.transferMethod ?? undefined };
      // Not one the buyer would refuse to sign (asked as the list was read).
      return isPayableOn(rail, { network, usdc: on.usdc }, terms) && amount! <= MAX_AMOUNT_MICRO && !offer.refused;
    });
    return payableHere.reduce<(typeof payableHere)[number] | undefined>(
      (cheapest, offer) => (cheapest === undefined || BigInt(offer.amount!) < BigInt(cheapest.amount!) ? offer : cheapest),
      undefined,
    );
  });
  const [onSol, onBase] = payable;
  const first = onSol ?? onBase;
  if (onNetwork === 0) return 'other_network';
  if (inUsdc === 0) return 'not_usdc';
  if (first === undefined) return exact > 0 ? 'invalid' : 'not_exact';
  const endpoint = endpointOf(item);
  const url = new URL(item.resource);
  const base =
    onBase === undefined || here.base === null ? null : { payTo: checksummedEvmAddress(onBase.payTo!), network: here.base.network };
  return {
    id: idOf(item, endpoint),
    name: item.serviceName ?? cleanText(`${url.host}${url.pathname}`, NAME_CHARS),
    description: item.description,
    category: item.tags.length > 0 ? item.tags.join(', ') : 'x402 api',
    pricing: {},
    // The cheapest payable offer's price (Solana's where both are payable; a purchase may pay on Base).
    pricePerCall: formatUsdc(BigInt(first.amount!)),
    endpoint,
    source: 'x402-bazaar',
    // Where it is paid: on Solana where it can be, else its Base account (then `base` says the same).
    payTo: onSol?.payTo ?? base!.payTo,
    network: onSol !== undefined ? here.network : here.base!.network,
    base,
    discovery: { facilitator, resource: item.resource, lastUpdated: item.lastUpdated, x402Version: item.x402Version },
  };
}

/** The registry's view of a list: its entries (first of each id kept) and what was left out, by reason. */
export function mapItems(
  items: DiscoveredItem[],
  here: PayableHere,
  facilitator: string,
  counted: { invalid: number; overLimit: number; duplicate: number },
): { entries: BazaarEntry[]; leftOut: LeftOut } {
  const leftOut = noneLeftOut();
  leftOut.invalid = counted.invalid;
  leftOut.over_limit = counted.overLimit;
  leftOut.duplicate = counted.duplicate;
  const entries: BazaarEntry[] = [];
  const ids = new Set<string>();
  for (const item of items) {
    const mapped = mapItem(item, here, facilitator);
    if (typeof mapped === 'string') leftOut[mapped] += 1;
    else if (ids.has(mapped.id)) leftOut.duplicate += 1;
    else {
      ids.add(mapped.id);
      entries.push(mapped);
    }
  }
  return { entries, leftOut };
}
