import { afterEach, describe, expect, it, vi } from 'vitest';
import { STORES, coreEngine, type CoreEngine, type StoreKind } from '../../../fixtures/core-engine.js';
import { randomAddress } from '../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../helpers/expect-error.js';
import { KNOWN_FOR_MS } from '../../../../server/core/wallet-balance.js';
import { isCofferError } from '../../../../server/wire/errors.js';
import { Rng } from '../../../probe/lib/rng.js';

/**
 * A payment is judged by the wallet's last balance read, less what Coffer confirmed leaving it since
 * (server/core/wallet-balance.ts): the chain is read only where that would refuse, or is old.
 */
const SELLER = randomAddress();
const URL_PAID = 'https://api.example.test/forecast';
const outside = (amount: string) => ({ service: 'forecast-api', recipient: SELLER, amount });

let core: CoreEngine;
afterEach(() => core?.close());

async function started(store: StoreKind, funds: string): Promise<{ wallet: string }> {
  core = await coreEngine({ store, treasury: '1000' });
  core.chain.mint(SELLER, 1n);
  const agent = await core.fundedAgent('alpha', funds, { dailyBudget: '1000', maxPerPayment: '100' });
  return { wallet: agent.walletAddress };
}
const reads = () => core.chain.calls.get('usdcBalance') ?? 0;
const pay = (amount: string, key: string | null = null) => core.engine.pay(core.asAgent('alpha'), 'alpha', outside(amount), key);
let memos = 0;
const buy = (amount: bigint) =>
  core.x402Paid('alpha', { url: URL_PAID, status: 402 as const, ...core.x402.answer402(SELLER, amount, `m${(memos += 1)}`) });
/** The seller settles an x402 payment and says so; Coffer confirms it. */
async function settled(paid: { paymentId: string; header: { value: string } | null }) {
  const landed = core.chain.settleForSeller(paid.header!.value);
  await core.engine.reportX402Settlement(core.asAgent('alpha'), 'alpha', paid.paymentId, { 'payment-response': landed });
}

