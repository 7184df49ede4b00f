import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { SqliteDatabase } from './sqlite-driver.js';
import { packagePath } from '../package/package-files.js';
import { amountSchema } from '../wire/schemas.js';
import { ADDRESS_PATTERN } from '../wire/rails.js';
import { checksummedEvmAddress, isEvmAddress } from '../wire/rails.js';

/** The catalog's name for the owner's treasury as a service's recipient. */
export const TREASURY = 'treasury';

/** An EVM address as the ledger keeps one: its EIP-55 spelling. */
const evmPayToSchema = z
  .string()
  .refine((text) => isEvmAddress(text) && checksummedEvmAddress(text) === text, 'must be an EVM address in its checksum spelling');

const pricingSchema = z.partialRecord(z.enum(['1k', '2k', '4k']), amountSchema);

/** The shipped catalog's shape; a malformed catalog stops the start instead of serving bad prices. */
export const catalogSchema = z.strictObject({
  models: z.array(
    z.strictObject({
      id: z.string().min(1),
      displayName: z.string().min(1),
      provider: z.string().min(1),
      description: z.string(),
      pricing: pricingSchema,
      enabled: z.boolean(),
    }),
  ),
  services: z.array(
    z.strictObject({
      id: z.string().min(1),
      name: z.string().min(1),
      description: z.string(),
      category: z.string().min(1),
      pricing: pricingSchema,
      pricePerCall: amountSchema.nullable(),
      endpoint: z.string().min(1),
      source: z.enum(['svc-native', 'model-registry', 'x402-marketplace']),
      /**
       * Who is paid: an address, or "treasury" for what Coffer itself provides (image generation): the
       * owner's treasury is paid, pays the provider, and can give the money back when the work fails.
       */
      payTo: z.union([z.literal(TREASURY), z.string().regex(ADDRESS_PATTERN)]),
      network: z.string().min(1),
      /**
       * Where the service is paid on Base too, and on which network (the embedded chain's is `sim`):
       * a payment to it on Base names the service, as one on Solana does (its budgets, the price cap).
       */
      base: z.strictObject({ payTo: evmPayToSchema, network: z.string().min(1) }).optional(),
      /**
       * An example listing: no API answers at its endpoint (on the reserved `.example` domain) and
       * its payTo is nobody's wallet. Listed on the embedded chain only, where it costs test USDC to
       * try a policy with; on a real network paying it would burn the money, so it is not listed.
       */
      example: z.boolean().optional(),
    }),
  ),
});

/** The catalog as a network lists it: the example listings only on the embedded chain. */
export const catalogFor = (catalog: Catalog, network: string): Catalog =>
  network === 'sim' ? catalog : { ...catalog, services: catalog.services.filter((service) => service.example !== true) };
export type Catalog = z.infer<typeof catalogSchema>;

export const DEFAULT_CATALOG_FILE = packagePath('server', 'data', 'catalog.json');

export function readCatalog(file: string | URL = DEFAULT_CATALOG_FILE): Catalog {
  const parsed = catalogSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`the registry catalog ${String(file)} is malformed at ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Every address the catalog pays, with "treasury" read as the owner's treasury. */
export const payToAddresses = (catalog: Catalog, treasury: string): string[] =>
  catalog.services.map((s) => (s.payTo === TREASURY ? treasury : s.payTo));

/**
 * Brings the registry tables to the shipped catalog (the source of truth for what Coffer ships), with
 * "treasury" written as this data dir's treasury address. Services Coffer did not ship are left as
 * they are; shipped services the catalog no longer lists are removed. Nothing is written when the
 * catalog and the treasury are those of the last start (the full-text index follows by triggers).
 */
export function loadCatalog(db: SqliteDatabase, catalog: Catalog, treasury: string): void {
  const fingerprint = createHash('sha256').update(JSON.stringify(catalog)).update(treasury).digest('hex');
  const meta = (key: string) => db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  if (meta('catalog.fingerprint') === fingerprint) return;
  const payTo = payToAddresses(catalog, treasury);
  db.transaction(() => {
    // Before this was recorded, every service was the catalog's.
    const shippedBefore = meta('catalog.services');
    const previous =
      shippedBefore === undefined
        ? (db.prepare('SELECT id FROM services').pluck().all() as string[])
        : (JSON.parse(shippedBefore) as string[]);
    const shipped = new Set(catalog.services.map((service) => service.id));
    const remove = db.prepare('DELETE FROM services WHERE id = ?');
    for (const id of previous) if (!shipped.has(id)) remove.run(id);
    const upsertService = db.prepare(
      `INSERT INTO services (id, name, description, category, pricing, price_per_call, endpoint, source, pay_to, network,
         base_pay_to, base_network)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description, category = excluded.category,
         pricing = excluded.pricing, price_per_call = excluded.price_per_call, endpoint = excluded.endpoint, source = excluded.source,
         pay_to = excluded.pay_to, network = excluded.network, base_pay_to = excluded.base_pay_to, base_network = excluded.base_network`,
    );
    catalog.services.forEach((s, i) => {
      upsertService.run(
        s.id,
        s.name,
        s.description,
        s.category,
        JSON.stringify(s.pricing),
        s.pricePerCall,
        s.endpoint,
        s.source,
        payTo[i],
        s.network,
        s.base?.payTo ?? null,
        s.base?.network ?? null,
      );
    });
    db.exec('DELETE FROM models');
    const insertModel = db.prepare(
      'INSERT INTO models (id, display_name, provider, description, pricing, enabled) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const m of catalog.models) {
      insertModel.run(m.id, m.displayName, m.provider, m.description, JSON.stringify(m.pricing), m.enabled ? 1 : 0);
    }
    setMeta.run('catalog.services', JSON.stringify([...shipped]));
    setMeta.run('catalog.fingerprint', fingerprint);
  }).immediate();
}
