import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../../../server/store/database.js';
import type { SqliteDatabase } from '../../../../../server/store/sqlite-driver.js';
import { createSqliteStore } from '../../../../../server/store/sqlite-store.js';
import { paymentRow } from '../../../../fixtures/transfer-rows.js';
import type { Store } from '../../../../../server/core/ports/store.js';

const OWNER = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const AGENTS = ['a', 'b', 'c'];
const DAY = 86_400_000;

/** What the maintained figures must equal: the same sums read the slow way, from every payment. */
function recomputed(db: SqliteDatabase, agentId: string, since: number) {
  const one = (sql: string, ...args: unknown[]) =>
    db
      .prepare(sql)
      .pluck()
      .get(...args) as number | bigint | null;
  const counts = "status IN ('pending', 'confirmed') AND refunded_at IS NULL";
  return {
    spentSince: BigInt(
      one(
        `SELECT COALESCE(SUM(amount), 0) FROM payments WHERE owner = ? AND agent_id = ? AND ${counts} AND created_at > ?`,
        OWNER,
        agentId,
        since,
      ) ?? 0,
    ),
    pending: BigInt(
      one("SELECT COALESCE(SUM(amount), 0) FROM payments WHERE owner = ? AND agent_id = ? AND status = 'pending'", OWNER, agentId) ?? 0,
    ),
    lifetimeSpent: BigInt(
      one(
        "SELECT COALESCE(SUM(amount), 0) FROM payments WHERE owner = ? AND agent_id = ? AND status = 'confirmed' AND refunded_at IS NULL",
        OWNER,
        agentId,
      ) ?? 0,
    ),
    lifetimePayments: Number(
      one(
        "SELECT COUNT(*) FROM payments WHERE owner = ? AND agent_id = ? AND status = 'confirmed' AND refunded_at IS NULL",
        OWNER,
        agentId,
      ),
    ),
    lastPaymentAt: (() => {
      const value = one(
        "SELECT MAX(created_at) FROM payments WHERE owner = ? AND agent_id = ? AND status IN ('pending', 'confirmed')",
        OWNER,
        agentId,
      );
      return value === null ? null : Number(value);
    })(),
  };
}

type Step =
  | { kind: 'pay'; agent: number; amount: number; status: 'pending' | 'confirmed' | 'failed'; ago: number }
  | { kind: 'settle'; pick: number; to: 'confirmed' | 'failed' }
  | { kind: 'refund'; pick: number }
  | { kind: 'crash'; agent: number; amount: number }
  | { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('pay' as const),
    agent: fc.nat(AGENTS.length - 1),
    amount: fc.integer({ min: 1, max: 5_000_000 }),
    status: fc.constantFrom('pending' as const, 'confirmed' as const, 'failed' as const),
    // Mostly now, sometimes a little in the past (a payment reserved before a slow settle).
    ago: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90_000 })),
  }),
  fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), to: fc.constantFrom('confirmed' as const, 'failed' as const) }),
  fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('crash' as const), agent: fc.nat(AGENTS.length - 1), amount: fc.integer({ min: 1, max: 1_000_000 }) }),
  // Small steps, and jumps across minutes, hours and the 24 h edge.
  fc.record({
    kind: fc.constant('wait' as const),
    ms: fc.oneof(
      fc.integer({ min: 1, max: 70_000 }),
      fc.integer({ min: 3_000_000, max: 4_000_000 }),
      fc.integer({ min: DAY - 120_000, max: DAY + 120_000 }),
    ),
  }),
);

describe('maintained spend totals (buckets and per-agent totals kept by triggers)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function fresh(): { db: SqliteDatabase; store: Store; file: string } {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-totals-'));
    dirs.push(dir);
    const file = join(dir, 'coffer.db');
    const db = openDatabase(file, 'normal');
    db.prepare('INSERT INTO owners (address, created_at) VALUES (?, 0)').run(OWNER);
    for (const agentId of AGENTS) {
      db.prepare(
        "INSERT INTO agents (owner, agent_id, wallet_address, display_name, status, created_at) VALUES (?, ?, ?, ?, 'active', 0)",
      ).run(OWNER, agentId, `wallet-${agentId}`, agentId);
    }
    return { db, store: createSqliteStore(db), file };
  }

  it('equal the sums over the payments table after any run of payments, settlements, refunds, failed writes and time', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 30 * 3_600_000 }), { minLength: 3, maxLength: 3 }),
        (steps, lookbacks) => {
          const opened = fresh();
          const { file } = opened;
          let { db, store } = opened;
          let now = 1_700_000_000_000 + Math.floor(Math.random() * 3_600_000);
          let n = 0;
          const ids: string[] = [];
          const insert = (agentId: string, amount: number, status: 'pending' | 'confirmed' | 'failed', at: number) => {
            const id = `pay_p${n++}`;
            store.insertTransfer(paymentRow({ id, owner: OWNER, agentId, amount: BigInt(amount), status, createdAt: at }));
            return id;
          };
          for (const s of steps) {
            if (s.kind === 'pay') ids.push(insert(AGENTS[s.agent]!, s.amount, s.status, now - s.ago));
            else if (s.kind === 'settle' && ids.length > 0)
              store.settleTransfer(store.getTransfer(ids[s.pick % ids.length]!)!, s.to, null, now);
            else if (s.kind === 'refund' && ids.length > 0) {
              db.prepare("UPDATE transfers SET refunded_at = ? WHERE id = ? AND status = 'confirmed' AND refunded_at IS NULL").run(
                now,
                ids[s.pick % ids.length],
              );
            } else if (s.kind === 'crash') {
              // A write that dies half-way rolls back with everything its triggers did.
              expect(() =>
                store.transaction(() => {
                  insert(AGENTS[s.agent]!, s.amount, 'pending', now);
                  throw new Error('the process died here');
                }),
              ).toThrow(/died/);
            } else if (s.kind === 'wait') now += s.ms;
          }
          // And across a restart of the data dir.
          db.close();
          db = openDatabase(file, 'normal');
          store = createSqliteStore(db);
          for (const agentId of AGENTS) {
            for (const since of [now - DAY, ...lookbacks.map((back) => now - back)]) {
              const expected = recomputed(db, agentId, since);
              expect(store.spentSince(OWNER, agentId, since), `${agentId} since ${since}`).toBe(expected.spentSince);
              const totals = store.spendTotals(OWNER, since).get(agentId);
              // A page of one agent reads the same figures as the whole owner.
              expect(store.spendTotals(OWNER, since, [agentId]).get(agentId)).toEqual(totals);
              if (totals !== undefined) {
                expect(totals.spentSince).toBe(expected.spentSince);
                expect(totals.lifetimeSpent).toBe(expected.lifetimeSpent);
                expect(totals.lifetimePayments).toBe(expected.lifetimePayments);
                expect(totals.lastPaymentAt).toBe(expected.lastPaymentAt);
              } else {
                expect(expected.spentSince + expected.lifetimeSpent).toBe(0n);
              }
            }
            const expected = recomputed(db, agentId, now - DAY);
            expect(store.pendingPaymentsTotal(OWNER, agentId)).toBe(expected.pending);
            expect(store.lastPaymentAt(OWNER, agentId)).toBe(expected.lastPaymentAt);
          }
          db.close();
        },
      ),
      { numRuns: 150 },
    );
  });
});