describe.each(STORES)('on the %s ledger', (store) => {
  it('pays from the kept reading, less what was confirmed leaving the wallet since: the chain is not read again', async () => {
    await started(store, '1');
    await pay('0.3');
    const afterFirst = reads();
    await pay('0.3');
    await pay('0.4');
    expect(reads()).toBe(afterFirst);
    // The reading (1.00) less the 0.60 and 0.40 confirmed since: nothing is left, and the chain agrees.
    await expectCofferError(pay('0.01'), 'insufficient_funds');
    expect(reads()).toBe(afterFirst + 1);
    expect(core.ledgerBalance('alpha')).toBe(0n);
  });

  it('where the reading would refuse, reads the chain again: money that came in since is paid from', async () => {
    const { wallet } = await started(store, '0.1');
    await pay('0.06');
    const before = reads();
    core.chain.mint(wallet, 100_000n);
    expect((await pay('0.08')).kind).toBe('done');
    expect(reads()).toBe(before + 1);
    await expectCofferError(pay('0.07'), 'insufficient_funds');
    expect(reads()).toBe(before + 2);
  });

  it('reads again once the reading is KNOWN_FOR_MS old, or the clock was set back', async () => {
    await started(store, '1');
    await pay('0.01');
    const before = reads();
    core.advance(KNOWN_FOR_MS - 1);
    await pay('0.01');
    expect(reads()).toBe(before);
    core.advance(1);
    await pay('0.01');
    expect(reads()).toBe(before + 1);
    core.advance(-1);
    await pay('0.01');
    expect(reads()).toBe(before + 2);
  });

  it('an x402 payment pending at the reading and confirmed after it is taken off once', async () => {
    await started(store, '1');
    const first = await buy(400_000n);
    await settled(first);
    const before = reads();
    // 1.00 read with 0.40 pending, the 0.40 confirmed since: 0.60 free.
    const second = await buy(500_000n);
    expect(reads()).toBe(before);
    // 0.60 less the 0.50 pending: 0.10 free, read again, and refused by what the chain says.
    await expectCofferError(buy(200_000n), 'insufficient_funds');
    expect(reads()).toBe(before + 1);
    await settled(second);
    expect((await buy(100_000n)).status).toBe('pending');
    expect(await core.chain.usdcBalance(core.store.getAgent(core.owner, 'alpha')!.walletAddress)).toBe(100_000n);
  });

  it('a payment whose reading another payment outran is refused in its reservation, before anything is sent', async () => {
    await started(store, '0.05');
    const release = core.chain.pauseNextPrepare();
    const prepared = core.chain.calls.get('prepareTransfer') ?? 0;
    const first = pay('0.04', 'k');
    await vi.waitUntil(() => (core.chain.calls.get('prepareTransfer') ?? 0) > prepared);
    const sends = core.chain.calls.get('submitTransfer') ?? 0;
    // Read with the first's (0.05, nothing pending) and paid in full while the first is signed.
    await pay('0.02');
    release();
    await expectCofferError(first, 'insufficient_funds');
    expect(core.chain.calls.get('submitTransfer')).toBe(sends + 1);
    expect(core.store.listPayments(core.owner, 'alpha', 10).map((row) => row.status)).toEqual(['confirmed']);
  });

  it("counts what left by the ledger's order, not the clock: a clock set back and caught up again hides no payment", async () => {
    await started(store, '1');
    await pay('0.10');
    core.advance(-5_000);
    // Paid while the clock is behind: its confirmation is dated before the reading kept.
    expect((await pay('0.85')).kind).toBe('done');
    core.advance(5_001);
    // Refused on what the wallet holds (0.05), before anything is sent.
    const sends = core.chain.calls.get('submitTransfer') ?? 0;
    await expectCofferError(pay('0.85'), 'insufficient_funds');
    expect(core.chain.calls.get('submitTransfer')).toBe(sends);
    expect(core.ledgerBalance('alpha')).toBe(50_000n);
  });

  it('a payment pending at the reading and confirmed while the clock is set back is still taken off', async () => {
    await started(store, '1');
    const pending = await buy(400_000n);
    core.advance(-5_000);
    await settled(pending);
    core.advance(5_001);
    const before = reads();
    // 1.00 read, 0.40 gone since: 0.60 free, so 0.70 is read again and refused.
    await expectCofferError(buy(700_000n), 'insufficient_funds');
    expect(reads()).toBe(before + 1);
  });

  it('refused in its reservation on a kept reading, a payment is judged again on a fresh read: money that came in is paid from', async () => {
    const { wallet } = await started(store, '0.1');
    await pay('0.01');
    // 5.00 comes in; the kept reading (0.10) does not know it, and covers each of these alone.
    core.chain.mint(wallet, 5_000_000n);
    const both = await Promise.all([pay('0.08'), pay('0.05')]);
    expect(both.map((outcome) => outcome.kind)).toEqual(['done', 'done']);
    expect(core.store.listPayments(core.owner, 'alpha', 10).filter((row) => row.status === 'confirmed')).toHaveLength(3);
  });

  it('a payment the chain refuses for want of funds drops the reading kept: the next one reads the chain', async () => {
    const { wallet } = await started(store, '0.05');
    await pay('0.01');
    // Money leaves behind Coffer's back (the wallet's key used elsewhere): the reading cannot see it.
    core.chain.settleForSeller(core.chain.signForSeller(wallet, core.owner, 30_000n, null).txWire);
    const sends = core.chain.calls.get('submitTransfer') ?? 0;
    const readsBefore = reads();
    await expectCofferError(pay('0.02'), 'insufficient_funds');
    // Refused by the chain, on the kept reading: sent once, not read again nor retried.
    expect(core.chain.calls.get('submitTransfer')).toBe(sends + 1);
    expect(reads()).toBe(readsBefore);
    const before = reads();
    await expectCofferError(pay('0.02'), 'insufficient_funds');
    expect(reads()).toBe(before + 1);
    expect(core.chain.calls.get('submitTransfer')).toBe(sends + 1);
  });

  it('judges each payment as a fresh read of the chain would, whatever came before (seeded runs)', async () => {
    for (const seed of [1, 2, 3]) {
      const { wallet } = await started(store, '2');
      const rng = new Rng(seed);
      const pending: { paymentId: string; header: { value: string } | null }[] = [];
      for (let step = 0; step < 150; step++) {
        const what = rng.int(0, 9);
        if (what <= 4) {
          const amount = rng.bigint(1n, 900_000n);
          // What a fresh read would leave free: the chain's balance less every payment pending.
          const free = (await core.chain.usdcBalance(wallet)) - core.store.pendingPaymentsTotal(core.owner, 'alpha', 'sol');
          const outcome = await buy(amount).then(
            (paid) => paid,
            (error: unknown) => {
              if (isCofferError(error) && error.code === 'insufficient_funds') return null;
              throw error;
            },
          );
          expect({ seed, step, paid: outcome !== null }).toEqual({ seed, step, paid: free >= amount });
          if (outcome !== null) pending.push(outcome);
        } else if (what <= 6 && pending.length > 0) {
          await settled(pending.splice(rng.int(0, pending.length - 1), 1)[0]!);
        } else if (what === 7) {
          core.chain.mint(wallet, rng.bigint(1n, 500_000n));
        } else if (what === 8) {
          core.advance(rng.int(0, KNOWN_FOR_MS / 3));
        } else if (pending.length > 0 && rng.chance(0.3)) {
          // What is pending can no longer land: it fails, and its money was never gone.
          core.chain.advanceBlocks(151n);
          await core.engine.reconcile();
          pending.length = 0;
        }
      }
      core.close();
    }
  });
});
