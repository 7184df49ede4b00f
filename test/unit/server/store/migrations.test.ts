import { openConnection } from '../../../../server/store/sqlite-driver.js';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../../../server/store/migrations.js';
import { signatureIs } from '../../../../server/store/sqlite/transfers.js';

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
      'payments_pending_base_insert',
      'payments_pending_base_update',
      'payments_spend_insert',
      'payments_spend_update',
      'services_fts_delete',
      'services_fts_insert',
      'services_fts_update',
      'transfers_confirmed_wire',
      'transfers_signature_once',
      'transfers_signature_once_update',
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
    MIGRATIONS[1]!.up(db);
    expect(db.prepare('SELECT status, tx_wire FROM transfers ORDER BY status').all()).toEqual([
      { status: 'confirmed', tx_wire: null },
      { status: 'failed', tx_wire: 'wire' },
      { status: 'pending', tx_wire: 'wire' },
    ]);
  });

  it('schema 3: every transfer copied with its rowid, its signed transaction beside it unless confirmed, the views and references as they were', () => {
    const db = openConnection(':memory:');
    db.pragma('foreign_keys = ON');
    // A ledger of schema 2.
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
    MIGRATIONS[0]!.up(db);
    MIGRATIONS[1]!.up(db);
    db.prepare("INSERT INTO schema_migrations VALUES (1, 'schema', 0), (2, 'small ledger', 0)").run();
    db.prepare('INSERT INTO owners VALUES (?, 0)').run('owner');
    db.prepare(
      "INSERT INTO agents (owner, agent_id, wallet_address, display_name, status, created_at) VALUES ('owner', 'a', 'wallet', 'A', 'active', 0)",
    ).run();
    const payment = db.prepare(
      `INSERT INTO transfers (id, kind, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status,
         tx_signature, tx_wire, last_valid_block_height, created_at)
       VALUES (?, 'payment', 'owner', 'a', 's', 's', 'r', 5, ?, '', ?, ?, ?, '100', ?)`,
    );
    payment.run('p-pending', 'p-pending', 'pending', 'sig-pending', 'wire-pending', 3);
    payment.run('p-confirmed', 'p-confirmed', 'confirmed', 'sig-confirmed', null, 1);
    payment.run('p-failed', 'p-failed', 'failed', 'sig-failed', 'wire-failed', 2);
    payment.run('p-held', 'p-held', 'held', null, null, 4);
    db.prepare(
      `INSERT INTO transfers (id, kind, owner, agent_id, amount, status, tx_signature, tx_wire, last_valid_block_height, created_at, payment_id)
       VALUES ('r1', 'refund', 'owner', 'a', 5, 'pending', 'sig-refund', 'wire-refund', '100', 5, 'p-confirmed')`,
    ).run();
    db.prepare(
      `INSERT INTO generation_tasks (id, owner, agent_id, model_id, resolution, prompt, status, estimated_cost, payment_id, created_at, updated_at)
       VALUES ('t1', 'owner', 'a', 'm', '1K', 'a cat', 'failed', 5, 'p-confirmed', 0, 0)`,
    ).run();
    db.prepare(
      `INSERT INTO approvals (id, owner, agent_id, kind, target_agent_id, request, payment_id, status, created_at, expires_at)
       VALUES ('ap1', 'owner', 'a', 'payment', 'a', '{}', 'p-held', 'pending', 0, 1)`,
    ).run();
    // Deleted and written again, so that rowid order is not insertion order of ids.
    db.prepare("DELETE FROM transfers WHERE id = 'p-failed'").run();
    payment.run('p-failed', 'p-failed', 'failed', 'sig-failed', 'wire-failed', 2);
    const views = () =>
      ['payments', 'allocations', 'deposits', 'refunds'].map((view) => db.prepare(`SELECT * FROM ${view} ORDER BY id`).all());
    const rowids = () => db.prepare('SELECT rowid, id FROM transfers ORDER BY rowid').all();
    const objects = () =>
      db.prepare("SELECT type, name FROM sqlite_master WHERE tbl_name = 'transfers' ORDER BY name").all() as { name: string }[];
    const before = { views: views(), rowids: rowids(), objects: objects().map((row) => row.name) };

    expect(migrate(db)).toBe(MIGRATIONS.at(-1)!.version);
    // Schema 7 adds each row's rail: every row written before is on Solana.
    const withoutRail = views().map((rows) =>
      rows.map((row) => {
        const { rail, ...rest } = row as { rail: string };
        expect(rail).toBe('sol');
        return rest;
      }),
    );
    expect(withoutRail).toEqual(before.views);
    expect(rowids()).toEqual(before.rowids);
    expect(db.prepare('SELECT id, wire FROM transfer_wires ORDER BY id').all()).toEqual([
      { id: 'p-failed', wire: 'wire-failed' },
      { id: 'p-pending', wire: 'wire-pending' },
      { id: 'r1', wire: 'wire-refund' },
    ]);
    expect(db.prepare("SELECT name FROM pragma_table_info('transfers') WHERE name = 'tx_wire'").all()).toEqual([]);
    // Every index and trigger made again, the UNIQUE constraint's index given way to the prefix's.
    expect(objects().map((row) => row.name)).toEqual(
      [
        ...before.objects.filter((name) => name !== 'sqlite_autoindex_transfers_2'),
        'payments_held',
        'payments_pending_base_insert',
        'payments_pending_base_update',
        'transfers_by_signature',
        'transfers_confirmed_wire',
        'transfers_signature_once',
        'transfers_signature_once_update',
      ].sort(),
    );
    expect(before.objects).toContain('sqlite_autoindex_transfers_2');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // The references still hold: a referenced transfer cannot go.
    expect(() => db.prepare("DELETE FROM transfers WHERE id = 'p-confirmed'").run()).toThrow(/FOREIGN KEY/);
    // The spending triggers were made again: the pending payment settles into the totals.
    db.prepare("UPDATE transfers SET status = 'confirmed' WHERE id = 'p-pending'").run();
    expect(db.prepare('SELECT pending, lifetime_payments FROM agent_spend_totals').get()).toEqual({ pending: 0, lifetime_payments: 2 });
    // Confirmed, it lets go of its signed transaction; a failed one keeps it.
    expect(db.prepare('SELECT id FROM transfer_wires ORDER BY id').pluck().all()).toEqual(['p-failed', 'r1']);
  });

  it('schema 3: a transaction signature is recorded once, on insert and on update, and found through its prefix index', () => {
    const db = openConnection(':memory:');
    migrate(db);
    db.prepare('INSERT INTO owners VALUES (?, 0)').run('owner');
    const faucet = db.prepare(
      "INSERT INTO transfers (id, kind, owner, amount, status, tx_signature, created_at) VALUES (?, 'faucet', 'owner', 1, 'pending', ?, 0)",
    );
    const signature = '5'.repeat(88);
    // The same first characters, another signature: both recorded.
    const sibling = `${'5'.repeat(87)}6`;
    faucet.run('f1', signature);
    faucet.run('f2', sibling);
    faucet.run('f3', null);
    faucet.run('f4', null);
    expect(() => faucet.run('f5', signature)).toThrow('UNIQUE constraint failed: transfers.tx_signature');
    const land = db.prepare('UPDATE transfers SET tx_signature = ? WHERE id = ?');
    expect(() => land.run(sibling, 'f3')).toThrow('UNIQUE constraint failed: transfers.tx_signature');
    land.run('7'.repeat(88), 'f3');
    // Written again as it is, a row's own signature is no second one.
    land.run(signature, 'f1');
    expect(db.prepare('SELECT id FROM transfers WHERE tx_signature IS NOT NULL ORDER BY id').pluck().all()).toEqual(['f1', 'f2', 'f3']);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT 1 FROM transfers WHERE ${signatureIs('@txSignature')}`)
      .all({ txSignature: signature }) as { detail: string }[];
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/SEARCH transfers USING INDEX transfers_by_signature \(<expr>=\?\)/);
  });

  it('refuse a data dir written by a newer Coffer', () => {
    const db = openConnection(':memory:');
    migrate(db);
    db.prepare('INSERT INTO schema_migrations VALUES (999, ?, 0)').run('from the future');
    expect(() => migrate(db)).toThrow(/newer Coffer/);
  });
});
