import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import type { Engine } from '../../../../../server/core/engine.js';

/**
 * The race of held payments (issue 26), as a property on both ledgers: any interleaving of payments
 * held and paid at once, approvals (twice at once too), denials, kills and resumes, threshold changes,
 * time passing (requests expiring) and restarts. Afterwards, whatever happened: every payment landed
 * at most once; none whose request was denied, expired or withdrawn was paid; every paid one was
 * within the daily budget in its window; and the ledger equals the chain.
 */
const SELLER = randomAddress();
const HOUR = 3_600_000;
const DAILY = 10_000_000n;

// Paying and approving most often, so that runs hold, approve and pay a lot between the brakes.
const op = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('pay' as const), cents: fc.integer({ min: 10, max: 400 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('approve' as const), pick: fc.nat(), twice: fc.boolean() }), weight: 4 },
  fc.record({ kind: fc.constant('deny' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('kill' as const) }),
  fc.record({ kind: fc.constant('resume' as const) }),
  fc.record({ kind: fc.constant('threshold' as const), cents: fc.option(fc.integer({ min: 0, max: 300 }), { nil: null }) }),
  fc.record({ kind: fc.constant('time' as const), hours: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('restart' as const) }),
);
/** Operations in batches: the operations of a batch run at once. */
const batches = fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 12 });

const usdc = (cents: number) => (cents / 100).toFixed(2);

let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('held payments under any interleaving, on the %s ledger', (store) => {
  it('pay at most once, never after a deny, an expiry or a kill, never past the budget; ledger == chain', async () => {
    let checked = 0;
    const seen = { approved: 0, ended: 0 };
    await fc.assert(
      fc.asyncProperty(batches, async (plan) => {
        core?.close();
        core = await coreEngine({ store, treasury: '1000' });
        core.chain.mint(SELLER, 1n);
        await core.fundedAgent('alpha', '30', { dailyBudget: usdc(Number(DAILY / 10_000n)), maxPerPayment: '4', askAbove: '1' });
        let engine: Engine = core.engine;
        const asAgent = core.asAgent('alpha');
        for (const batch of plan) {
          const pending = () => engine.approvals(core.asOwner, 'pending').approvals.filter((a) => a.kind === 'payment');
          const running = batch.map(async (step) => {
            switch (step.kind) {
              case 'pay':
                return engine.pay(asAgent, 'alpha', { service: 'forecast-api', recipient: SELLER, amount: usdc(step.cents) }, null);
              case 'approve': {
                const waiting = pending();
                const chosen = waiting[step.pick % Math.max(1, waiting.length)];
                if (chosen === undefined) return null;
                const approving = engine.approve(core.asOwner, chosen.approvalId);
                return step.twice ? Promise.allSettled([approving, engine.approve(core.asOwner, chosen.approvalId)]) : approving;
              }
              case 'deny': {
                const waiting = pending();
                const chosen = waiting[step.pick % Math.max(1, waiting.length)];
                return chosen === undefined ? null : engine.deny(core.asOwner, chosen.approvalId);
              }
              case 'kill':
                return engine.kill(core.asOwner, 'alpha');
              case 'resume':
                return engine.resume(core.asOwner, 'alpha');
              case 'threshold':
                return engine.updatePolicy(core.asOwner, 'alpha', { askAbove: step.cents === null ? null : usdc(step.cents) });
              case 'time':
                core.advance(step.hours * HOUR);
                return engine.expireWaiting();
              case 'restart':
                return null;
            }
          });
          await Promise.allSettled(running);
          if (batch.some((step) => step.kind === 'restart')) {
            engine = core.restart();
            await engine.reconcile();
            await engine.recoverApprovals();
          }
        }
        await engine.reconcile();
        checked += 1;

        const payments = core.store.listPayments(core.owner, 'alpha', 1_000);
        const approvals = engine.approvals(core.asOwner, null).approvals.filter((a) => a.kind === 'payment');
        const byId = new Map(payments.map((p) => [p.id, p]));
        for (const approval of approvals) {
          if (approval.status === 'approved') seen.approved += 1;
          if (['denied', 'expired', 'withdrawn'].includes(approval.status)) seen.ended += 1;
          const payment = byId.get(approval.paymentId!);
          if (['denied', 'expired', 'withdrawn'].includes(approval.status)) expect(payment?.status).toBe('failed');
          if (approval.status === 'approved') expect(payment?.status).toBe('confirmed');
          if (approval.status === 'pending') expect(payment?.status).toBe('held');
        }
        // Within the daily budget in every 24 h window that ends at a payment.
        const confirmed = payments.filter((p) => p.status === 'confirmed');
        for (const p of confirmed) {
          const inWindow = confirmed.filter((q) => q.createdAt > p.createdAt - 24 * HOUR && q.createdAt <= p.createdAt);
          expect(inWindow.reduce((sum, q) => sum + q.amount, 0n)).toBeLessThanOrEqual(DAILY);
        }
        // Ledger == chain: what the wallet lost is what the ledger says was paid, each payment once.
        const wallet = core.store.getAgent(core.owner, 'alpha')!.walletAddress;
        expect(await core.chain.usdcBalance(wallet)).toBe(core.ledgerBalance('alpha'));
        const paid = confirmed.reduce((sum, p) => sum + p.amount, 0n);
        expect(await core.chain.usdcBalance(SELLER)).toBe(1n + paid);
      }),
      { numRuns: 30 },
    );
    expect(checked).toBe(30);
    // Not vacuous: payments were approved and paid, and others ended unpaid. (Counted over random
    // plans: 13 to 33 of each in eight runs, and 4 once; a threshold of 5 failed a run by chance.)
    expect(seen.approved).toBeGreaterThan(0);
    expect(seen.ended).toBeGreaterThan(0);
  });
});
