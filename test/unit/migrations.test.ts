import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../server/store/migrations.js';

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
const insertApproval = (db: Database.Database, row: Record<string, unknown>) =>
  db
    .prepare(
      `INSERT INTO approvals (id, owner, agent_id, kind, target_agent_id, request, status, result, error, created_at, expires_at, decided_at, delivered_at)
       VALUES (@id, @owner, @agent_id, @kind, @target_agent_id, @request, @status, @result, @error, @created_at, @expires_at, @decided_at, @delivered_at)`,
    )
    .run(row);

describe('migrations', () => {
  it('bring a new database to the newest schema, once', () => {
    const db = new Database(':memory:');
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    expect(migrate(db)).toBe(newest);
    expect(migrate(db)).toBe(newest);
    expect(db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.length);
  });

  it('v5 keeps every approval of a v4 data dir and lets a request be withdrawn', () => {
    const db = new Database(':memory:');
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

  it('refuse a data dir written by a newer Coffer', () => {
    const db = new Database(':memory:');
    migrate(db);
    db.prepare('INSERT INTO schema_migrations VALUES (999, ?, 0)').run('from the future');
    expect(() => migrate(db)).toThrow(/newer Coffer/);
  });
});
