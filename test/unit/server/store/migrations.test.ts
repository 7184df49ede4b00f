import { openConnection } from '../../../../server/store/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../../../server/store/migrations.js';

describe('migrations', () => {
  it('bring a new database to the newest schema, once', () => {
    const db = openConnection(':memory:');
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    expect(migrate(db)).toBe(newest);
    expect(migrate(db)).toBe(newest);
    expect(db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.length);
  });

  it("is the schema as it stands: the spending totals kept by the payments' own writes, the registry's full-text index", () => {
    const db = openConnection(':memory:');
    migrate(db);
    const named = (type: string) => db.prepare('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name').pluck().all(type);
    expect(named('trigger')).toEqual([
      'budget_spend_insert',
      'budget_spend_update',
      'payments_spend_insert',
      'payments_spend_update',
      'services_fts_delete',
      'services_fts_insert',
      'services_fts_update',
    ]);
    db.prepare('INSERT INTO owners VALUES (?, 0)').run('owner');
    db.prepare(
      "INSERT INTO agents (owner, agent_id, wallet_address, display_name, status, created_at) VALUES ('owner', 'a', 'wallet', 'A', 'active', 0)",
    ).run();
    const payment = (id: string, status: string, amount: number) =>
      db
        .prepare(
          `INSERT INTO transfers (id, kind, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status, created_at)
           VALUES (?, 'payment', 'owner', 'a', 's', 's', 'r', ?, ?, '', ?, ?)`,
        )
        .run(id, amount, id, status, 120_000);
    payment('p1', 'pending', 5);
    payment('p2', 'confirmed', 7);
    db.prepare("UPDATE transfers SET status = 'confirmed' WHERE id = 'p1'").run();
    // Other moves of the agent's wallet are no spending.
    db.prepare(
      "INSERT INTO transfers (id, kind, owner, agent_id, amount, status, created_at) VALUES ('r1', 'return', 'owner', 'a', 100, 'confirmed', 120000)",
    ).run();
    // Each kind reads as a table of its own.
    expect(db.prepare('SELECT id FROM payments ORDER BY id').pluck().all()).toEqual(['p1', 'p2']);
    expect(db.prepare('SELECT direction FROM allocations').pluck().all()).toEqual(['to_treasury']);
    expect(db.prepare('SELECT pending, lifetime_spent, lifetime_payments FROM agent_spend_totals').get()).toEqual({
      pending: 0,
      lifetime_spent: 12,
      lifetime_payments: 2,
    });
    expect(db.prepare('SELECT SUM(amount) FROM agent_spend_buckets WHERE span = 60000').pluck().get()).toBe(12);
  });

  it('schema 2: a confirmed transfer lets go of its signed transaction; a pending one (reconcile sends it) and a failed one keep it', () => {
    const db = openConnection(':memory:');
    // A ledger of schema 1, as the first release left it.
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
    MIGRATIONS[0]!.up(db);
    db.prepare("INSERT INTO schema_migrations VALUES (1, 'schema', 0)").run();
    db.prepare('INSERT INTO owners VALUES (?, 0)').run('owner');
    for (const status of ['pending', 'confirmed', 'failed']) {
      db.prepare(
        `INSERT INTO transfers (id, kind, owner, amount, status, tx_signature, tx_wire, last_valid_block_height, created_at)
         VALUES (?, 'faucet', 'owner', 1, ?, ?, 'wire', '100', 0)`,
      ).run(status, status, `signature-${status}`);
    }
    expect(migrate(db)).toBe(2);
    expect(db.prepare('SELECT status, tx_wire FROM transfers ORDER BY status').all()).toEqual([
      { status: 'confirmed', tx_wire: null },
      { status: 'failed', tx_wire: 'wire' },
      { status: 'pending', tx_wire: 'wire' },
    ]);
  });

  it('refuse a data dir written by a newer Coffer', () => {
    const db = openConnection(':memory:');
    migrate(db);
    db.prepare('INSERT INTO schema_migrations VALUES (999, ?, 0)').run('from the future');
    expect(() => migrate(db)).toThrow(/newer Coffer/);
  });
});
