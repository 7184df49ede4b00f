import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { fundedAgent, ownerState, UNLISTED_API, type TestCoffer } from '../helpers/coffer.js';
import { pay } from '../helpers/pay.js';
import { acrossRestart } from '../helpers/restart.js';
import { openConnection, type SqliteDatabase } from '../../server/store/sqlite-driver.js';
import { createSimKeys } from '../../server/chain/solana/sim/store.js';
import { decodeSimTransaction, firstSignatureBytes } from '../../server/chain/solana/sim/transaction-codec.js';
import { DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';
import { MIGRATIONS } from '../../server/store/migrations.js';

/**
 * Brings a ledger back to schema 2's shape (before schema 3, migrations/0003-transfers-written-once.ts):
 * each transfer's signed transaction in its own row's tx_wire, its signature under a UNIQUE
 * constraint; the table, its indexes, triggers and views exactly as schema 2 made them (read from
 * a new ledger brought to schema 2). Rowids kept.
 */
function toSchema2(db: SqliteDatabase): void {
  const reference = openConnection(':memory:');
  MIGRATIONS[0]!.up(reference);
  MIGRATIONS[1]!.up(reference);
  const made = (where: string) =>
    reference.prepare(`SELECT sql FROM sqlite_master WHERE ${where} AND sql IS NOT NULL ORDER BY rowid`).pluck().all() as string[];
  const [table] = made("type = 'table' AND name = 'transfers'");
  const indexesAndTriggers = made("tbl_name = 'transfers' AND type IN ('index', 'trigger')");
  const views = made("type = 'view'");
  reference.close();
  // Schema 7's rail and schema 12's log index are not columns of schema 2's table (every row then was on Solana).
  const columns = (
    db.prepare("SELECT name FROM pragma_table_info('transfers') WHERE name NOT IN ('rail', 'transfer_index')").pluck().all() as string[]
  ).join(', ');
  db.pragma('foreign_keys = OFF');
  db.transaction(() => {
    const wires = db.prepare('SELECT id, wire FROM transfer_wires').all() as { id: string; wire: string }[];
    db.exec(`
      DROP VIEW payments; DROP VIEW allocations; DROP VIEW deposits; DROP VIEW refunds;
      DROP TABLE transfer_wires;
      ${table!.replace('CREATE TABLE transfers', 'CREATE TABLE transfers_2')};
      INSERT INTO transfers_2 (rowid, ${columns}) SELECT rowid, ${columns} FROM transfers;
      DROP TABLE transfers;
      ALTER TABLE transfers_2 RENAME TO transfers;
    `);
    const restoreWire = db.prepare('UPDATE transfers SET tx_wire = ? WHERE id = ?');
    for (const { id, wire } of wires) restoreWire.run(wire, id);
    for (const sql of [...indexesAndTriggers, ...views]) db.exec(sql);
    db.exec('DROP INDEX sim_transactions_by_slot');
    // Schemas 5 and 6: the Base rail's embedded chain and accounts, which a ledger of schema 2 had not.
    db.exec("DROP TABLE evm_journal; DROP TABLE rail_wallets; DELETE FROM meta WHERE key LIKE 'evm.%'");
    // Schema 7's pending payments on Base (its triggers went with the table they were on).
    db.exec('ALTER TABLE agent_spend_totals DROP COLUMN pending_base');
    // Schema 8's Base addresses of registry services.
    db.exec('ALTER TABLE services DROP COLUMN base_pay_to; ALTER TABLE services DROP COLUMN base_network');
    // Schema 9's rail of each refusal.
    db.exec('ALTER TABLE refusals DROP COLUMN rail');
    // Schema 10's revoked API keys.
    db.exec('DROP TABLE revoked_api_keys');
    // Schema 14's Idempotency-Key of each agent's deploy.
    db.exec('ALTER TABLE agents DROP COLUMN deploy_key; ALTER TABLE agents DROP COLUMN deploy_request_hash');
    db.exec('DELETE FROM schema_migrations WHERE version >= 3');
  })();
  db.pragma('foreign_keys = ON');
}

/** The embedded chain's tables as schema 1 made them (server/store/migrations/0001-schema.ts). */
const SCHEMA_1_SIM_TABLES = `
  CREATE TABLE sim_transactions (
    signature TEXT PRIMARY KEY, wire TEXT NOT NULL, slot INTEGER NOT NULL, block_time INTEGER NOT NULL,
    error TEXT, seq INTEGER NOT NULL, meta TEXT NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX sim_transactions_by_seq ON sim_transactions (seq);
  CREATE TABLE sim_address_signatures (address TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (address, seq)) STRICT, WITHOUT ROWID;
`;

/**
 * Brings a ledger back to schema 1's shape, as Coffer before schema 2 wrote it: every transaction of
 * the embedded chain as base64 wire text with its metadata as JSON, indexed by address text, and
 * every transfer keeping its signed transaction.
 */
function toSchema1(db: SqliteDatabase): void {
  toSchema2(db);
  const keys = createSimKeys(db);
  const base58 = getBase58Decoder();
  const rows = (
    db.prepare('SELECT * FROM sim_transactions ORDER BY seq').all() as {
      seq: number;
      slot: number;
      block_time: number;
      error: string | null;
      body: Buffer;
    }[]
  ).map((row) => ({ ...row, signature: base58.decode(firstSignatureBytes(row.body)), ...decodeSimTransaction(row.body, keys) }));
  const listed = db.prepare('SELECT k.address, a.seq FROM sim_address_signatures a JOIN sim_keys k ON k.id = a.key').all() as {
    address: string;
    seq: number;
  }[];
  db.transaction(() => {
    db.exec('DROP TABLE sim_transactions; DROP TABLE sim_address_signatures; DROP TABLE sim_keys;');
    db.exec(SCHEMA_1_SIM_TABLES);
    const insert = db.prepare(
      'INSERT INTO sim_transactions (signature, wire, slot, block_time, error, seq, meta) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const restoreWire = db.prepare('UPDATE transfers SET tx_wire = ? WHERE tx_signature = ?');
    for (const row of rows) {
      const wire = row.wire.toString('base64');
      insert.run(row.signature, wire, row.slot, row.block_time, row.error, row.seq, JSON.stringify(row.meta));
      restoreWire.run(wire, row.signature);
    }
    const index = db.prepare('INSERT INTO sim_address_signatures (address, seq) VALUES (?, ?)');
    for (const { address, seq } of listed) index.run(address, seq);
    db.exec('DELETE FROM schema_migrations WHERE version >= 2');
  })();
}

/** What the chain answers over JSON-RPC, as text: the same bytes before and after the upgrade. */
async function rpcAnswers(t: TestCoffer, wallet: string, signatures: string[]) {
  const call = async (method: string, params: unknown[]) =>
    (await fetch(`${t.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then((response) => response.text())) as string;
  const answers = [
    await call('getSignaturesForAddress', [wallet]),
    await call('getSignaturesForAddress', [wallet, { before: signatures[2], limit: 1 }]),
  ];
  for (const signature of signatures) {
    for (const encoding of ['json', 'base64', 'base58']) {
      answers.push(await call('getTransaction', [signature, { encoding, maxSupportedTransactionVersion: 0 }]));
    }
  }
  return answers;
}

describe('a data dir of schema 1, opened by this Coffer', () => {
  it('is upgraded in place: the chain answers /rpc byte for byte as before, the ledger is unchanged, a confirmed payment lets go of its copy of the transaction', async () => {
    await acrossRestart(
      async (t) => {
        const agent = await fundedAgent(t, 'upgraded', '1.00');
        const signatures: string[] = [];
        for (let i = 0; i < 4; i++) {
          const paid = await pay(t, 'upgraded', agent.apiKey, { ...UNLISTED_API, amount: '0.01', description: `before ${i}` });
          expect(paid.status).toBe(200);
          signatures.push(paid.body.txSignature as string);
        }
        const before = { rpc: await rpcAnswers(t, agent.walletAddress, signatures), owner: await ownerState(t) };
        for (const answer of before.rpc) expect(JSON.parse(answer)).toMatchObject({ result: expect.anything() });
        await t.stop();
        const db = openConnection(`${t.dataDir}/coffer.db`);
        toSchema1(db);
        const wires = db.prepare("SELECT COUNT(*) FROM transfers WHERE status = 'confirmed' AND tx_wire IS NOT NULL").pluck().get();
        db.close();
        expect(wires).toBeGreaterThanOrEqual(4);
        return { agent, signatures, before };
      },
      async (t, { agent, signatures, before }) => {
        expect(t.coffer.db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.at(-1)!.version);
        expect(await rpcAnswers(t, agent.walletAddress, signatures)).toEqual(before.rpc);
        expect(await ownerState(t)).toEqual(before.owner);
        const confirmedWires = "SELECT COUNT(*) FROM transfers JOIN transfer_wires USING (id) WHERE status = 'confirmed'";
        expect(t.coffer.db.prepare(confirmedWires).pluck().get()).toBe(0);
        // The chain goes on from where it was: a landed transaction is still refused again, new ones land.
        const paid = await pay(t, 'upgraded', agent.apiKey, { ...UNLISTED_API, amount: '0.01', description: 'after' });
        expect(paid.status).toBe(200);
        const listed = JSON.parse((await rpcAnswers(t, agent.walletAddress, signatures))[0]!) as { result: { signature: string }[] };
        expect(listed.result.map((row) => row.signature).slice(0, 5)).toEqual([paid.body.txSignature, ...[...signatures].reverse()]);
      },
    );
  });
});

/** The ledger as anyone opening coffer.db reads it: every kind's view, in rowid order, with the rowids. */
function ledgerViews(db: SqliteDatabase) {
  return Object.fromEntries(
    ['payments', 'allocations', 'deposits', 'refunds'].map((view) => [
      view,
      db.prepare(`SELECT t.rowid AS at_rowid, v.* FROM ${view} v JOIN transfers t USING (id) ORDER BY t.rowid`).all(),
    ]),
  );
}

describe('a data dir of schema 2, opened by this Coffer', () => {
  it("is upgraded in place: every view of the ledger reads the same, a pending transfer's signed transaction is still there to settle it, /rpc and the API answer as before", async () => {
    await acrossRestart(
      async (t) => {
        // A ledger of schema 2 had no Base rail: the new treasury's test USDC on Base leaves it.
        t.coffer.db.prepare("DELETE FROM transfers WHERE rail = 'base'").run();
        const agent = await fundedAgent(t, 'upgraded', '1.00');
        const signatures: string[] = [];
        for (let i = 0; i < 3; i++) {
          const paid = await pay(
            t,
            'upgraded',
            agent.apiKey,
            { ...UNLISTED_API, amount: '0.01', description: `before ${i}` },
            {
              'Idempotency-Key': `key-${i}`,
            },
          );
          expect(paid.status).toBe(200);
          signatures.push(paid.body.txSignature as string);
        }
        // A payment its policy refused, kept for the owner: before schema 9, without its rail.
        expect((await pay(t, 'upgraded', agent.apiKey, { ...UNLISTED_API, amount: '5.00' })).status).toBe(402);
        // A payment the chain refused, as a Coffer leaves it: failed, keeping its signed transaction.
        const refusedWire = Buffer.from('a signed transaction the chain refused').toString('base64');
        t.coffer.db.transaction(() => {
          t.coffer.db
            .prepare(
              `INSERT INTO transfers (id, kind, owner, agent_id, amount, status, tx_signature, last_valid_block_height, error_code,
                 created_at, settled_at, service_id, service_name, recipient, memo, description, protocol)
               VALUES ('pay_refused', 'payment', ?, 'upgraded', 10000, 'failed', ?, '1000', 'chain_rejected', 1, 2, 'test-api',
                 'test-api', ?, 'pay_refused', 'refused', 'coffer')`,
            )
            .run(t.owner, '4'.repeat(88), UNLISTED_API.recipient);
          t.coffer.db.prepare("INSERT INTO transfer_wires (id, wire) VALUES ('pay_refused', ?)").run(refusedWire);
        })();
        const before = {
          rpc: await rpcAnswers(t, agent.walletAddress, signatures),
          owner: await ownerState(t),
          dashboard: (await t.api('GET', t.withOwner('/v1/dashboard'))).body,
          views: ledgerViews(t.coffer.db),
        };
        expect((before.views.payments as { tx_wire: string | null }[]).map((row) => row.tx_wire)).toEqual([null, null, null, refusedWire]);
        await t.stop();
        const db = openConnection(`${t.dataDir}/coffer.db`);
        toSchema2(db);
        // A payment left pending (as a crash on a cluster leaves one): settled at the start from its own signed transaction.
        const keys = createSimKeys(db);
        const landed = db.prepare('SELECT body FROM sim_transactions ORDER BY seq DESC LIMIT 1').pluck().get() as Buffer;
        const wire = decodeSimTransaction(landed, keys).wire.toString('base64');
        expect(
          db
            .prepare("UPDATE transfers SET status = 'pending', settled_at = NULL, tx_wire = ? WHERE tx_signature = ?")
            .run(wire, signatures[2]).changes,
        ).toBe(1);
        expect(db.prepare("SELECT tx_wire FROM transfers WHERE id = 'pay_refused'").pluck().get()).toBe(refusedWire);
        expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'sqlite_autoindex_transfers_2'").pluck().get()).toBeDefined();
        db.close();
        return { agent, signatures, before, wire };
      },
      async (t, { agent, signatures, before }) => {
        expect(t.coffer.db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.at(-1)!.version);
        // The catalog is loaded again into the new columns, though its file is the one loaded before.
        expect((await t.api('GET', '/v1/services/demo-weather')).body.base).toEqual({ payTo: DEMO_BASE_PAY_TO, network: 'sim' });
        const after = ledgerViews(t.coffer.db);
        // The pending one was settled again from its transaction: confirmed, at the start's time.
        const settledAgain = (after.payments as { tx_signature: string; settled_at: number }[]).find(
          (row) => row.tx_signature === signatures[2],
        )!;
        expect(settledAgain).toMatchObject({ status: 'confirmed', tx_wire: null });
        const beforeRow = (before.views.payments as { tx_signature: string; settled_at: number }[]).find(
          (row) => row.tx_signature === signatures[2],
        )!;
        expect(settledAgain.settled_at).toBeGreaterThanOrEqual(beforeRow.settled_at);
        expect(after).toEqual({
          ...before.views,
          payments: (before.views.payments as { tx_signature: string }[]).map((row) =>
            row === beforeRow ? { ...row, settled_at: settledAgain.settled_at } : row,
          ),
        });
        expect(await rpcAnswers(t, agent.walletAddress, signatures)).toEqual(before.rpc);
        expect(await ownerState(t)).toEqual(before.owner);
        // The same, but for the Base rail's chain, which schema 2 did not have: it starts anew.
        // The refusal kept before schema 9 reads with no rail: which it was asked on was not written.
        const solanaOnly = (dashboard: { treasury: { balances: object; baseGas: object }; recentRefusals: { rail: string | null }[] }) => ({
          ...dashboard,
          treasury: { ...dashboard.treasury, balances: null, baseGas: null },
          recentRefusals: dashboard.recentRefusals.map((refusal) => ({ ...refusal, rail: null })),
        });
        const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
        expect(before.dashboard.recentRefusals.map((refusal: { rail: string }) => refusal.rail)).toEqual(['sol']);
        expect(dashboard.recentRefusals.map((refusal: { rail: string | null }) => refusal.rail)).toEqual([null]);
        expect(solanaOnly(dashboard)).toEqual(solanaOnly(before.dashboard));
        // A retry under a key answers the payment made under it; a signature is still recorded once.
        const retried = await pay(
          t,
          'upgraded',
          agent.apiKey,
          { ...UNLISTED_API, amount: '0.01', description: 'before 1' },
          {
            'Idempotency-Key': 'key-1',
          },
        );
        expect(retried.body.txSignature).toBe(signatures[1]);
        expect(() => t.coffer.db.prepare("UPDATE transfers SET tx_signature = ? WHERE id = 'pay_refused'").run(signatures[0])).toThrow(
          'UNIQUE constraint failed: transfers.tx_signature',
        );
        const paid = await pay(t, 'upgraded', agent.apiKey, { ...UNLISTED_API, amount: '0.01', description: 'after' });
        expect(paid.status).toBe(200);
        expect(t.coffer.db.prepare('SELECT COUNT(*) FROM transfer_wires').pluck().get()).toBe(1);
      },
    );
  });
});
