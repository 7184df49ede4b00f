import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { SqliteDatabase } from './database.js';
import { ADDRESS_PATTERN, amountSchema } from '../core/schemas.js';

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
      payTo: z.string().regex(ADDRESS_PATTERN),
      network: z.string().min(1),
    }),
  ),
});
export type Catalog = z.infer<typeof catalogSchema>;

export const DEFAULT_CATALOG_FILE = new URL('../data/catalog.json', import.meta.url);

export function readCatalog(file: string | URL = DEFAULT_CATALOG_FILE): Catalog {
  const parsed = catalogSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`the registry catalog ${String(file)} is malformed at ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Replaces the registry tables with the catalog's content (the shipped file is the source of truth). */
export function loadCatalog(db: SqliteDatabase, catalog: Catalog): void {
  db.transaction(() => {
    db.exec('DELETE FROM services; DELETE FROM models;');
    const insertService = db.prepare(
      `INSERT INTO services (id, name, description, category, pricing, price_per_call, endpoint, source, pay_to, network)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const s of catalog.services) {
      insertService.run(s.id, s.name, s.description, s.category, JSON.stringify(s.pricing), s.pricePerCall, s.endpoint, s.source, s.payTo, s.network);
    }
    const insertModel = db.prepare(
      'INSERT INTO models (id, display_name, provider, description, pricing, enabled) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const m of catalog.models) {
      insertModel.run(m.id, m.displayName, m.provider, m.description, JSON.stringify(m.pricing), m.enabled ? 1 : 0);
    }
    db.exec("INSERT INTO services_fts (services_fts) VALUES ('rebuild')");
  }).immediate();
}
