/**
 * SQLite adapter of the registry port: full-text search (FTS5) of the catalog's services and of the
 * listings searched beside them (the Bazaar's), by one rule; and the image models.
 */
import type { ModelRecord, RegistryStore, SearchListing, ServiceRecord } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, oneRow, optionalText, text, type Row } from './rows.js';

/** How many matches a search ranks, and counts, at most. */
const SEARCH_CANDIDATES = 500;
export const SEARCH_COUNT_CAP = 1_000;
const countedTotal = (counted: number) =>
  counted > SEARCH_COUNT_CAP ? { total: SEARCH_COUNT_CAP, totalIsCapped: true } : { total: counted, totalIsCapped: false };

/**
 * The columns of both search indexes (the catalog's services_fts, checked when the store opens, and
 * the listings'), in their order, each with its bm25 weight: a match in the name counts most.
 */
const INDEXED_COLUMNS = [
  ['name', 10],
  ['description', 3],
  ['category', 2],
  ['id', 5],
] as const;

function toService(row: Row): ServiceRecord {
  return {
    id: text(row.id),
    name: text(row.name),
    description: text(row.description),
    category: text(row.category),
    pricing: JSON.parse(text(row.pricing)) as Record<string, string>,
    pricePerCall: optionalText(row.price_per_call),
    endpoint: text(row.endpoint),
    source: row.source as ServiceRecord['source'],
    payTo: text(row.pay_to),
    network: text(row.network),
    base: row.base_pay_to === null ? null : { payTo: text(row.base_pay_to), network: text(row.base_network) },
  };
}

function toModel(row: Row): ModelRecord {
  return {
    id: text(row.id),
    displayName: text(row.display_name),
    provider: text(row.provider),
    description: text(row.description),
    pricing: JSON.parse(text(row.pricing)) as Record<string, string>,
    enabled: Number(row.enabled) === 1,
  };
}

/** Turns free text into a safe FTS5 query: every word quoted, prefix-matched, any word may match. */
export function toFtsQuery(query: string): string | null {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return null;
  return words
    .slice(0, 16)
    .map((word) => `"${word}"*`)
    .join(' OR ');
}

/**
 * A ranked search of a full-text index whose rows are read from `rows` (joined by rowid): null for a
 * query with no words. Ranked among the first SEARCH_CANDIDATES matches (in the order written: the
 * shipped catalog first), so a query matching most of a large registry costs no more than one
 * matching a few hundred.
 */
function ftsSearch<T>(db: SqliteDatabase, index: string, rows: string, map: (row: Row) => T) {
  const weights = INDEXED_COLUMNS.map(([, weight]) => weight.toFixed(1)).join(', ');
  const ranked = db.prepare(
    `SELECT r.* FROM (SELECT rowid, bm25(${index}, ${weights}) AS score FROM ${index}
       WHERE ${index} MATCH ? LIMIT ${SEARCH_CANDIDATES}) AS c
     JOIN ${rows} r ON r.rowid = c.rowid ORDER BY c.score, r.id LIMIT ?`,
  );
  const count = db.prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM ${index} WHERE ${index} MATCH ? LIMIT ${SEARCH_COUNT_CAP + 1})`).pluck();
  return (query: string, limit: number) => {
    const fts = toFtsQuery(query);
    if (fts === null) return null;
    return { results: allRows(ranked, map, fts, limit), ...countedTotal(Number(count.get(fts))) };
  };
}

/**
 * The options of the catalog's index as the ledger's schema declares them: its tokenizer, so the
 * listings' words split, fold ("Café" is "cafe") and stem ("forecasting" is "forecast") as the
 * catalog's do, and its prefix indexes (a one-letter query over 1,000 listings about 3 times
 * faster, the list's writing about twice as slow: it is written once per change, searched per
 * request). Read, not restated: whatever a later migration makes of them, both indexes follow. Its
 * columns are checked to be the ones INDEXED_COLUMNS weighs.
 */
function catalogIndexOptions(db: SqliteDatabase): string {
  const columns = (db.prepare("SELECT name FROM pragma_table_info('services_fts')").pluck().all() as string[]).join(', ');
  if (columns !== INDEXED_COLUMNS.map(([column]) => column).join(', ')) {
    throw new Error(`services_fts indexes (${columns}), not the columns the registry's search weighs`);
  }
  const declared = String(db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'services_fts'").pluck().get());
  const option = (name: string) => new RegExp(`\\b${name}\\s*=\\s*'([^']*)'`).exec(declared)?.[1];
  const tokenize = option('tokenize');
  if (tokenize === undefined) throw new Error('services_fts declares no tokenizer');
  const prefix = option('prefix');
  return `tokenize='${tokenize}'${prefix === undefined ? '' : `, prefix='${prefix}'`}`;
}

/**
 * The listings searched beside the catalog, in a TEMP full-text table: this connection's own, never
 * written to coffer.db's file (nothing to migrate, nothing left after a restart; the Bazaar's last
 * good list is kept in meta and given again). Filled when the list changes (at most 1,000 listings),
 * not per search.
 */
function createListingSearch(db: SqliteDatabase) {
  const columns = INDEXED_COLUMNS.map(([column]) => column);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.listings_fts USING fts5 (${columns.join(', ')}, ${catalogIndexOptions(db)})`);
  const clear = db.prepare('DELETE FROM temp.listings_fts');
  const insert = db.prepare(
    `INSERT INTO temp.listings_fts (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
  );
  const all = db.prepare('SELECT id FROM temp.listings_fts ORDER BY name, id LIMIT ?').pluck();
  const countAll = db.prepare('SELECT COUNT(*) FROM temp.listings_fts').pluck();
  const matches = ftsSearch(db, 'listings_fts', 'temp.listings_fts', (row) => text(row.id));
  return {
    replaceSearchListings: db.transaction((listings: SearchListing[]) => {
      clear.run();
      for (const { id, name, description, category } of listings) insert.run({ id, name, description, category });
    }),
    searchListings: (query: string, limit: number) => {
      const found = matches(query, limit);
      if (found === null) return { ids: all.all(limit) as string[], total: Number(countAll.get()), totalIsCapped: false };
      return { ids: found.results, total: found.total, totalIsCapped: found.totalIsCapped };
    },
  };
}

export function createRegistryStore(db: SqliteDatabase): RegistryStore {
  const stmts = {
    allServices: db.prepare('SELECT * FROM services ORDER BY source, name LIMIT ?'),
    countAllServices: db.prepare('SELECT COUNT(*) FROM services').pluck(),
    getService: db.prepare('SELECT * FROM services WHERE id = ?'),
    servicesPaidTo: db.prepare('SELECT * FROM services WHERE ? IN (pay_to, base_pay_to) ORDER BY id'),
    listModels: db.prepare('SELECT * FROM models WHERE enabled = 1 ORDER BY provider, id'),
    getModel: db.prepare('SELECT * FROM models WHERE id = ?'),
  };
  const matchingServices = ftsSearch(db, 'services_fts', 'services', toService);
  return {
    searchServices: (query, limit) =>
      matchingServices(query, limit) ?? {
        results: allRows(stmts.allServices, toService, limit),
        total: Number(stmts.countAllServices.get()),
        totalIsCapped: false,
      },
    ...createListingSearch(db),
    getService: (id) => oneRow(stmts.getService, toService, id),
    servicesPaidTo: (payTo) => allRows(stmts.servicesPaidTo, toService, payTo),
    listModels: () => allRows(stmts.listModels, toModel),
    getModel: (id) => oneRow(stmts.getModel, toModel, id),
  };
}
