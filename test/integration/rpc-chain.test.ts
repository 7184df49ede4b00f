import { paymentRow } from '../fixtures/transfer-rows.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startCoffer, deployAgent, micro } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { startChainWatch } from '../../server/boot/chain-watch.js';
import { decodeReceipt } from '../../server/wire/receipts.js';
import { newId } from '../../server/core/ids.js';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';
import { address } from '@solana/kit';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { openPaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { createPaywall } from '../../server/x402/paywall/paywall.js';
import { rpcTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { json } from '../helpers/serve-process.js';

/**
 * The RPC adapter against a local JSON-RPC server that speaks Solana's protocol over LiteSVM (the
 * only "remote cluster" this machine can reach): real transactions, real confirmation polling.
 */
describe('Coffer on an RPC network', () => {
  let rpc: TestCluster;
  /** A paid API outside the registry (any price goes), holding a USDC account on the cluster. */
  const SELLER = 'CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx';
  beforeAll(async () => {
    rpc = await new TestCluster().start();
  });
  afterAll(async () => rpc.stop());
  const t = useCoffer(() => ({ network: rpc.url, usdcMint: rpc.mint.address }));
  beforeAll(async () => {
    rpc.airdrop(t.owner);
    await rpc.depositFromOutside(SELLER, 1n);
  });

  it('names the network, and has no faucet', async () => {
    expect((await t.api('GET', '/v1/health')).body.network).toBe('localnet');
    const faucet = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '5' } });
    expectError(faucet, 404, 'not_sim');
  });

  it('records USDC sent to the treasury from outside as a deposit, once', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      const { signature, from } = await rpc.depositFromOutside(t.owner, micro('250'));
      await watch.tick();
      await watch.tick();
      const { body } = await t.api('GET', t.withOwner('/v1/treasury/deposits'));
      expect(body.deposits).toHaveLength(1);
      expect(body.deposits[0]).toMatchObject({ txSignature: signature, from, amount: '250.00', currency: 'USDC' });
      const dashboard = await t.api('GET', t.withOwner('/v1/dashboard'));
      expect(dashboard.body.treasury.amount).toBe('250000000');
    } finally {
      await watch.stop();
    }
  });

  it('without an image provider, generation is 503 provider_unavailable and charges nothing (no sim images off the sim chain)', async () => {
    await deployAgent(t, 'no-images', { dailyBudget: '10', maxPerPayment: '2' });
    expect((await t.api('POST', t.withOwner('/v1/agents/no-images/allocate'), { body: { amount: '1' } })).status).toBe(200);
    const response = await t.api('POST', t.withOwner('/v1/agents/no-images/generate'), {
      body: { prompt: 'x', modelId: 'sdxl', resolution: '1k' },
    });
    expectError(response, 503, 'provider_unavailable');
    expect((await t.api('GET', t.withOwner('/v1/agents/no-images/balance'))).body.balance).toBe('1.00');
    expect((await t.api('GET', '/sim-images/0123456789abcdef01234567.svg?model=sdxl&resolution=1k', { key: null })).status).toBe(404);
  });

  it('allocates and pays with real transactions, confirmed by polling, and the receipt is on chain', async () => {
    const agent = await deployAgent(t, 'remote', { dailyBudget: '10', maxPerPayment: '2' });
    const allocation = await t.api('POST', t.withOwner('/v1/agents/remote/allocate'), { body: { amount: '5' } });
    expect(allocation.status).toBe(200);
    expect(allocation.body.balance).toBe('5.00');
    const seller = '7GrTWVNqLDmdBYR4X5WDpyqPhWUQjrun1cSFoFjNPw6Z';
    const payBody = { service: 'my-api', recipient: seller, amount: '1.25', currency: 'USDC', nonce: 'n-1' };
    // An unlisted recipient without a USDC account is refused: the treasury does not pay its rent.
    const notReady = await pay(t, 'remote', agent.apiKey, payBody);
    expectError(notReady, 409, 'recipient_not_ready');
    await rpc.depositFromOutside(seller, 1n); // the seller opens its USDC account
    const paid = await pay(t, 'remote', agent.apiKey, payBody);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('confirmed');
    const receipt = decodeReceipt(paid.body.xPaymentHeader)!;
    expect(receipt.network).toBe('localnet');
    expect(await t.coffer.chain.findTransfer(receipt.txSignature)).toMatchObject({
      succeeded: true,
      amount: micro('1.25'),
      memo: 'n-1',
      toTokenAccount: await usdcTokenAccount(address(rpc.mint.address), address(seller)),
      from: agent.walletAddress,
    });
    expect(rpc.calls.get('getSignatureStatuses')).toBeGreaterThan(0);
    expect((await t.api('GET', t.withOwner('/v1/agents/remote/balance'))).body.balance).toBe('3.75');
    // The treasury's own allocation is not mistaken for a deposit.
    await startChainWatch(t.coffer, () => undefined, 60_000).stop();
    expect((await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits).toHaveLength(1);
  });

  it('reconciles: a sent transaction that landed is confirmed, one whose blockhash expired unsent is failed', async () => {
    const agent = await deployAgent(t, 'crashed', { dailyBudget: '10', maxPerPayment: '2' });
    await t.api('POST', t.withOwner('/v1/agents/crashed/allocate'), { body: { amount: '3' } });
    const { store, chain } = t.coffer.engine.ctx;
    const stage = async (amount: bigint) => {
      const id = newId('pay');
      const prepared = await chain.prepareTransfer({
        from: agent.walletAddress,
        to: t.owner,
        amount,
        memo: id,
        reference: id,
        feePayer: t.owner,
        createRecipientAccount: true,
      });
      store.insertTransfer(
        paymentRow({
          id,
          owner: t.owner,
          agentId: 'crashed',
          serviceId: 'x',
          serviceName: 'x',
          amount,
          ...prepared,
          createdAt: Date.now(),
        }),
      );
      return { id, prepared };
    };
    // As if the process died right after sending the first and right before sending the second.
    const landed = await stage(micro('1'));
    rpc.sendWire(landed.prepared.txWire);
    const unsent = await stage(micro('0.5'));

    const events: unknown[] = [];
    const unsubscribe = t.coffer.engine.events.subscribe((event) => event.type === 'payment' && events.push(event));
    const first = await t.coffer.engine.reconcile();
    unsubscribe();
    // A payment settled by reconciliation is announced like any other: its amount and its service.
    expect(events).toEqual([expect.objectContaining({ paymentId: landed.id, status: 'confirmed', amount: '1.00', service: 'x' })]);
    // The unsent one may still land while its blockhash is valid: it is re-sent and stays pending...
    expect(first).toEqual({ confirmed: 1, failed: 0, stillPending: 1 });
    expect(store.getPayment(landed.id)?.status).toBe('confirmed');
    expect(store.getPayment(unsent.id)?.status).toBe('pending');
    // ...until the chain says it landed, exactly once.
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 1, failed: 0, stillPending: 0 });
    expect(store.getPayment(unsent.id)?.status).toBe('confirmed');
    expect((await t.api('GET', t.withOwner('/v1/agents/crashed/balance'))).body.balance).toBe('1.50');

    const expired = await stage(micro('0.25'));
    rpc.advanceBlocks(300);
    const report = await t.coffer.engine.reconcile();
    expect(report).toEqual({ confirmed: 0, failed: 1, stillPending: 0 });
    expect(store.getPayment(expired.id)).toMatchObject({ status: 'failed', errorCode: 'dropped' });
    expect((await t.api('GET', t.withOwner('/v1/agents/crashed/balance'))).body.balance).toBe('1.50');
  });

  it('a transaction the cluster rejects is 502 chain_rejected: recorded as failed, no money moved, no budget used', async () => {
    const agent = await deployAgent(t, 'refused', { dailyBudget: '1.00', maxPerPayment: '1.00' });
    await t.api('POST', t.withOwner('/v1/agents/refused/allocate'), { body: { amount: '2' } });
    const payOne = () => pay(t, 'refused', agent.apiKey, { service: 'test-api', recipient: SELLER, amount: '1.00', currency: 'USDC' });
    rpc.rejectNextSend = '0x11'; // the token program's "account is frozen"
    const rejected = await payOne();
    expectError(rejected, 502, 'chain_rejected');
    const history = await t.api('GET', t.withOwner('/v1/agents/refused/spend-history'));
    expect(history.body.payments).toHaveLength(1);
    expect(history.body.payments[0].status).toBe('failed');
    expect((await t.api('GET', t.withOwner('/v1/agents/refused/balance'))).body.balance).toBe('2.00');
    // A failed payment does not count toward the daily budget: the full budget is still there.
    expect((await payOne()).status).toBe(200);
    expect((await t.api('GET', t.withOwner('/v1/agents/refused/balance'))).body.balance).toBe('1.00');

    rpc.rejectNextSend = '0x1'; // the token program's "insufficient funds", should the ledger ever disagree
    const short = await t.api('POST', t.withOwner('/v1/agents/refused/allocate'), { body: { amount: '1' } });
    expectError(short, 402, 'insufficient_treasury_funds');
  });

  it('a payment whose transaction expires unseen while Coffer waits for it moved nothing: 502 transaction_expired, and its Idempotency-Key pays on the retry', async () => {
    await rpc.depositFromOutside(t.owner, micro('2'));
    const agent = await deployAgent(t, 'expired-wait', { dailyBudget: '10', maxPerPayment: '2' });
    expect((await t.api('POST', t.withOwner('/v1/agents/expired-wait/allocate'), { body: { amount: '2' } })).status).toBe(200);
    const payOnce = () =>
      pay(
        t,
        'expired-wait',
        agent.apiKey,
        { service: 'test-api', recipient: SELLER, amount: '0.50', currency: 'USDC' },
        { 'idempotency-key': 'expires-1' },
      );
    rpc.dropNextSend = true;
    const paying = payOnce();
    await new Promise((resolve) => setTimeout(resolve, 300));
    rpc.advanceBlocks(300); // its blockhash is past: it can never land
    const expired = await paying;
    expect({ status: expired.status, code: expired.body.code }).toEqual({ status: 502, code: 'transaction_expired' });
    expect(expired.body.error).toMatch(/nothing moved/);
    expect((await t.api('GET', t.withOwner('/v1/agents/expired-wait/balance'))).body.balance).toBe('2.00');
    const paid = await payOnce();
    expect(paid.status).toBe(200);
    expect((await payOnce()).body.paymentId).toBe(paid.body.paymentId);
    expect((await t.api('GET', t.withOwner('/v1/agents/expired-wait/balance'))).body.balance).toBe('1.50');
  });

  it('a payment whose confirmation is cut off stays pending, is replayed as such, and is settled by the chain watch', async () => {
    const agent = await deployAgent(t, 'cutoff', { dailyBudget: '10', maxPerPayment: '2' });
    await t.api('POST', t.withOwner('/v1/agents/cutoff/allocate'), { body: { amount: '2' } });
    const payOnce = () =>
      pay(
        t,
        'cutoff',
        agent.apiKey,
        { service: 'test-api', recipient: SELLER, amount: '0.50', currency: 'USDC' },
        { 'idempotency-key': 'cut-1' },
      );
    rpc.offlineAfterNextSend = true;
    const first = await payOnce();
    expectError(first, 502, 'chain_unavailable');
    const again = await payOnce();
    expect(again.status).toBe(502);
    expect(again.headers.get('retry-after')).toBe('15');
    // The pending payment holds its place in the budget and the balance while its fate is unknown.
    const rows = t.coffer.db.prepare("SELECT status FROM payments WHERE agent_id = 'cutoff'").pluck().all();
    expect(rows).toEqual(['pending']);

    rpc.offline = false;
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    await watch.tick();
    await watch.stop();
    const settled = await payOnce();
    expect(settled.status).toBe(200);
    expect(settled.body.status).toBe('confirmed');
    expect((await payOnce()).body.paymentId).toBe(settled.body.paymentId);
    expect((await t.api('GET', t.withOwner('/v1/agents/cutoff/balance'))).body.balance).toBe('1.50');
  });

  it('the chain watch never settles a payment that is being sent right now', async () => {
    const agent = await deployAgent(t, 'in-flight', { dailyBudget: '1.00', maxPerPayment: '1.00' });
    await t.api('POST', t.withOwner('/v1/agents/in-flight/allocate'), { body: { amount: '3' } });
    rpc.delays.set('getLatestBlockhash', 300);
    try {
      const payOne = () => pay(t, 'in-flight', agent.apiKey, { service: 'test-api', recipient: SELLER, amount: '1.00', currency: 'USDC' });
      const paying = payOne();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const report = await t.coffer.engine.reconcile(); // what the 15 s chain watch does
      expect(report).toEqual({ confirmed: 0, failed: 0, stillPending: 0 });
      const paid = await paying;
      expect(paid.status).toBe(200);
      expect(paid.body.status).toBe('confirmed');
      expect(paid.body.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/);
      // The budget holds: the next payment is refused, and exactly 1.00 left the wallet.
      expect((await payOne()).body.code).toBe('daily_budget_exceeded');
      expect((await t.api('GET', t.withOwner('/v1/agents/in-flight/balance'))).body.balance).toBe('2.00');
    } finally {
      rpc.delays.clear();
    }
  });

  it('a paid API verifies receipts straight from the RPC (no Coffer server, no keys)', async () => {
    const agent = await deployAgent(t, 'rpc-buyer', { dailyBudget: '1', maxPerPayment: '1' });
    await t.api('POST', t.withOwner('/v1/agents/rpc-buyer/allocate'), { body: { amount: '1' } });
    const store = openPaywallStore(':memory:');
    const api = express();
    const wall = createPaywall({
      recipient: '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx',
      lookup: await rpcTransferLookup(rpc.url, rpc.mint.address),
      store,
    });
    api.get('/data', wall.require({ price: '0.01', description: 'data', service: 'demo-weather' }), (_req, res) => res.json({ ok: true }));
    const server = api.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data`;
    try {
      const terms = await json(fetch(url));
      expect(terms).toMatchObject({ network: 'localnet', currency: 'USDC', amount: '0.01' });
      const paid = await pay(t, 'rpc-buyer', agent.apiKey, {
        service: 'demo-weather',
        amount: '0.01',
        currency: 'USDC',
        nonce: terms.nonce,
      });
      expect(paid.status).toBe(200);
      const ok = await fetch(url, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect(ok.status).toBe(200);
      const again = await fetch(url, { headers: { 'x-payment': paid.body.xPaymentHeader } });
      expect((await json(again)).code).toBe('receipt_already_used');
    } finally {
      server.close();
      server.closeAllConnections();
      store.close();
    }
  });

  it('sees a deposit whatever its shape: the older Transfer, several transfers in one transaction, a relayer paying the fee', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      const before = (await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits.length;
      const plain = await rpc.depositFromOutside(t.owner, micro('12.5'), 'transfer');
      const split = await rpc.depositFromOutside(t.owner, micro('30'), 'split');
      await watch.tick();
      const { deposits } = (await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body;
      expect(deposits).toHaveLength(before + 2);
      // Newest first; the split deposit is one deposit of its whole amount, from the sender, not the relayer.
      expect(deposits[0]).toMatchObject({ txSignature: split.signature, from: split.from, amount: '30.00' });
      expect(deposits[1]).toMatchObject({ txSignature: plain.signature, from: plain.from, amount: '12.50' });
    } finally {
      await watch.stop();
    }
  });

  it('reads every deposit since the last round, past one page of 1,000 signatures, at most 200 a round, never one twice', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      await watch.tick();
      const count = () => t.coffer.db.prepare('SELECT COUNT(*) FROM deposits').pluck().get() as number;
      const before = count();
      const balanceBefore = await t.coffer.chain.usdcBalance(t.owner);
      const signatures = await rpc.depositMany(t.owner, 1_005, 1_000n);
      const rounds: number[] = [];
      for (let round = 0; round < 12 && count() < before + 1_005; round++) {
        const start = count();
        await watch.tick();
        rounds.push(count() - start);
      }
      expect(Math.max(...rounds)).toBeLessThanOrEqual(200);
      const recorded = t.coffer.db.prepare('SELECT tx_signature FROM deposits').pluck().all() as string[];
      expect(recorded.length).toBe(before + 1_005);
      expect(new Set(recorded).size).toBe(recorded.length);
      for (const signature of signatures) expect(recorded).toContain(signature);
      expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(balanceBefore + 1_005n * 1_000n);
    } finally {
      await watch.stop();
    }
  }, 60_000);

  it('a transaction the RPC lists but cannot return yet is read next round, and so is everything after it', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      await watch.tick();
      const first = await rpc.depositFromOutside(t.owner, micro('1'));
      const lagging = await rpc.depositFromOutside(t.owner, micro('2'));
      const after = await rpc.depositFromOutside(t.owner, micro('3'));
      rpc.unreadable.add(lagging.signature);
      await watch.tick();
      const signatures = () => t.coffer.db.prepare('SELECT tx_signature FROM deposits').pluck().all() as string[];
      expect(signatures()).toContain(first.signature);
      expect(signatures()).not.toContain(lagging.signature);
      expect(signatures()).not.toContain(after.signature);
      rpc.unreadable.delete(lagging.signature);
      await watch.tick();
      expect(signatures()).toEqual(expect.arrayContaining([lagging.signature, after.signature]));
    } finally {
      await watch.stop();
    }
  });

  it('a listing that stops short of the last signature read is not trusted: nothing is skipped', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      await watch.tick();
      const count = () => t.coffer.db.prepare('SELECT COUNT(*) FROM deposits').pluck().get() as number;
      const before = count();
      const signatures = await rpc.depositMany(t.owner, 15, 1_000n);
      rpc.listingCap = 10; // the provider answers 10 where 1,000 were asked
      await watch.tick();
      expect(count()).toBe(before);
      rpc.listingCap = null;
      await watch.tick();
      const recorded = t.coffer.db.prepare('SELECT tx_signature FROM deposits').pluck().all() as string[];
      for (const signature of signatures) expect(recorded).toContain(signature);
    } finally {
      rpc.listingCap = null;
      await watch.stop();
    }
  });

  it('a transaction the RPC still cannot return long after its block is passed over and reported', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      await watch.tick();
      const lost = await rpc.depositFromOutside(t.owner, micro('4'));
      const next = await rpc.depositFromOutside(t.owner, micro('5'));
      rpc.unreadable.add(lost.signature);
      rpc.ageTransaction(lost.signature, 20 * 60);
      await watch.tick();
      const recorded = t.coffer.db.prepare('SELECT tx_signature FROM deposits').pluck().all() as string[];
      expect(recorded).not.toContain(lost.signature);
      expect(recorded).toContain(next.signature);
      const reported = t.coffer.db.prepare("SELECT detail FROM audit_log WHERE action = 'deposit.unreadable'").pluck().all() as string[];
      expect(reported.some((detail) => detail.includes(lost.signature))).toBe(true);
    } finally {
      rpc.unreadable.clear();
      await watch.stop();
    }
  });

  it('a rate-limited RPC keeps what a round read and goes on from there', async () => {
    const watch = startChainWatch(t.coffer, () => undefined, 60_000);
    try {
      await watch.tick();
      const count = () => t.coffer.db.prepare('SELECT COUNT(*) FROM deposits').pluck().get() as number;
      const before = count();
      for (let i = 0; i < 5; i++) await rpc.depositFromOutside(t.owner, micro('0.5'));
      rpc.throttle = { method: 'getTransaction', allow: 2 };
      await watch.tick();
      expect(count()).toBe(before + 2);
      await watch.tick(); // nothing allowed: the round fails, nothing is lost
      expect(count()).toBe(before + 2);
      rpc.throttle = null;
      await watch.tick();
      expect(count()).toBe(before + 5);
    } finally {
      rpc.throttle = null;
      await watch.stop();
    }
  });

  it('answers 502 chain_unavailable when the RPC cannot be reached, and changes nothing', async () => {
    rpc.offline = true;
    try {
      const balance = await t.api('GET', t.withOwner('/v1/agents/remote/balance'));
      expectError(balance, 502, 'chain_unavailable');
      const allocation = await t.api('POST', t.withOwner('/v1/agents/remote/allocate'), { body: { amount: '1' } });
      expectError(allocation, 502, 'chain_unavailable');
      // The policy answers without the chain: a refusal is a refusal, RPC or not.
      const overMax = await pay(t, 'remote', undefined, { service: 'demo-weather', amount: '5.00', currency: 'USDC' });
      expectError(overMax, 402, 'max_per_payment_exceeded');
    } finally {
      rpc.offline = false;
    }
    expect((await t.api('GET', t.withOwner('/v1/agents/remote/balance'))).body.balance).toBe('3.75');
    // Reconciling with the chain away settles nothing and throws nothing.
    rpc.offline = true;
    try {
      const report = await t.coffer.engine.reconcile();
      expect(report.confirmed + report.failed).toBe(0);
    } finally {
      rpc.offline = false;
    }
    const pending = t.coffer.db.prepare("SELECT COUNT(*) FROM allocations WHERE status = 'pending'").pluck().get();
    expect(pending).toBe(0);
  });
});

describe('an RPC URL is the cluster its genesis hash says', () => {
  it('a private endpoint of devnet is devnet, with the devnet USDC mint, whatever its URL says', async () => {
    const cluster = await new TestCluster({ as: 'devnet' }).start();
    const t = await startCoffer({ network: cluster.url, usdcMint: 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr' });
    try {
      const health = (await t.api('GET', '/v1/health')).body;
      expect(health).toMatchObject({ network: 'devnet', usdcMint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' });
      expect((await rpcTransferLookup(cluster.url)).network).toBe('devnet');
    } finally {
      await t.stop();
      await cluster.stop();
    }
  });
});
