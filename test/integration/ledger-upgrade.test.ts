import { getBase58Decoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { fundedAgent, ownerState, UNLISTED_API, type TestCoffer } from '../helpers/coffer.js';
import { pay } from '../helpers/pay.js';
import { acrossRestart } from '../helpers/restart.js';
import { openConnection, type SqliteDatabase } from '../../server/store/sqlite-driver.js';
import { createSimKeys } from '../../server/store/sim-chain-store.js';
import { decodeSimTransaction, firstSignatureBytes } from '../../server/chain/sim-transaction-codec.js';

/** The embedded chain's tables as schema 1 made them (server/store/schema.ts). */
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
        expect(t.coffer.db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(2);
        expect(await rpcAnswers(t, agent.walletAddress, signatures)).toEqual(before.rpc);
        expect(await ownerState(t)).toEqual(before.owner);
        expect(t.coffer.db.prepare("SELECT COUNT(*) FROM transfers WHERE status = 'confirmed' AND tx_wire IS NOT NULL").pluck().get()).toBe(
          0,
        );
        // The chain goes on from where it was: a landed transaction is still refused again, new ones land.
        const paid = await pay(t, 'upgraded', agent.apiKey, { ...UNLISTED_API, amount: '0.01', description: 'after' });
        expect(paid.status).toBe(200);
        const listed = JSON.parse((await rpcAnswers(t, agent.walletAddress, signatures))[0]!) as { result: { signature: string }[] };
        expect(listed.result.map((row) => row.signature).slice(0, 5)).toEqual([paid.body.txSignature, ...[...signatures].reverse()]);
      },
    );
  });
});
