import { openConnection, type SqliteDatabase } from '../../../../server/store/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../../../server/store/migrations.js';

const approvalRow = {
  id: 'apr_1',
  owner: 'owner',
  agent_id: 'agent',
  kind: 'allocate',
  target_agent_id: 'agent',
  request: '{"amount":"1.00"}',
  status: 'pending',
  result: null,
  error: null,
  created_at: 1,
  expires_at: 2,
  decided_at: null,
  delivered_at: null,
};
const insertApproval = (db: SqliteDatabase, row: Record<string, unknown>) =>
  db
    .prepare(
      `INSERT INTO approvals (id, owner, agent_id, kind, target_agent_id, request, status, result, error, created_at, expires_at, decided_at, delivered_at)
       VALUES (@id, @owner, @agent_id, @kind, @target_agent_id, @request, @status, @result, @error, @created_at, @expires_at, @decided_at, @delivered_at)`,
    )
    .run(row);

describe('migrations', () => {
  it('bring a new database to the newest schema, once', () => {
    const db = openConnection(':memory:');
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    expect(migrate(db)).toBe(newest);
    expect(migrate(db)).toBe(newest);
    expect(db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.length);
  });

  it('v5 keeps every approval of a v4 data dir and lets a request be withdrawn', () => {
    const db = openConnection(':memory:');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
    for (const migration of MIGRATIONS.filter((m) => m.version <= 4)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
    }
    insertApproval(db, approvalRow);
    insertApproval(db, { ...approvalRow, id: 'apr_2', status: 'approved', result: '{"ok":true}', decided_at: 3 });
    // v4 does not know the status.
    expect(() => insertApproval(db, { ...approvalRow, id: 'apr_3', status: 'withdrawn' })).toThrow(/CHECK/);

    migrate(db);
    expect(db.prepare('SELECT * FROM approvals ORDER BY id').all()).toEqual([
      approvalRow,
      { ...approvalRow, id: 'apr_2', status: 'approved', result: '{"ok":true}', decided_at: 3 },
    ]);
    insertApproval(db, { ...approvalRow, id: 'apr_3', status: 'withdrawn' });
    expect(() => insertApproval(db, { ...approvalRow, id: 'apr_4', status: 'nonsense' })).toThrow(/CHECK/);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'approvals'").pluck().all();
    expect(indexes).toContain('approvals_by_owner');
  });

  it('v8 keeps every deposit and allocation of a v7 data dir, as confirmed, and lets a faucet mint wait unsigned', () => {
    const db = openConnection(':memory:');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
    for (const migration of MIGRATIONS.filter((m) => m.version <= 7)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(migration.version, migration.name);
    }
    db.prepare('INSERT INTO owners (address, created_at) VALUES (?, ?)').run('owner', 1);
    db.prepare('INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      'dep_1',
      'owner',
      'sig1',
      1000,
      'mint',
      'faucet',
      5,
    );
    db.prepare('INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      'dep_2',
      'owner',
      'sig2',
      7,
      'someone',
      'chain',
      6,
    );
    // v7 cannot hold a deposit without its signature.
    expect(() =>
      db
        .prepare(
          "INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, created_at) VALUES ('d', 'owner', NULL, 1, 'm', 'faucet', 7)",
        )
        .run(),
    ).toThrow(/NOT NULL/);

    migrate(db);
    expect(db.prepare('SELECT id, tx_signature, amount, source, status, created_at, settled_at FROM deposits ORDER BY id').all()).toEqual([
      { id: 'dep_1', tx_signature: 'sig1', amount: 1000, source: 'faucet', status: 'confirmed', created_at: 5, settled_at: 5 },
      { id: 'dep_2', tx_signature: 'sig2', amount: 7, source: 'chain', status: 'confirmed', created_at: 6, settled_at: 6 },
    ]);
    db.prepare(
      "INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, status, created_at) VALUES ('dep_3', 'owner', NULL, 1, 'm', 'faucet', 'pending', 7)",
    ).run();
    expect(() =>
      db
        .prepare(
          "INSERT INTO deposits (id, owner, tx_signature, amount, from_address, source, status, created_at) VALUES ('dep_4', 'owner', 'sig1', 1, 'm', 'faucet', 'confirmed', 8)",
        )
        .run(),
    ).toThrow(/UNIQUE/);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deposits'").pluck().all()).toEqual(
      expect.arrayContaining(['deposits_by_owner', 'deposits_by_idempotency_key']),
    );
    expect(db.prepare("SELECT name FROM pragma_table_info('allocations')").pluck().all()).toEqual(
      expect.arrayContaining(['idempotency_key', 'request_hash']),
    );
  });

  it('refuse a data dir written by a newer Coffer', () => {
    const db = openConnection(':memory:');
    migrate(db);
    db.prepare('INSERT INTO schema_migrations VALUES (999, ?, 0)').run('from the future');
    expect(() => migrate(db)).toThrow(/newer Coffer/);
  });
});
