import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { inScope } from '../../../../../server/wire/policy/budget.js';
import type { Budget, BudgetScope } from '../../../../../server/wire/policy/budget.js';
import type {
  AgentRecord,
  AllocationRecord,
  ApprovalRecord,
  LinkSessionRecord,
  Store,
  TransferRecord,
} from '../../../../../server/core/ports/store.js';
import type { Policy } from '../../../../../server/wire/policy/policy.js';
import { createSqliteStore } from '../../../../../server/store/sqlite-store.js';
import { migrate } from '../../../../../server/store/migrations.js';
import { openConnection } from '../../../../../server/store/sqlite-driver.js';
import { createMemoryStore } from '../../../../fixtures/memory-store.js';
import { paymentRow } from '../../../../fixtures/transfer-rows.js';

/**
 * The Store port's contract (server/core/ports/store.ts), the same cases against the SQLite adapter
 * (over an in-memory database) and the in-memory Store the core's unit tests run on: what each
 * keeps, finds, orders and refuses, and what a transaction that throws leaves behind.
 */
const SUBJECTS: [string, () => Store][] = [
  [
    'the SQLite adapter',
    () => {
      const db = openConnection(':memory:');
      db.pragma('foreign_keys = ON');
      migrate(db);
      return createSqliteStore(db);
    },
  ],
  ['the in-memory Store', () => createMemoryStore()],
];

const OWNER = 'owner-address';
const OTHER_OWNER = 'other-owner-address';

/** A deposit found on chain, as the watch hands it to the store: on Solana, 7 micro-USDC, unless told otherwise. */
const chainDeposit = (id: string, txSignature: string, more: Partial<Parameters<Store['insertChainDeposit']>[0]> = {}) => ({
  id,
  owner: OWNER,
  txSignature,
  transferIndex: null,
  amount: 7n,
  from: 'x',
  createdAt: 3_000,
  rail: 'sol' as const,
  ...more,
});
const POLICY: Policy = {
  dailyBudget: 100n,
  maxPerPayment: 10n,
  cooldownSeconds: 0,
  allowedServices: ['svc'],
  budgets: [],
  expiresAt: null,
  warnAt: [80, 95],
  breaker: null,
  askAbove: null,
  askNewRecipient: false,
};
const agent = (agentId: string, wallet = `wallet-${agentId}`): AgentRecord => ({
  owner: OWNER,
  agentId,
  walletAddress: wallet,
  displayName: agentId,
  status: 'active',
  createdAt: 1,
  statusReason: null,
  statusChangedAt: null,
  archivedAt: null,
});
const pay = (id: string, fields: Partial<TransferRecord> & { createdAt?: number } = {}) =>
  paymentRow({ id, owner: OWNER, agentId: 'a', amount: 10n, createdAt: 1_000, txSignature: `sig-${id}`, ...(fields as object) });
const move = (id: string, kind: 'allocation' | 'return', fields: Partial<AllocationRecord> = {}): AllocationRecord => ({
  kind,
  id,
  owner: OWNER,
  rail: 'sol',
  agentId: 'a',
  amount: 5n,
  status: 'pending',
  txSignature: `sig-${id}`,
  txWire: 'wire',
  lifetimeEnd: 9n,
  errorCode: null,
  idempotencyKey: null,
  requestHash: null,
  createdAt: 1_000,
  settledAt: null,
  ...fields,
});

function fresh(make: () => Store): Store {
  const store = make();
  store.insertOwner({ address: OWNER, createdAt: 0 });
  store.insertAgent(agent('a'), POLICY);
  store.insertAgent(agent('b'), POLICY);
  return store;
}

