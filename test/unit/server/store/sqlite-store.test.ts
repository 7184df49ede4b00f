import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openConnection, type SqliteDatabase } from '../../../../server/store/sqlite-driver.js';
import { openDatabase, setDurability, type Durability } from '../../../../server/store/database.js';
import { createSqliteStore } from '../../../../server/store/sqlite-store.js';
import { toFtsQuery } from '../../../../server/store/sqlite/registry.js';

/** One FTS5 term as toFtsQuery must write it: a quoted word, prefix-matched. */
const TERM = /^"[\p{L}\p{N}]+"\*$/u;

/** The quoted words of a query, in order; fails if the query has any other shape. */
function terms(query: string | null): string[] {
  expect(query).not.toBeNull();
  const parts = query!.split(' OR ');
  for (const part of parts) expect(part, query!).toMatch(TERM);
  return parts.map((part) => part.slice(1, -2));
}

describe('toFtsQuery', () => {
  it('quotes a single word and makes it a prefix match', () => {
    expect(toFtsQuery('weather')).toBe('"weather"*');
  });

  it('lowercases words', () => {
    expect(terms(toFtsQuery('Weather API'))).toEqual(['weather', 'api']);
  });

  it('keeps digits and letters of any script', () => {
    expect(terms(toFtsQuery('x402 café 天气 Ünïcode'))).toEqual(['x402', 'café', '天气', 'ünïcode']);
  });

  it('splits on punctuation such as "-" and "."', () => {
    expect(terms(toFtsQuery('demo-weather v1.2'))).toEqual(['demo', 'weather', 'v1', '2']);
  });

  it.each([
    ['double quotes', 'say "hello world"', ['say', 'hello', 'world']],
    ['an unbalanced quote', 'foo"bar', ['foo', 'bar']],
    ['a prefix star', 'weath*', ['weath']],
    ['parentheses', '(image OR video)', ['image', 'or', 'video']],
    ['NEAR groups', 'NEAR(image video, 5)', ['near', 'image', 'video', '5']],
    ['AND / NOT operators', 'image AND NOT video', ['image', 'and', 'not', 'video']],
    ['column filters', 'name:weather {id category}:x', ['name', 'weather', 'id', 'category', 'x']],
    ['initial-token caret and plus', '^start + end', ['start', 'end']],
    ['SQL-ish noise', "'; DROP TABLE services; --", ['drop', 'table', 'services']],
  ])('strips FTS syntax: %s', (_label, input, words) => {
    const query = toFtsQuery(input);
    expect(terms(query)).toEqual(words);
    // Nothing of the input syntax survives outside the quotes.
    const outside = query!.replace(/"[^"]*"\*/g, '').replace(/ OR /g, '');
    expect(outside).toBe('');
  });

  it.each(['', '   ', '***', '"()"', '- : ^ + {} ;', '\t\n', '🙂🚀'])('returns null for %j (no words)', (input) => {
    expect(toFtsQuery(input)).toBeNull();
  });

  it('bounds the number of terms for very long input', () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    const result = terms(toFtsQuery(words.join(' ')));
    expect(result.length).toBeGreaterThan(0);
    expect(result.length).toBeLessThanOrEqual(16);
    expect(result).toEqual(words.slice(0, result.length));
  });

  it('gives null exactly when there is no letter or digit, and a well-formed query otherwise', () => {
    const noisy = fc.string({
      unit: fc.oneof(fc.constantFrom(...'"*()^:+-{}., \t\nANDORNEAR'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
      maxLength: 80,
    });
    fc.assert(
      fc.property(noisy, (input) => {
        const query = toFtsQuery(input);
        if (!/[\p{L}\p{N}]/u.test(input.toLowerCase())) expect(query).toBeNull();
        else terms(query);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('toFtsQuery against a real FTS5 table', () => {
  let db: SqliteDatabase;
  let count: (query: string) => number;

  beforeAll(() => {
    db = openConnection(':memory:');
    // The same columns and tokenizer as services_fts.
    db.exec("CREATE VIRTUAL TABLE services_fts USING fts5 (name, description, category, id, tokenize='porter unicode61')");
    const insert = db.prepare('INSERT INTO services_fts (name, description, category, id) VALUES (?, ?, ?, ?)');
    insert.run('Weather API', 'Hourly forecast for any city', 'data', 'demo-weather');
    insert.run('Image generator', 'Text to image, 4k', 'media', 'demo-image');
    insert.run('Translator', 'Translate text between languages', 'language', 'demo-translate');
    const statement = db.prepare('SELECT COUNT(*) FROM services_fts WHERE services_fts MATCH ?').pluck();
    count = (query) => Number(statement.get(query));
  });
  afterAll(() => db.close());

  it('prefix-matches words', () => {
    expect(count(toFtsQuery('weath')!)).toBe(1);
    expect(count(toFtsQuery('IMAG')!)).toBe(1);
  });

  it('matches any of the words', () => {
    expect(count(toFtsQuery('weather translate')!)).toBe(2);
  });

  it('treats operator words as plain words, not as operators', () => {
    // As an operator, NOT would exclude the weather row; as a word it does not.
    expect(count(toFtsQuery('NOT weather')!)).toBe(1);
    expect(count(toFtsQuery('weather AND nothing')!)).toBe(1);
  });

  it('never produces a query FTS5 rejects', () => {
    const hostile = fc.string({
      unit: fc.oneof(
        fc.constantFrom('"', '*', '(', ')', '^', ':', '+', '-', '{', '}', ' ', 'AND', 'OR', 'NOT', 'NEAR', 'NEAR/3', ','),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      ),
      maxLength: 60,
    });
    fc.assert(
      fc.property(hostile, (input) => {
        const query = toFtsQuery(input);
        if (query !== null) expect(() => count(query)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the listings searched beside the catalog (a TEMP full-text table)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-listings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const RECORDS = [
    { id: 'cafe-finder', name: 'Café Finder', description: 'Coffee near you', category: 'food' },
    { id: 'forecast', name: 'Forecasting', description: 'Weather for a city, and a café guide', category: 'weather' },
    { id: 'tides', name: 'Tide tables', description: 'High and low water; forecasts by port', category: 'weather' },
    { id: 'quotes', name: 'Ticker', description: 'Stock quotes', category: 'finance' },
    { id: 'translate', name: 'Translator', description: 'Translation between languages', category: 'language' },
  ];
  const open = (file: string) => {
    const db = openDatabase(join(dir, file), 'normal');
    return { db, store: createSqliteStore(db) };
  };
  const addServices = (db: SqliteDatabase) => {
    const add = db.prepare(
      `INSERT INTO services (id, name, description, category, pricing, price_per_call, endpoint, source, pay_to, network)
       VALUES (@id, @name, @description, @category, '{}', '0.01', 'GET https://api.example/x', 'x402-marketplace', 'pay-to', 'sim')`,
    );
    for (const record of RECORDS) add.run(record);
  };

  it('answer what the catalog answers for the same records: the same words match (diacritics folded, stems), ranked alike', () => {
    const { db, store } = open('same-rule.db');
    addServices(db);
    store.replaceSearchListings(RECORDS);
    for (const query of [
      'cafe',
      'café',
      'CAFÉ',
      'forecast',
      'forecasting',
      'forecasts',
      'translation',
      'translate',
      'stocks',
      'weather tide',
      'nothing',
    ]) {
      const catalog = store.searchServices(query, 10);
      const listings = store.searchListings(query, 10);
      expect({ ids: listings.ids, total: listings.total }, query).toEqual({ ids: catalog.results.map((s) => s.id), total: catalog.total });
    }
    expect(store.searchListings('cafe', 10).ids).toEqual(['cafe-finder', 'forecast']);
    expect(store.searchListings('forecasting', 10).ids).toEqual(['forecast', 'tides']);
    db.close();
  });

  it('are held by the connection alone: never written to the ledger file, none after it is opened again', () => {
    const { db, store } = open('temp.db');
    store.replaceSearchListings(RECORDS);
    expect(store.searchListings('', 10).total).toBe(RECORDS.length);
    expect(db.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name LIKE 'listings%'").pluck().get()).toBe(0);
    db.close();
    const again = open('temp.db');
    expect(again.store.searchListings('', 10)).toEqual({ ids: [], total: 0, totalIsCapped: false });
    again.db.close();
  });
});

describe('chainDerivedTransaction: a write the chain can make again skips the fsync, and nothing else does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-sync-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let opened = 0;
  const open = (durability: Durability) => {
    const db = openDatabase(join(dir, `coffer-${(opened += 1)}.db`), durability);
    return { db, store: createSqliteStore(db), synchronous: () => db.pragma('synchronous', { simple: true }) as number };
  };
  const [FULL, NORMAL] = [2, 1];

  it('on a connection at FULL: NORMAL inside it, FULL again after it, after a throw too (and the throw writes nothing)', () => {
    const { db, store, synchronous } = open('full');
    expect(store.chainDerivedTransaction(() => (store.setMeta('settled', 'yes'), synchronous()))).toBe(NORMAL);
    expect(synchronous()).toBe(FULL);
    expect(store.getMeta('settled')).toBe('yes');
    expect(() =>
      store.chainDerivedTransaction(() => {
        store.setMeta('lost', 'yes');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(synchronous()).toBe(FULL);
    expect(store.getMeta('lost')).toBeNull();
    // Every other write waits for the disk.
    expect(store.transaction(synchronous)).toBe(FULL);
    db.close();
  });

  it('inside another transaction it is part of that one: as durable, and undone with it', () => {
    const { db, store, synchronous } = open('full');
    expect(() =>
      store.transaction(() => {
        expect(store.chainDerivedTransaction(() => (store.setMeta('inner', 'yes'), synchronous()))).toBe(FULL);
        throw new Error('outer refused');
      }),
    ).toThrow('outer refused');
    expect(store.getMeta('inner')).toBeNull();
    expect(synchronous()).toBe(FULL);
    db.close();
  });

  it('on a connection at NORMAL (the embedded chain) it stays NORMAL', () => {
    const { db, store, synchronous } = open('full');
    setDurability(db, 'normal');
    expect(store.chainDerivedTransaction(synchronous)).toBe(NORMAL);
    expect(synchronous()).toBe(NORMAL);
    db.close();
  });
});
