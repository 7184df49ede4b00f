import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../../../server/store/sqlite-driver.js';
import { migrate } from '../../../../server/store/migrations.js';

const FILE = new URL('../../../../server/store/current-schema.sql', import.meta.url);
const REWRITE = 'UPDATE_CURRENT_SCHEMA=1 npx vitest run --project unit test/unit/server/store/current-schema.test.ts';

type Entry = { type: string; name: string; tbl_name: string; sql: string };

/** A new ledger's schema after every migration: each table, then its indexes and triggers, by name. */
function currentSchema(): string {
  const db = openConnection(':memory:');
  migrate(db);
  const entries = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as Entry[];
  db.close();
  // A full-text table's shadow tables are SQLite's own, made with it.
  const virtual = entries.filter((e) => /^CREATE VIRTUAL TABLE/i.test(e.sql)).map((e) => `${e.name}_`);
  const tables = entries.filter((e) => e.type === 'table' && !virtual.some((prefix) => e.name.startsWith(prefix)));
  const on = (table: string, type: string) => entries.filter((e) => e.tbl_name === table && e.type === type);
  // A table rebuilt by a migration keeps the quotes of its rename (`CREATE TABLE "transfers"`).
  const statement = (e: Entry) => `${e.sql.replace(/^CREATE TABLE "(\w+)"/, 'CREATE TABLE $1').replace(/[ \t]+$/gm, '')};`;
  const sections = tables.map((table) =>
    [statement(table), ...on(table.name, 'index').map(statement), ...on(table.name, 'trigger').map(statement)].join('\n\n'),
  );
  const views = entries.filter((e) => e.type === 'view').map(statement);
  return [
    '-- The ledger (coffer.db) as it stands after every migration: what a new data dir holds. Written from a',
    `-- migrated database, never by hand: server/store/migrations.ts changes it, and then \`${REWRITE}\``,
    '-- writes it again. Each table, then its indexes and triggers.',
    '',
    [...sections, ...views].join('\n\n'),
    '',
  ].join('\n');
}

describe('server/store/current-schema.sql', () => {
  it('is the schema a new ledger has after every migration', () => {
    const schema = currentSchema();
    if (process.env.UPDATE_CURRENT_SCHEMA === '1') writeFileSync(FILE, schema);
    let written = '';
    try {
      written = readFileSync(FILE, 'utf8');
    } catch {
      // Missing: compared as empty, which fails below with the command that writes it.
    }
    expect(written, `current-schema.sql is not the migrated schema: run ${REWRITE}`).toBe(schema);
    // What a newcomer looks for is there: the tables of the money and of the rails.
    for (const table of ['transfers', 'agents', 'rail_wallets', 'approvals']) expect(schema).toContain(`CREATE TABLE ${table}`);
  });
});