describe.each(SUBJECTS)('the Store port: %s', (_name, make) => {
  it("revokes a scope's keys at once, keeping each with why; other scopes' keys and unknown hashes are untouched", () => {
    const store = fresh(make);
    store.insertApiKey('ka1', { kind: 'agent', owner: OWNER, agentId: 'a' }, 1);
    store.insertApiKey('ka2', { kind: 'agent', owner: OWNER, agentId: 'a' }, 2);
    store.insertApiKey('kb', { kind: 'agent', owner: OWNER, agentId: 'b' }, 3);
    store.insertApiKey('ko', { kind: 'owner', owner: OWNER }, 4);
    store.revokeApiKeys({ kind: 'agent', owner: OWNER, agentId: 'a' }, { reason: 'replaced', at: 10 });
    expect([store.findApiKey('ka1'), store.findApiKey('ka2')]).toEqual([null, null]);
    expect(store.findRevokedApiKey('ka2')).toEqual({ kind: 'agent', owner: OWNER, agentId: 'a', reason: 'replaced', at: 10 });
    expect(store.findApiKey('kb')).toEqual({ kind: 'agent', owner: OWNER, agentId: 'b' });
    expect(store.findRevokedApiKey('kb')).toBeNull();
    store.revokeApiKeys({ kind: 'owner', owner: OWNER }, { reason: 'replaced', at: 20 });
    expect(store.findApiKey('ko')).toBeNull();
    expect(store.findRevokedApiKey('ko')).toEqual({ kind: 'owner', owner: OWNER, reason: 'replaced', at: 20 });
    expect(store.findApiKey('kb')).not.toBeNull();
    expect(store.findRevokedApiKey('never-issued')).toBeNull();
  });

  it('keeps a move of money as written and settles it once; a landed signature is recorded with it', () => {
    const store = fresh(make);
    const row = pay('p1', { status: 'pending', payerSignature: null, txWire: 'wire-p1' });
    store.insertTransfer(row);
    expect(store.getTransfer('p1')).toEqual(row);
    expect(store.getPayment('p1')).toEqual(row);
    expect(store.pendingTransfers()).toEqual([row]);
    store.insertTransfer(move('m1', 'allocation'));
    expect(store.getPayment('m1')).toBeNull();
    expect(store.settleTransfer(row, 'confirmed', null, 2_000)).toBe(true);
    expect(store.settleTransfer(row, 'failed', 'late', 3_000)).toBe(false);
    // Confirmed, it lets go of its signed transaction (the chain keeps it); failed, it keeps it.
    expect(store.getPayment('p1')).toMatchObject({ status: 'confirmed', settledAt: 2_000, errorCode: null, txWire: null });
    expect(store.settleTransfer(store.getTransfer('m1')!, 'failed', 'chain_rejected', 2_000)).toBe(true);
    expect(store.getTransfer('m1')).toMatchObject({ status: 'failed', txWire: 'wire' });
    store.insertTransfer(pay('x1', { txSignature: null, protocol: 'x402', payerSignature: 'payer-1' }));
    expect(store.settleTransfer(store.getTransfer('x1')!, 'confirmed', null, 2_500, 'landed-1')).toBe(true);
    expect(store.getPayment('x1')).toMatchObject({ txSignature: 'landed-1' });
    expect(store.isPaymentTransaction('landed-1')).toBe(true);
    expect(store.isPaymentTransaction('sig-m1')).toBe(false);
  });

  it('records one Base transaction under each x402 authorization it ran (a facilitator may send several in one), and nothing else twice', () => {
    const store = fresh(make);
    const x402OnBase = (id: string, nonce: string) =>
      pay(id, { rail: 'base', txSignature: null, protocol: 'x402', payerSignature: nonce, txWire: `wire-${id}` });
    store.insertTransfer(x402OnBase('b1', 'nonce-1'));
    store.insertTransfer(x402OnBase('b2', 'nonce-2'));
    // One transaction that ran both authorizations settles both: each paid its own amount in it.
    expect(store.settleTransfer(store.getTransfer('b1')!, 'confirmed', null, 2_000, '0xbatch')).toBe(true);
    expect(store.settleTransfer(store.getTransfer('b2')!, 'confirmed', null, 2_000, '0xbatch')).toBe(true);
    expect([store.getPayment('b1')?.txSignature, store.getPayment('b2')?.txSignature]).toEqual(['0xbatch', '0xbatch']);
    // Anything else under that transaction is refused as before: a payment Coffer sent, an x402 payment
    // on Solana, a deposit on Solana (schema 12 lets a Base deposit beside them: see below).
    expect(() => store.insertTransfer(pay('c1', { rail: 'base', txSignature: '0xbatch', txWire: 'wire-c1' }))).toThrow();
    store.insertTransfer(pay('s1', { txSignature: null, protocol: 'x402', payerSignature: 'payer-s1', txWire: 'wire-s1' }));
    expect(() => store.settleTransfer(store.getTransfer('s1')!, 'confirmed', null, 2_000, '0xbatch')).toThrow();
    expect(store.insertChainDeposit(chainDeposit('d1', '0xbatch'))).toBe(false);
  });

  it('records each Base transfer to the treasury as a deposit of its own, beside x402 payments in its transaction; nothing twice', () => {
    const store = fresh(make);
    const deposit = (id: string, txSignature: string, transferIndex: number | null, rail: 'base' | 'sol' = 'base') =>
      store.insertChainDeposit(chainDeposit(id, txSignature, { transferIndex, rail }));
    const x402OnBase = (id: string, nonce: string) =>
      pay(id, { rail: 'base', txSignature: null, protocol: 'x402', payerSignature: nonce, txWire: `wire-${id}` });
    // An x402 payment settled first, then the deposits its transaction also made.
    store.insertTransfer(x402OnBase('b1', 'nonce-1'));
    expect(store.settleTransfer(store.getTransfer('b1')!, 'confirmed', null, 2_000, '0xmixed')).toBe(true);
    expect([deposit('d1', '0xmixed', 3), deposit('d2', '0xmixed', 3), deposit('d3', '0xmixed', 4)]).toEqual([true, false, true]);
    // Not without its log, nor on Solana, nor beside a payment Coffer sent.
    expect([deposit('d4', '0xmixed', null), deposit('d5', '0xmixed', null, 'sol')]).toEqual([false, false]);
    expect(() => store.insertTransfer(pay('c1', { rail: 'base', txSignature: '0xmixed', txWire: 'wire-c1' }))).toThrow();
    // The deposit read first, then the x402 payment its transaction ran settled.
    expect(deposit('d6', '0xdeposit-first', 0)).toBe(true);
    store.insertTransfer(x402OnBase('b2', 'nonce-2'));
    expect(store.settleTransfer(store.getTransfer('b2')!, 'confirmed', null, 2_000, '0xdeposit-first')).toBe(true);
    // A deposit recorded before deposits named their place keeps its transaction from other deposits
    // (never counted twice), not from the x402 payment run beside it, which it held pending before.
    expect([deposit('d7', '0xolder', null), deposit('d8', '0xolder', 0)]).toEqual([true, false]);
    store.insertTransfer(x402OnBase('b3', 'nonce-3'));
    expect(store.settleTransfer(store.getTransfer('b3')!, 'confirmed', null, 2_000, '0xolder')).toBe(true);
    expect(
      store
        .listDeposits(OWNER, 10)
        .map((row) => [row.id, row.txSignature])
        .sort(),
    ).toEqual([
      ['d1', '0xmixed'],
      ['d3', '0xmixed'],
      ['d6', '0xdeposit-first'],
      ['d7', '0xolder'],
    ]);
  });

  it('refuses a duplicate id, a duplicate transaction, a zero amount, an unknown agent, a second live refund of a payment', () => {
    const store = fresh(make);
    store.insertTransfer(pay('p1', { status: 'confirmed', recipient: OWNER }));
    expect(() => store.insertTransfer(pay('p1', { txSignature: 'other' }))).toThrow();
    expect(() => store.insertTransfer(pay('p2', { txSignature: 'sig-p1', txWire: 'wire-p2' }))).toThrow();
    expect(store.getTransfer('p2')).toBeNull();
    // A transaction that lands is recorded once too: not under a second transfer, nor as a deposit.
    store.insertTransfer(pay('x1', { txSignature: null, protocol: 'x402', payerSignature: 'payer-1', txWire: 'wire-x1' }));
    expect(() => store.settleTransfer(store.getTransfer('x1')!, 'confirmed', null, 2_000, 'sig-p1')).toThrow();
    expect(store.getTransfer('x1')).toMatchObject({ status: 'pending', txSignature: null, txWire: 'wire-x1' });
    expect(store.insertChainDeposit(chainDeposit('d1', 'sig-p1'))).toBe(false);
    expect(store.getTransfer('d1')).toBeNull();
    expect(() => store.insertTransfer(pay('p3', { amount: 0n }))).toThrow();
    expect(() => store.insertTransfer(pay('p4', { agentId: 'nobody' }))).toThrow();
    const refund = (id: string, status: 'pending' | 'failed'): TransferRecord => ({
      ...move(id, 'allocation'),
      kind: 'refund',
      paymentId: 'p1',
      taskId: null,
      destination: 'agent',
      status,
    });
    store.insertTransfer(refund('r1', 'failed'));
    store.insertTransfer(refund('r2', 'pending'));
    expect(() => store.insertTransfer(refund('r3', 'pending'))).toThrow();
    expect(store.findRefundByPayment('p1')?.id).toBe('r2');
    // A confirmed refund marks its payment refunded, with the refund's transaction.
    store.settleTransfer(store.getTransfer('r2')!, 'confirmed', null, 5_000);
    expect(store.getPayment('p1')).toMatchObject({ refundedAt: 5_000, refundTxSignature: 'sig-r2' });
  });

  it('finds the newest row of the kinds asked under an Idempotency-Key, since a time, for an agent or for the treasury', () => {
    const store = fresh(make);
    store.insertTransfer(pay('p1', { idempotencyKey: 'k', createdAt: 1_000 }));
    store.insertTransfer(pay('p2', { idempotencyKey: 'k', createdAt: 2_000 }));
    store.insertTransfer(pay('p3', { idempotencyKey: 'k', createdAt: 2_000, agentId: 'b' }));
    store.insertTransfer(move('m1', 'return', { idempotencyKey: 'k', createdAt: 3_000 }));
    expect(store.findByIdempotencyKey(['payment'], OWNER, 'a', 'k', 0)?.id).toBe('p2');
    expect(store.findByIdempotencyKey(['payment'], OWNER, 'a', 'k', 2_001)).toBeNull();
    expect(store.findByIdempotencyKey(['allocation', 'return'], OWNER, 'a', 'k', 0)?.id).toBe('m1');
    expect(store.findByIdempotencyKey(['payment'], OWNER, 'a', 'other', 0)).toBeNull();
    store.insertTransfer({ ...move('f1', 'allocation', { idempotencyKey: 'k' }), kind: 'faucet', agentId: null, from: 'mint' });
    expect(store.findByIdempotencyKey(['faucet'], OWNER, null, 'k', 0)?.id).toBe('f1');
  });

  it('answers what is pending, oldest first, and what the treasury (allocations, refunds sent) and a wallet have promised away', () => {
    const store = fresh(make);
    store.insertTransfer(move('m2', 'allocation', { createdAt: 2_000 }));
    store.insertTransfer(move('m1', 'return', { createdAt: 1_000 }));
    store.insertTransfer(move('m3', 'return', { createdAt: 3_000, agentId: 'b' }));
    store.insertTransfer(pay('p1', { status: 'pending', createdAt: 1_500 }));
    expect(store.pendingTransfers().map((row) => row.id)).toEqual(['m1', 'p1', 'm2', 'm3']);
    store.insertTransfer(move('m4', 'allocation', { createdAt: 4_000, rail: 'base', amount: 7n }));
    store.insertTransfer(move('m5', 'return', { createdAt: 5_000, rail: 'base', amount: 3n }));
    expect(store.pendingTreasuryOutflowsTotal(OWNER, 'sol')).toBe(5n);
    expect(store.pendingTreasuryOutflowsTotal(OWNER, 'base')).toBe(7n);
    // A refund on its way from the treasury to an agent is promised away too; one kept there is not.
    store.insertTransfer(pay('p9', { status: 'pending', agentId: 'b', memo: 'refunded' }));
    store.insertTransfer(pay('p8', { status: 'pending', agentId: 'b', memo: 'kept' }));
    const refund = (id: string, paymentId: string, destination: 'agent' | 'treasury'): TransferRecord => ({
      ...move(id, 'allocation', { amount: 11n }),
      kind: 'refund',
      paymentId,
      taskId: null,
      destination,
    });
    store.insertTransfer(refund('r9', 'p9', 'agent'));
    store.insertTransfer(refund('r8', 'p8', 'treasury'));
    expect(store.pendingTreasuryOutflowsTotal(OWNER, 'sol')).toBe(16n);
    store.settleTransfer(store.getTransfer('r9')!, 'confirmed', null, 4_000);
    expect(store.pendingTreasuryOutflowsTotal(OWNER, 'sol')).toBe(5n);
    expect(store.pendingReturnsTotal(OWNER, 'a', 'sol')).toBe(5n);
    expect(store.pendingReturnsTotal(OWNER, 'a', 'base')).toBe(3n);
    expect(store.pendingPaymentsTotal(OWNER, 'a')).toBe(10n);
    expect(store.getTransfer('m4')?.rail).toBe('base');
    expect(store.getTransfer('m1')?.rail).toBe('sol');
    store.settleTransfer(store.getTransfer('m1')!, 'failed', 'dropped', 4_000);
    expect(store.pendingReturnsTotal(OWNER, 'a', 'sol')).toBe(0n);
    expect(store.pendingReturnsTotal(OWNER, 'a', 'base')).toBe(3n);
  });

  it("keeps a running total of what it confirmed leaving each agent's wallet on each rail: payments and returns only", () => {
    const store = fresh(make);
    store.insertTransfer(pay('p1', { status: 'pending', amount: 2n }));
    store.insertTransfer(pay('p2', { status: 'pending', amount: 3n }));
    store.insertTransfer(pay('p3', { status: 'pending', amount: 5n, rail: 'base' }));
    store.insertTransfer(pay('p4', { status: 'pending', amount: 7n, agentId: 'b' }));
    store.insertTransfer(move('m1', 'return', { amount: 11n }));
    store.insertTransfer(move('m2', 'allocation', { amount: 13n }));
    store.insertTransfer(pay('p5', { status: 'pending', amount: 17n }));
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'sol')).toBe(0n);
    store.settleTransfer(store.getTransfer('p1')!, 'confirmed', null, 1_000);
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'sol')).toBe(2n);
    // By the order of confirmations, whatever time they are dated.
    store.settleTransfer(store.getTransfer('p2')!, 'confirmed', null, 500);
    store.settleTransfer(store.getTransfer('p3')!, 'confirmed', null, 2_000);
    store.settleTransfer(store.getTransfer('p4')!, 'confirmed', null, 2_000);
    store.settleTransfer(store.getTransfer('m1')!, 'confirmed', null, 3_000);
    // Money into the wallet, a payment that failed, and a row settled twice never count.
    store.settleTransfer(store.getTransfer('m2')!, 'confirmed', null, 3_000);
    store.settleTransfer(store.getTransfer('p5')!, 'failed', 'dropped', 3_000);
    expect(store.settleTransfer(store.getTransfer('p1')!, 'confirmed', null, 4_000)).toBe(false);
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'sol')).toBe(16n);
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'base')).toBe(5n);
    expect(store.confirmedOutflowsTotal(OWNER, 'b', 'sol')).toBe(7n);
  });

  it("keeps the treasury's running total under a null agent: allocations and refunds sent to an agent, per rail", () => {
    const store = fresh(make);
    const refund = (id: string, destination: 'agent' | 'treasury'): TransferRecord => ({
      ...move(id, 'allocation', { amount: 100n }),
      kind: 'refund',
      paymentId: `p-${id}`,
      taskId: null,
      destination,
    });
    // The payments refunded: agent b's, left pending (its own total is not asked here).
    store.insertTransfer(pay('p-f1', { status: 'pending', agentId: 'b', memo: 'f1' }));
    store.insertTransfer(pay('p-f2', { status: 'pending', agentId: 'b', memo: 'f2' }));
    store.insertTransfer(move('a1', 'allocation', { amount: 2n }));
    store.insertTransfer(move('a2', 'allocation', { amount: 3n, rail: 'base', agentId: 'b' }));
    store.insertTransfer(move('a3', 'allocation', { amount: 5n }));
    store.insertTransfer(move('r1', 'return', { amount: 7n }));
    store.insertTransfer(refund('f1', 'agent'));
    store.insertTransfer(refund('f2', 'treasury'));
    store.insertTransfer(pay('p1', { status: 'pending', amount: 11n }));
    for (const id of ['a1', 'a2', 'r1', 'f1', 'f2', 'p1']) store.settleTransfer(store.getTransfer(id)!, 'confirmed', null, 1_000);
    store.settleTransfer(store.getTransfer('a3')!, 'failed', 'dropped', 1_000);
    // Every agent's allocation and the refund sent, not the one kept, the return in, a payment, nor a failure.
    expect(store.confirmedOutflowsTotal(OWNER, null, 'sol')).toBe(102n);
    expect(store.confirmedOutflowsTotal(OWNER, null, 'base')).toBe(3n);
    // The agents' own totals are as they were: the return and the payment left agent a's wallet.
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'sol')).toBe(18n);
  });

  it('keeps counting a confirmation whose write was rolled back: what left is counted more, never less', () => {
    const store = fresh(make);
    store.insertTransfer(pay('p1', { status: 'pending', amount: 2n }));
    expect(() =>
      store.transaction(() => {
        store.settleTransfer(store.getTransfer('p1')!, 'confirmed', null, 1_000);
        throw new Error('the write failed after the confirmation');
      }),
    ).toThrow('the write failed');
    expect(store.getTransfer('p1')!.status).toBe('pending');
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'sol')).toBe(2n);
    // Confirmed for good after it: never less than what left (counted twice, a reading takes off more
    // than left until a fresh read).
    expect(store.settleTransfer(store.getTransfer('p1')!, 'confirmed', null, 2_000)).toBe(true);
    expect(store.confirmedOutflowsTotal(OWNER, 'a', 'sol')).toBeGreaterThanOrEqual(2n);
  });

  it('reads the payments that count a page at a time, in order, none twice or left out where a page ends among payments of the same millisecond', () => {
    const store = fresh(make);
    // 2,500 payments, seven to each millisecond, inserted out of order: pages of a thousand end inside a millisecond.
    const ids: string[] = [];
    for (let i = 0; i < 2_500; i++) {
      const at = 10_000 + Math.floor(((i * 7919) % 2_500) / 7);
      store.insertTransfer(pay(`q${i}`, { status: 'confirmed', createdAt: at, memo: `m${i}` }));
      ids.push(`q${i}`);
    }
    const read = [...store.countedPayments(OWNER, 'a', null)];
    expect(read.map((p) => p.id).sort()).toEqual([...ids].sort());
    for (let i = 1; i < read.length; i++) expect(read[i]!.createdAt).toBeGreaterThanOrEqual(read[i - 1]!.createdAt);
    // Within a millisecond, in the order written.
    const order = new Map(ids.map((id, i) => [id, i]));
    for (let i = 1; i < read.length; i++) {
      if (read[i]!.createdAt === read[i - 1]!.createdAt) expect(order.get(read[i]!.id)!).toBeGreaterThan(order.get(read[i - 1]!.id)!);
    }
    const from = 10_000 + 150;
    expect([...store.countedPayments(OWNER, 'a', from)].map((p) => p.id)).toEqual(read.filter((p) => p.createdAt >= from).map((p) => p.id));
  });

  it('sums what an agent spent: pending and confirmed, not failed nor refunded, created after the window opens', () => {
    const store = fresh(make);
    store.insertTransfer(pay('p1', { status: 'confirmed', createdAt: 1_000, amount: 1n }));
    store.insertTransfer(pay('p2', { status: 'pending', createdAt: 2_000, amount: 2n }));
    store.insertTransfer(pay('p3', { status: 'failed', createdAt: 3_000, amount: 4n }));
    store.insertTransfer(pay('p4', { status: 'confirmed', createdAt: 4_000, amount: 8n, refundedAt: 5_000 }));
    expect(store.spentSince(OWNER, 'a', 0)).toBe(3n);
    expect(store.spentSince(OWNER, 'a', 1_000)).toBe(2n);
    expect(store.lastPaymentAt(OWNER, 'a')).toBe(4_000);
    // The payments that count, oldest first, from a time on (or all), as a replayed policy judges them.
    store.insertTransfer(pay('p0', { status: 'pending', createdAt: 500, amount: 16n, rail: 'base' }));
    expect([...store.countedPayments(OWNER, 'a', null)].map((p) => [p.id, p.amount, p.createdAt, p.rail])).toEqual([
      ['p0', 16n, 500, 'base'],
      ['p1', 1n, 1_000, 'sol'],
      ['p2', 2n, 2_000, 'sol'],
    ]);
    expect([...store.countedPayments(OWNER, 'a', 1_000)].map((p) => p.id)).toEqual(['p1', 'p2']);
    expect([...store.countedPayments(OWNER, 'b', null)]).toEqual([]);
    store.settleTransfer(store.getTransfer('p0')!, 'failed', 'dropped', 600);
    expect(store.spendTotals(OWNER, 0).get('a')).toEqual({
      lifetimeSpent: 1n,
      lifetimePayments: 1,
      spentSince: 3n,
      heldSince: 0n,
      lastPaymentAt: 4_000,
    });
    store.settleTransfer(store.getTransfer('p2')!, 'failed', 'dropped', 6_000);
    expect(store.spentSince(OWNER, 'a', 0)).toBe(1n);
    expect(store.spendTotals(OWNER, 0).has('b')).toBe(false);
    // One held for the owner's yes is not made (yet): a replay does not count it.
    store.insertTransfer(pay('h1', { status: 'held', txSignature: null, txWire: null, lifetimeEnd: null, createdAt: 2_500 }));
    expect([...store.countedPayments(OWNER, 'a', 1_000)].map((p) => p.id)).toEqual(['p1']);
  });

  it("reads a page of agents' totals and policies: only the agents named", () => {
    const store = fresh(make);
    store.insertTransfer(pay('pa', { status: 'confirmed', createdAt: 1_000, amount: 1n }));
    store.insertTransfer(pay('pb', { status: 'confirmed', createdAt: 2_000, amount: 2n, agentId: 'b' }));
    store.setPolicy(OWNER, 'b', { ...POLICY, maxPerPayment: 7n }, 3_000);
    const both = store.spendTotals(OWNER, 0);
    expect([...store.spendTotals(OWNER, 0, ['b'])]).toEqual([['b', both.get('b')]]);
    expect(store.spendTotals(OWNER, 0, ['b']).get('b')).toMatchObject({ spentSince: 2n, lifetimePayments: 1 });
    expect(store.spendTotals(OWNER, 0, []).size).toBe(0);
    expect([...store.listPolicies(OWNER, ['b']).keys()]).toEqual(['b']);
    expect(store.listPolicies(OWNER, ['b']).get('b')!.maxPerPayment).toBe(7n);
    expect(store.listPolicies(OWNER, ['a', 'b'])).toEqual(store.listPolicies(OWNER));
    expect(store.listPolicies(OWNER, ['nobody']).size).toBe(0);
  });

  it('lists payments newest first and finds a live one by its memo or its payer signature', () => {
    const store = fresh(make);
    store.insertTransfer(pay('p1', { createdAt: 1_000, memo: 'n1', status: 'failed', payerSignature: 'ps' }));
    store.insertTransfer(pay('p2', { createdAt: 2_000, memo: 'n1', status: 'confirmed' }));
    store.insertTransfer(pay('p3', { createdAt: 2_000, memo: 'n2', payerSignature: 'ps' }));
    expect(store.listPayments(OWNER, 'a', 10).map((row) => row.id)).toEqual(['p3', 'p2', 'p1']);
    expect(store.recentPayments(OWNER, 2).map((row) => row.id)).toEqual(['p3', 'p2']);
    expect(store.findLivePaymentByMemo(OWNER, 'a', OWNER, 'n1')?.id).toBe('p2');
    expect(store.findLivePaymentByPayerSignature('ps')?.id).toBe('p3');
    expect(store.insertChainDeposit(chainDeposit('d1', 'dep'))).toBe(true);
    expect(store.insertChainDeposit(chainDeposit('d2', 'dep'))).toBe(false);
    expect(store.insertChainDeposit(chainDeposit('d3', '0xbase', { amount: 9n, from: '0xabc', createdAt: 4_000, rail: 'base' }))).toBe(
      true,
    );
    expect(store.listDeposits(OWNER, 10)).toEqual([
      expect.objectContaining({ id: 'd3', kind: 'deposit', status: 'confirmed', from: '0xabc', rail: 'base' }),
      expect.objectContaining({ id: 'd1', kind: 'deposit', status: 'confirmed', from: 'x', rail: 'sol' }),
    ]);
  });

  it('takes out the Solana deposit recorded for a transaction, and nothing else', () => {
    const store = fresh(make);
    store.insertChainDeposit(chainDeposit('d1', 'dep'));
    store.insertChainDeposit(chainDeposit('d2', '0xbase', { from: '0xabc', rail: 'base' }));
    store.insertTransfer(pay('p1', { txSignature: 'paid' }));
    expect(store.takeOutSolanaDeposit('0xbase')).toBe(false);
    expect(store.takeOutSolanaDeposit('paid')).toBe(false);
    expect(store.takeOutSolanaDeposit('dep')).toBe(true);
    expect(store.takeOutSolanaDeposit('dep')).toBe(false);
    expect(store.listDeposits(OWNER, 10).map((row) => row.id)).toEqual(['d2']);
    expect(store.getPayment('p1')?.txSignature).toBe('paid');
    // Its transaction is free for the payment that stands for it.
    store.insertTransfer(pay('p2', { txSignature: 'dep' }));
    expect(store.getPayment('p2')?.txSignature).toBe('dep');
  });

  it("lists the moves between the treasury and agents newest first, every status, one agent's or all the owner's", () => {
    const store = fresh(make);
    store.insertTransfer(move('m1', 'allocation', { createdAt: 1_000 }));
    store.insertTransfer(move('m2', 'return', { createdAt: 2_000, status: 'failed', rail: 'base' }));
    store.insertTransfer(move('m3', 'allocation', { createdAt: 2_000, agentId: 'b', status: 'confirmed' }));
    // Another owner's agent of the same id: not this owner's.
    store.insertOwner({ address: 'other-owner', createdAt: 0 });
    store.insertAgent({ ...agent('a', 'wallet-other'), owner: 'other-owner' }, POLICY);
    store.insertTransfer(move('m4', 'allocation', { createdAt: 3_000, owner: 'other-owner' }));
    store.insertTransfer(pay('p1', { createdAt: 2_500 }));
    expect(store.listAllocations(OWNER, null, 10).map((row) => [row.id, row.kind, row.agentId, row.status, row.rail])).toEqual([
      ['m3', 'allocation', 'b', 'confirmed', 'sol'],
      ['m2', 'return', 'a', 'failed', 'base'],
      ['m1', 'allocation', 'a', 'pending', 'sol'],
    ]);
    expect(store.listAllocations(OWNER, 'a', 10).map((row) => row.id)).toEqual(['m2', 'm1']);
    expect(store.listAllocations(OWNER, null, 1).map((row) => row.id)).toEqual(['m3']);
    expect(store.listAllocations(OWNER, 'c', 10)).toEqual([]);
  });

  it("what a budget's scope spent from any moment on equals the sum of its payments, whatever came before or after its budget was set", () => {
    const DAY = 86_400_000;
    const now = Date.UTC(2026, 10, 23, 12, 34, 56, 789);
    const scopes: BudgetScope[] = [{ kind: 'all' }, { kind: 'service', serviceId: 'svc' }, { kind: 'recipient', address: 'shop' }];
    const budgets: Budget[] = scopes.map((scope) => ({ amount: 1n, count: null, window: 'month', scope }));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ago: fc.integer({ min: 0, max: 31 * DAY }),
            amount: fc.integer({ min: 1, max: 1000 }),
            service: fc.constantFrom('svc', 'other'),
            recipient: fc.constantFrom('shop', 'elsewhere'),
            status: fc.constantFrom('pending', 'confirmed', 'failed'),
            then: fc.constantFrom('stays', 'fails', 'is refunded'),
            afterBudgets: fc.boolean(),
          }),
          { maxLength: 40 },
        ),
        fc.array(fc.integer({ min: 0, max: 31 * DAY }), { minLength: 1, maxLength: 5 }),
        (payments, froms) => {
          const store = fresh(make);
          const write = (list: typeof payments, offset: number) =>
            list.forEach((p, i) => {
              const row = pay(`p${offset + i}`, {
                createdAt: now - p.ago,
                amount: BigInt(p.amount),
                serviceId: p.service,
                recipient: p.recipient,
                status: p.status as 'pending',
              });
              store.insertTransfer(row);
              if (p.then === 'fails' && p.status === 'pending') store.settleTransfer(row, 'failed', 'dropped', now);
              if (p.then === 'is refunded' && p.status === 'confirmed') {
                const refund: TransferRecord = {
                  ...move(`r${offset + i}`, 'allocation'),
                  kind: 'refund',
                  paymentId: row.id,
                  taskId: null,
                  destination: 'agent',
                };
                store.insertTransfer(refund);
                store.settleTransfer(refund, 'confirmed', null, now);
              }
            });
          write(
            payments.filter((p) => !p.afterBudgets),
            0,
          );
          store.setPolicy(OWNER, 'a', { ...POLICY, budgets }, now);
          write(
            payments.filter((p) => p.afterBudgets),
            1000,
          );
          const counted = store.listPayments(OWNER, 'a', 1000).filter((row) => row.status !== 'failed' && row.refundedAt === null);
          for (const scope of scopes) {
            const held = counted.filter((row) => inScope(scope, { serviceId: row.serviceId, recipient: row.recipient }));
            const sum = (rows: typeof held) => ({ amount: rows.reduce((total, row) => total + row.amount, 0n), payments: rows.length });
            expect(store.budgetSpent(OWNER, 'a', scope, null)).toEqual(sum(held));
            // Random moments, and moments right at and around each payment (its minute's, hour's and day's edges).
            const edges = payments.flatMap(({ ago }) => [ago, ago - 1, ago + 59_999, ago + 3_599_999, ago + DAY - 1]);
            for (const back of [...froms, ...edges]) {
              const from = now - back;
              expect(store.budgetSpent(OWNER, 'a', scope, from)).toEqual(sum(held.filter((row) => row.createdAt >= from)));
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a transaction that throws leaves nothing behind, a nested one that throws only its own part', () => {
    const store = fresh(make);
    expect(() =>
      store.transaction(() => {
        store.insertTransfer(pay('p1'));
        store.setMeta('k', 'v');
        throw new Error('stop');
      }),
    ).toThrow('stop');
    expect(store.getTransfer('p1')).toBeNull();
    expect(store.getMeta('k')).toBeNull();
    store.transaction(() => {
      store.insertTransfer(pay('p2'));
      expect(() =>
        store.transaction(() => {
          store.insertTransfer(pay('p3'));
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(store.getTransfer('p2')).not.toBeNull();
    expect(store.getTransfer('p3')).toBeNull();
    // A write the chain can make again is a transaction all the same.
    expect(() =>
      store.chainDerivedTransaction(() => {
        store.insertTransfer(pay('p4'));
        throw new Error('stop');
      }),
    ).toThrow('stop');
    expect(store.getTransfer('p4')).toBeNull();
    expect(store.chainDerivedTransaction(() => (store.insertTransfer(pay('p5')), 'written'))).toBe('written');
    expect(store.getTransfer('p5')).not.toBeNull();
  });

  it('agents: the Idempotency-Key each was deployed under, none for one deployed without', () => {
    const store = fresh(make);
    store.insertAgent(agent('k', 'wallet-k'), POLICY, { key: 'deploy-1', requestHash: 'h1' });
    expect(store.deployKeyOf(OWNER, 'k')).toEqual({ key: 'deploy-1', requestHash: 'h1' });
    expect(store.deployKeyOf(OWNER, 'a')).toBeNull();
    expect(store.deployKeyOf(OWNER, 'nobody')).toBeNull();
    expect(store.deployKeyOf('other-owner', 'k')).toBeNull();
    // Written in the commit that writes the agent: none where that commit is undone.
    expect(() =>
      store.transaction(() => {
        store.insertAgent(agent('u', 'wallet-u'), POLICY, { key: 'deploy-2', requestHash: 'h2' });
        throw new Error('stop');
      }),
    ).toThrow('stop');
    expect(store.deployKeyOf(OWNER, 'u')).toBeNull();
  });

  it('agents: one per id and wallet, listed in order, archived apart, and a watch sees money on its way in', () => {
    const store = fresh(make);
    expect(() => store.insertAgent(agent('a', 'w-new'), POLICY)).toThrow();
    expect(() => store.insertAgent(agent('c', 'wallet-a'), POLICY)).toThrow();
    expect(store.listAgents(OWNER).map((a) => a.agentId)).toEqual(['a', 'b']);
    expect(store.archiveAgent(OWNER, 'b', 9)).toBe(true);
    expect(store.archiveAgent(OWNER, 'b', 10)).toBe(false);
    expect(store.listArchivedAgents(OWNER)).toEqual([{ ...agent('b'), archivedAt: 9, status: 'suspended' }]);
    expect(store.findArchivedAgentByWallet('wallet-b')?.agentId).toBe('b');
    expect(store.getPolicy(OWNER, 'a')).toEqual(POLICY);
    // A policy's newer fields, and an agent's status with why and when, are kept as written.
    const full = { ...POLICY, expiresAt: 1234, warnAt: [50], breaker: { refusals: { count: 3, minutes: 5 }, spending: null } };
    store.setPolicy(OWNER, 'a', full, 5);
    expect(store.getPolicy(OWNER, 'a')).toEqual(full);
    store.setAgentStatus(OWNER, 'a', 'suspended', 'its breaker tripped', 6);
    expect(store.getAgent(OWNER, 'a')).toMatchObject({ status: 'suspended', statusReason: 'its breaker tripped', statusChangedAt: 6 });
    expect(store.archiveAgent(OWNER, 'a', 7)).toBe(true);
    expect(store.getAgent(OWNER, 'a')).toMatchObject({ status: 'suspended', statusReason: null, archivedAt: 7 });
    const incoming = store.watchMovesInto(OWNER, 'a', ['wallet-a', '0xBaseOfA']);
    expect(incoming()).toBe(false);
    store.insertTransfer(move('m1', 'allocation', { status: 'confirmed' }));
    expect(incoming()).toBe(true);
    // A payment on its way to the wallet's address on another rail (another agent's, pending) is seen too.
    const toBase = store.watchMovesInto(OWNER, 'b', ['wallet-b', '0xBaseOfB']);
    expect(toBase()).toBe(false);
    store.insertTransfer(pay('p-to-base', { agentId: 'a', recipient: '0xBaseOfB', rail: 'base', status: 'pending' }));
    expect(toBase()).toBe(true);
    // Whoever pays: another owner's agent, its payment reserved since the watch began, settled since.
    store.insertOwner({ address: 'other-owner', createdAt: 0 });
    store.insertAgent({ ...agent('z', 'wallet-z'), owner: 'other-owner' }, POLICY);
    const fromAnyone = store.watchMovesInto(OWNER, 'a', ['wallet-a', '0xBaseOfA']);
    expect(fromAnyone()).toBe(false);
    store.insertTransfer(pay('p-from-other', { owner: 'other-owner', agentId: 'z', recipient: 'wallet-a', status: 'confirmed' }));
    expect(fromAnyone()).toBe(true);
  });

  it("says whether the ledger ever moved USDC into an agent's wallet on a rail, returned or not", () => {
    const store = fresh(make);
    const onBase = (agentId: string, address: string) => store.hasMovedInto(OWNER, agentId, 'base', address);
    expect(onBase('a', '0xBaseOfA')).toBe(false);
    // On another rail, failed, or out of the wallet: none of them.
    store.insertTransfer(move('sol-in', 'allocation', { status: 'confirmed' }));
    store.insertTransfer(move('base-failed', 'allocation', { rail: 'base', status: 'failed' }));
    store.insertTransfer(move('base-out', 'return', { rail: 'base', status: 'confirmed' }));
    store.insertTransfer(pay('a-pays-on-base', { rail: 'base', recipient: 'elsewhere', status: 'confirmed' }));
    expect(onBase('a', '0xBaseOfA')).toBe(false);
    expect(store.hasMovedInto(OWNER, 'a', 'sol', 'wallet-a')).toBe(true);
    // An allocation on Base, pending or confirmed (and returned since: still once funded there).
    store.insertTransfer(move('base-in', 'allocation', { rail: 'base', status: 'pending' }));
    expect(onBase('a', '0xBaseOfA')).toBe(true);
    // A payment to its address there, by any owner's agent; one held for an owner's yes moved nothing yet.
    store.insertAgent(agent('c'), POLICY);
    store.insertTransfer(pay('a-holds-for-c', { rail: 'base', recipient: '0xBaseOfC', status: 'held', txSignature: null }));
    expect(onBase('c', '0xBaseOfC')).toBe(false);
    store.insertOwner({ address: 'other-owner', createdAt: 0 });
    store.insertAgent({ ...agent('z', 'wallet-z'), owner: 'other-owner' }, POLICY);
    store.insertTransfer(
      pay('z-pays-c', { owner: 'other-owner', agentId: 'z', rail: 'base', recipient: '0xBaseOfC', status: 'confirmed' }),
    );
    expect(onBase('c', '0xBaseOfC')).toBe(true);
    // A refund on Base counts where it went into the wallet, not where it was kept in the treasury.
    const refundOf = (id: string, paymentId: string, destination: 'agent' | 'treasury'): TransferRecord => ({
      ...move(id, 'allocation', { agentId: 'b', rail: 'base', status: 'confirmed' }),
      kind: 'refund',
      paymentId,
      taskId: null,
      destination,
    });
    store.insertTransfer(pay('b-pays', { agentId: 'b', rail: 'base', recipient: 'elsewhere', status: 'confirmed' }));
    store.insertTransfer(pay('b-pays-again', { agentId: 'b', rail: 'base', recipient: 'elsewhere', status: 'confirmed' }));
    store.insertTransfer(refundOf('kept', 'b-pays', 'treasury'));
    expect(onBase('b', '0xBaseOfB')).toBe(false);
    store.insertTransfer(refundOf('sent-back', 'b-pays-again', 'agent'));
    expect(onBase('b', '0xBaseOfB')).toBe(true);
  });

  it('approvals move on once; waiting ones expire or are withdrawn (asking to resume excepted)', () => {
    const store = fresh(make);
    const approval = (id: string, kind: ApprovalRecord['kind'], expiresAt = 100): ApprovalRecord => ({
      id,
      owner: OWNER,
      agentId: 'a',
      kind,
      targetAgentId: 'a',
      request: { amount: '1' },
      before: kind === 'policy' ? { dailyBudget: '10.00' } : null,
      paymentId: null,
      status: 'pending',
      result: null,
      error: null,
      errorCode: null,
      createdAt: 1,
      expiresAt,
      decidedAt: null,
      deliveredAt: null,
    });
    store.insertApproval(approval('ap1', 'allocate'));
    store.insertApproval(approval('ap2', 'resume'));
    store.insertApproval(approval('ap3', 'policy', 10));
    expect(store.transitionApproval('ap1', 'pending', 'approved', 5)).toBe(true);
    expect(store.transitionApproval('ap1', 'pending', 'denied', 6)).toBe(false);
    expect(store.interruptedApprovals().map((a) => a.id)).toEqual(['ap1']);
    expect(store.getApproval('ap3')?.before).toEqual({ dailyBudget: '10.00' });
    expect(store.getApproval('ap1')?.before).toBeNull();
    // A policy changed: its waiting requests read against the new one; what was decided, and other kinds, keep theirs.
    store.insertApproval({ ...approval('ap5', 'policy'), status: 'denied' });
    store.setWaitingPolicyBefore(OWNER, 'a', { dailyBudget: '20.00' });
    expect(['ap1', 'ap3', 'ap5'].map((id) => store.getApproval(id)?.before)).toEqual([
      null,
      { dailyBudget: '20.00' },
      { dailyBudget: '10.00' },
    ]);
    expect(store.expireApprovals(10)).toEqual([{ id: 'ap3', owner: OWNER, agentId: 'a', kind: 'policy', paymentId: null }]);
    expect(store.expireApprovals(10)).toEqual([]);
    store.insertApproval(approval('ap4', 'policy'));
    expect(store.withdrawApprovals(OWNER, 'a', 20, 'all-but-resume')).toEqual([
      { id: 'ap4', owner: OWNER, agentId: 'a', kind: 'policy', paymentId: null },
    ]);
    expect(store.listApprovals(OWNER, 'pending', 10).map((a) => a.id)).toEqual(['ap2']);
    // Resumed: asking to be resumed is withdrawn too, and nothing else was left.
    expect(store.withdrawApprovals(OWNER, 'a', 30, 'resume')).toEqual([
      { id: 'ap2', owner: OWNER, agentId: 'a', kind: 'resume', paymentId: null },
    ]);
    expect(store.listApprovals(OWNER, 'pending', 10)).toEqual([]);
    // Stopped again: an x402 purchase approved and not made yet (its payment held) is withdrawn; one
    // made (its payment no longer held) is not.
    const approvedFor = (id: string, paymentId: string) => {
      store.insertTransfer(pay(paymentId, { status: 'held', txSignature: null, txWire: null, lifetimeEnd: null, protocol: 'x402' }));
      store.insertApproval({ ...approval(id, 'payment'), paymentId });
      expect(store.transitionApproval(id, 'pending', 'approved', 40)).toBe(true);
    };
    approvedFor('ap7', 'held-7');
    approvedFor('ap8', 'held-8');
    store.transaction(() => {
      expect(store.releaseHeldPayment('held-8')).toBe(true);
      store.insertTransfer(pay('held-8', { status: 'pending', txSignature: 'sig-8', txWire: 'wire', lifetimeEnd: 9n }));
    });
    expect(store.withdrawApprovals(OWNER, 'a', 50, 'all-but-resume')).toEqual([
      { id: 'ap7', owner: OWNER, agentId: 'a', kind: 'payment', paymentId: 'held-7' },
    ]);
    expect(store.getApproval('ap8')?.status).toBe('approved');
    // One taken back by its agent, on the same terms: waiting, or approved and not bought.
    store.insertApproval(approval('ap9', 'allocate'));
    approvedFor('ap10', 'held-10');
    expect(store.withdrawApproval('ap9', 60)).toEqual({ id: 'ap9', owner: OWNER, agentId: 'a', kind: 'allocate', paymentId: null });
    expect(store.withdrawApproval('ap10', 60)).toEqual({ id: 'ap10', owner: OWNER, agentId: 'a', kind: 'payment', paymentId: 'held-10' });
    expect(store.getApproval('ap10')).toMatchObject({ status: 'withdrawn', decidedAt: 60 });
    for (const id of ['ap8', 'ap9', 'ap1', 'nope']) expect(store.withdrawApproval(id, 70)).toBeNull();
    expect(store.getApproval('ap8')?.status).toBe('approved');
  });

  it('a held payment counts for the budgets, not as paid; taken out, it counts no more and its id can be written again; failed, it is kept', () => {
    const store = fresh(make);
    store.setPolicy(OWNER, 'a', { ...POLICY, budgets: [{ amount: 1_000n, count: null, window: 'day', scope: { kind: 'all' } }] }, 1);
    const held = pay('h1', { status: 'held', txSignature: null, txWire: null, lifetimeEnd: null, recipient: 'shop', memo: 'n1' });
    store.insertTransfer(held);
    store.insertApproval({
      id: 'aph',
      owner: OWNER,
      agentId: 'a',
      kind: 'payment',
      targetAgentId: 'a',
      request: { amount: '0.00001' },
      before: null,
      paymentId: 'h1',
      status: 'pending',
      result: null,
      error: null,
      errorCode: null,
      createdAt: 1_000,
      expiresAt: 5_000,
      decidedAt: null,
      deliveredAt: null,
    });
    expect(store.findApprovalByPayment('h1')?.id).toBe('aph');
    // Counted by the daily window and the budgets; not pending on the wallet, not the last payment, not "paid before".
    expect(store.spentSince(OWNER, 'a', 0)).toBe(10n);
    // The part of that window that waits for the owner's yes (what `coffer status` says apart).
    expect(store.heldSince(OWNER, 'a', 0)).toBe(10n);
    expect(store.heldSince(OWNER, 'a', held.createdAt)).toBe(0n);
    expect(store.heldSince(OWNER, 'b', 0)).toBe(0n);
    // The same for a page of agents (the dashboard's rows and `coffer status --owner`).
    expect(store.spendTotals(OWNER, 0).get('a')).toMatchObject({ spentSince: 10n, heldSince: 10n });
    expect(store.spendTotals(OWNER, 0, ['a']).get('a')).toMatchObject({ spentSince: 10n, heldSince: 10n });
    expect(store.spendTotals(OWNER, held.createdAt, ['a']).get('a')?.heldSince ?? 0n).toBe(0n);
    // Approved, an x402 purchase stays held until the agent buys it: counted still, no longer waiting for the owner.
    expect(store.transitionApproval('aph', 'pending', 'approved', 1_500)).toBe(true);
    expect(store.spentSince(OWNER, 'a', 0)).toBe(10n);
    expect(store.heldSince(OWNER, 'a', 0)).toBe(0n);
    expect(store.spendTotals(OWNER, 0, ['a']).get('a')).toMatchObject({ spentSince: 10n, heldSince: 0n });
    expect(store.budgetSpent(OWNER, 'a', { kind: 'all' }, null)).toEqual({ amount: 10n, payments: 1 });
    expect(store.pendingPaymentsTotal(OWNER, 'a')).toBe(0n);
    expect(store.lastPaymentAt(OWNER, 'a')).toBeNull();
    expect(store.hasPaidRecipient(OWNER, 'a', 'shop')).toBe(false);
    // Its nonce is taken: a second payment for the same 402 is refused while it waits.
    expect(store.findLivePaymentByMemo(OWNER, 'a', 'shop', 'n1')?.id).toBe('h1');
    // Paid: taken out and written again, pending, under the same id, in one write.
    store.transaction(() => {
      expect(store.releaseHeldPayment('h1')).toBe(true);
      expect(store.spentSince(OWNER, 'a', 0)).toBe(0n);
      expect(store.budgetSpent(OWNER, 'a', { kind: 'all' }, null)).toEqual({ amount: 0n, payments: 0 });
      store.insertTransfer({
        ...held,
        status: 'pending',
        txSignature: 'sig-h1',
        txWire: 'wire',
        lifetimeEnd: 9n,
        createdAt: 2_000,
      });
    });
    expect(store.releaseHeldPayment('h1')).toBe(false);
    expect(store.spentSince(OWNER, 'a', 0)).toBe(10n);
    expect(store.heldSince(OWNER, 'a', 0)).toBe(0n);
    expect(store.spendTotals(OWNER, 0).get('a')).toMatchObject({ spentSince: 10n, heldSince: 0n });
    expect(store.budgetSpent(OWNER, 'a', { kind: 'all' }, null)).toEqual({ amount: 10n, payments: 1 });
    expect(store.pendingPaymentsTotal(OWNER, 'a')).toBe(10n);
    expect(store.lastPaymentAt(OWNER, 'a')).toBe(2_000);
    expect(store.hasPaidRecipient(OWNER, 'a', 'shop')).toBe(true);
    expect(store.findApprovalByPayment('h1')?.id).toBe('aph');
    // Another held one that ends: failed with why, counted no more, never written again.
    store.insertTransfer(pay('h2', { status: 'held', txSignature: null, txWire: null, lifetimeEnd: null }));
    expect(store.budgetSpent(OWNER, 'a', { kind: 'all' }, null)).toEqual({ amount: 20n, payments: 2 });
    expect(store.failHeldPayment('h2', 'payment_denied', 3_000)).toBe(true);
    expect(store.failHeldPayment('h2', 'approval_expired', 3_001)).toBe(false);
    expect(store.getPayment('h2')).toMatchObject({ status: 'failed', errorCode: 'payment_denied', settledAt: 3_000 });
    expect(store.budgetSpent(OWNER, 'a', { kind: 'all' }, null)).toEqual({ amount: 10n, payments: 1 });
    expect(store.releaseHeldPayment('h2')).toBe(false);
    // Only a payment is ever held.
    expect(() => store.insertTransfer({ ...move('m9', 'allocation'), status: 'held' })).toThrow();
  });

  it('link sessions: the waiting ones trimmed oldest first, those the owner opened kept', () => {
    const store = fresh(make);
    const session = (n: number): LinkSessionRecord => ({
      tokenHash: `hash-${n}`.padEnd(20, 'x'),
      code: `C${n}`,
      client: {},
      status: 'pending',
      owner: null,
      agentId: null,
      createdAt: n,
      expiresAt: 1_000,
      lastPolledAt: null,
      completedAt: null,
      openedAt: null,
    });
    for (const n of [1, 2, 3, 4]) store.insertLinkSession(session(n));
    store.markLinkSessionOpened(session(1).tokenHash, 5);
    store.trimWaitingLinkSessions(10, 2);
    expect(store.listWaitingLinkSessions(10, 10).map((l) => l.code)).toEqual(['C4', 'C1']);
    expect(store.completeLinkSession(session(4).tokenHash, OWNER, 'a', 11)).toBe(true);
    expect(store.completeLinkSession(session(4).tokenHash, OWNER, 'a', 12)).toBe(false);
    expect(store.clearWaitingLinkSessions([session(1).tokenHash.slice(0, 16)])).toBe(1);
    expect(store.listWaitingLinkSessions(10, 10)).toEqual([]);
  });

  it("notices: when each was told, per agent, until its agent's are forgotten", () => {
    const store = fresh(make);
    expect(store.noticeToldAt(OWNER, 'a', 'expiry')).toBeNull();
    store.recordNotice(OWNER, 'a', 'expiry', 10);
    store.recordNotice(OWNER, 'a', 'budget:daily:80', 11);
    store.recordNotice(OWNER, 'b', 'expiry', 12);
    store.recordNotice(OWNER, 'a', 'expiry', 13);
    expect(store.noticeToldAt(OWNER, 'a', 'expiry')).toBe(13);
    store.forgetNotices(OWNER, 'a');
    expect([store.noticeToldAt(OWNER, 'a', 'expiry'), store.noticeToldAt(OWNER, 'a', 'budget:daily:80')]).toEqual([null, null]);
    expect(store.noticeToldAt(OWNER, 'b', 'expiry')).toBe(12);
  });

  it('listings searched beside the catalog: none until given, replaced whole, found by prefix words, all by name for no words', () => {
    const store = fresh(make);
    const listing = (id: string, name: string, description = 'a paid API', category = 'x402 api') => ({ id, name, description, category });
    expect(store.searchListings('', 10)).toEqual({ ids: [], total: 0, totalIsCapped: false });
    store.replaceSearchListings([
      listing('bazaar:b:1', 'Tide tables', 'High and low water'),
      listing('bazaar:a:2', 'Forecast API', 'Ten-day weather forecast', 'weather'),
      listing('bazaar:c:3', 'Ticker', 'Stock quotes', 'finance'),
    ]);
    // The ranking is the SQLite adapter's alone: the ids found are compared as a set.
    const found = (query: string, limit = 10) => {
      const answer = store.searchListings(query, limit);
      return { ...answer, ids: [...answer.ids].sort() };
    };
    // Every word a prefix of a word of the name, description, category or id; any word; any case.
    expect(found('WEATH')).toEqual({ ids: ['bazaar:a:2'], total: 1, totalIsCapped: false });
    expect(found('tick water')).toEqual({ ids: ['bazaar:b:1', 'bazaar:c:3'], total: 2, totalIsCapped: false });
    expect(found('finance')).toMatchObject({ ids: ['bazaar:c:3'] });
    expect(found('bazaar', 2)).toMatchObject({ total: 3 });
    expect(store.searchListings('bazaar', 2).ids).toHaveLength(2);
    expect(found('nothing here')).toEqual({ ids: [], total: 0, totalIsCapped: false });
    // No words: every listing, by name.
    expect(store.searchListings('  !! ', 2)).toEqual({ ids: ['bazaar:a:2', 'bazaar:c:3'], total: 3, totalIsCapped: false });
    // They are not the catalog's services.
    expect(store.searchServices('forecast', 10)).toMatchObject({ results: [], total: 0 });

    store.replaceSearchListings([listing('bazaar:d:4', 'Quotes', 'Stock quotes')]);
    expect(found('stock')).toEqual({ ids: ['bazaar:d:4'], total: 1, totalIsCapped: false });
    expect(found('')).toMatchObject({ ids: ['bazaar:d:4'], total: 1 });
    store.replaceSearchListings([]);
    expect(found('')).toEqual({ ids: [], total: 0, totalIsCapped: false });
  });

  it("rail wallets: one address per wallet and rail, an address one wallet's, found from either side", () => {
    const store = fresh(make);
    store.insertRailWallet('wallet-a', 'base', '0xA');
    store.insertRailWallet(OWNER, 'base', '0xO');
    expect(() => store.insertRailWallet('wallet-a', 'base', '0xB')).toThrow();
    expect(() => store.insertRailWallet('wallet-b', 'base', '0xA')).toThrow();
    expect(store.railWallets('base', ['wallet-a', 'wallet-b', OWNER, 'wallet-a'])).toEqual(
      new Map([
        ['wallet-a', '0xA'],
        [OWNER, '0xO'],
      ]),
    );
    expect(store.walletOfRailAddress('base', '0xA')).toBe('wallet-a');
    expect(store.walletOfRailAddress('base', '0xa')).toBeNull();
    expect(store.walletOfRailAddress('base', '0xB')).toBeNull();
  });

  it('refusals keep the latest few; the audit log reads newest first', () => {
    const store = fresh(make);
    for (const n of [1, 2, 3]) {
      store.recordRefusal(
        { owner: OWNER, agentId: 'a', service: 's', amount: '1', rail: n === 2 ? 'base' : null, code: `c${n}`, message: 'm', at: n },
        { perOwner: 2, perAgent: 2 },
      );
      store.appendAudit({ at: n, actor: 'owner', owner: OWNER, agentId: null, action: `a${n}`, detail: { n } });
    }
    expect(store.recentRefusals(OWNER, 10).map((r) => [r.code, r.rail])).toEqual([
      ['c3', null],
      ['c2', 'base'],
    ]);
    expect(store.listAudit(OWNER, 2).map((entry) => entry.action)).toEqual(['a3', 'a2']);
  });

  it('refusals keep at most an agent’s share of the owner’s latest, its own oldest dropped first', () => {
    const store = fresh(make);
    const refused = (agentId: string, n: number, owner = OWNER) =>
      store.recordRefusal(
        { owner, agentId, service: 's', amount: String(n), rail: 'sol', code: 'c', message: 'm', at: n },
        { perOwner: 5, perAgent: 2 },
      );
    refused('quiet', 1);
    refused('quiet', 2);
    for (let n = 3; n <= 9; n++) refused('loud', n);
    refused('loud', 10, OTHER_OWNER);
    refused('loud', 11, OTHER_OWNER);
    refused('loud', 12, OTHER_OWNER);
    expect(store.recentRefusals(OWNER, 10).map((r) => [r.agentId, r.amount])).toEqual([
      ['loud', '9'],
      ['loud', '8'],
      ['quiet', '2'],
      ['quiet', '1'],
    ]);
    expect(store.recentRefusals(OTHER_OWNER, 10).map((r) => r.amount)).toEqual(['12', '11']);
    for (const agentId of ['b', 'c', 'd', 'e']) refused(agentId, 20);
    // The owner's five latest, whoever's.
    expect(store.recentRefusals(OWNER, 10).map((r) => r.agentId)).toEqual(['e', 'd', 'c', 'b', 'loud']);
  });
});
