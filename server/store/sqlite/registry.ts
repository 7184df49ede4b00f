/** SQLite adapter of the registry port: full-text service search (FTS5) and the image models. */
import type { ModelRecord, RegistryStore, ServiceRecord } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../database.js';
import { allRows, oneRow, optionalText, text, type Row } from './rows.js';

/** How many matches a search ranks, and counts, at most. */
const SEARCH_CANDIDATES = 500;
export const SEARCH_COUNT_CAP = 1_000;
const countedTotal = (counted: number) =>
  counted > SEARCH_COUNT_CAP ? { total: SEARCH_COUNT_CAP, totalIsCapped: true } : { total: counted, totalIsCapped: false };

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

export function createRegistryStore(db: SqliteDatabase): RegistryStore {
  const stmts = {
    // Ranked among the first SEARCH_CANDIDATES matches (in registry order: the shipped catalog first),
    // so a query matching most of a large registry costs no more than one matching a few hundred.
    searchServices: db.prepare(
      `SELECT s.* FROM (SELECT rowid, bm25(services_fts, 10.0, 3.0, 2.0, 5.0) AS score FROM services_fts
         WHERE services_fts MATCH ? LIMIT ${SEARCH_CANDIDATES}) AS c
       JOIN services s ON s.rowid = c.rowid ORDER BY c.score, s.id LIMIT ?`,
    ),
    countServices: db
      .prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM services_fts WHERE services_fts MATCH ? LIMIT ${SEARCH_COUNT_CAP + 1})`)
      .pluck(),
    allServices: db.prepare('SELECT * FROM services ORDER BY source, name LIMIT ?'),
    countAllServices: db.prepare('SELECT COUNT(*) FROM services').pluck(),
    getService: db.prepare('SELECT * FROM services WHERE id = ?'),
    servicesPaidTo: db.prepare('SELECT * FROM services WHERE pay_to = ? ORDER BY id'),
    listModels: db.prepare('SELECT * FROM models WHERE enabled = 1 ORDER BY provider, id'),
    getModel: db.prepare('SELECT * FROM models WHERE id = ?'),
  };
  return {
    searchServices: (query, limit) => {
      const fts = toFtsQuery(query);
      if (fts === null) {
        return {
          results: allRows(stmts.allServices, toService, limit),
          total: Number(stmts.countAllServices.get()),
          totalIsCapped: false,
        };
      }
      return {
        results: allRows(stmts.searchServices, toService, fts, limit),
        ...countedTotal(Number(stmts.countServices.get(fts))),
      };
    },
    getService: (id) => oneRow(stmts.getService, toService, id),
    servicesPaidTo: (payTo) => allRows(stmts.servicesPaidTo, toService, payTo),
    listModels: () => allRows(stmts.listModels, toModel),
    getModel: (id) => oneRow(stmts.getModel, toModel, id),
  };
}
