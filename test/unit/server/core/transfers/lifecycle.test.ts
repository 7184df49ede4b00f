import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { STORES, coreEngine, type CoreEngine, type StoreKind } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';
import { paymentRow } from '../../../../fixtures/transfer-rows.js';

/**
 * The lifecycle of every move of money (server/core/transfers/lifecycle.ts), through the engine's own
 * calls on its real ledger and the in-memory chain: each step's failure, each race, each crash point.
 */
const SELLER = randomAddress();
const micro = (usdc: string) => BigInt(Math.round(Number(usdc) * 1_000_000));
const outside = (amount = '0.01', more: Record<string, unknown> = {}) => ({ service: 'forecast-api', recipient: SELLER, amount, ...more });

let core: CoreEngine;
afterEach(() => core?.close());

async function withSeller(store: StoreKind): Promise<CoreEngine> {
  core = await coreEngine({ store });
  core.chain.mint(SELLER, 1n);
  return core;
}

describe.each(STORES)('on the %s ledger', (store) => {
  describe('a payment through the lifecycle', () => {
    it('is signed, recorded with its transaction, sent and confirmed: the chain moved it once, the ledger says so', async () => {
      const { chain, fundedAgent, events } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      const paid = await core.paid('alpha', outside('0.25'), null);
      expect(paid).toMatchObject({ status: 'confirmed', amount: '0.25' });
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.75'));
      expect(await chain.usdcBalance(SELLER)).toBe(micro('0.25') + 1n);
      const row = core.store.getPayment(paid.paymentId)!;
      expect(row).toMatchObject({ status: 'confirmed', txSignature: paid.txSignature });
      // Landed, its transaction is the chain's to keep: the ledger holds no second copy.
      expect(row.txWire).toBeNull();
      expect(events.filter((event) => event.type === 'payment')).toEqual([
        expect.objectContaining({ status: 'confirmed', amount: '0.25' }),
      ]);
    });

    it('a chain that cannot sign writes nothing: no row, no budget taken', async () => {
      const { engine, chain, asAgent, fundedAgent } = await withSeller(store);
      await fundedAgent('alpha', '1');
      const rows = core.transfers().length;
      chain.offline = true;
      await expectCofferError(core.paid('alpha', outside(), 'k1'), 'chain_unavailable');
      chain.offline = false;
      expect(core.transfers().length).toBe(rows);
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').spent24h).toBe('0.00');
      // The key is free: the retry is a first try.
      expect(await core.paid('alpha', outside(), 'k1')).toMatchObject({ status: 'confirmed' });
    });

    it('a policy refusal is answered before any chain call, and moves nothing', async () => {
      const { chain, fundedAgent } = await withSeller(store);
      await fundedAgent('alpha', '1', { maxPerPayment: '0.05' });
      const calls = new Map(chain.calls);
      await expectCofferError(core.paid('alpha', outside('0.10'), null), 'max_per_payment_exceeded');
      expect(chain.calls).toEqual(calls);
      expect(core.transfers().filter((row) => row.kind === 'payment').length).toBe(0);
    });

    it('sent and lost on the way: pending, a retry under its key waits, reconciliation sends the same bytes, it lands once', async () => {
      const { engine, chain, asAgent, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      chain.dropNextSend = true;
      await expectCofferError(core.paid('alpha', outside('0.10'), 'lost'), 'chain_unavailable');
      expect(core.transfers().filter((row) => row.status === 'pending').length).toBe(1);
      // Its outcome is unknown, so nothing may be tried again: the retry is told to wait.
      await expectCofferError(core.paid('alpha', outside('0.10'), 'lost'), 'chain_unavailable');
      // The pending payment holds its budget and its money meanwhile.
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').spent24h).toBe('0.10');
      expect(await engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
      expect(await engine.reconcile()).toEqual({ confirmed: 1, failed: 0, stillPending: 0 });
      const replayed = await core.paid('alpha', outside('0.10'), 'lost');
      expect(replayed.status).toBe('confirmed');
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
    });

    it('a settlement the chain can say again does not wait for the disk; a refusal at sending (the RPC preflight) does', async () => {
      const { fundedAgent } = await withSeller(store);
      await fundedAgent('alpha', '1');
      // Which of the store's two commits each payment's writes used.
      const commits: string[] = [];
      const { transaction, chainDerivedTransaction } = core.store;
      core.store.transaction = (fn) => (commits.push('durable'), transaction(fn));
      core.store.chainDerivedTransaction = (fn) => (commits.push('chain-derived'), chainDerivedTransaction(fn));
      expect(await core.paid('alpha', outside('0.10'), null)).toMatchObject({ status: 'confirmed' });
      expect(commits.filter((commit) => commit === 'chain-derived')).toHaveLength(1);
      commits.length = 0;
      core.chain.refuseNextSendAtPreflight = true;
      await expectCofferError(core.paid('alpha', outside('0.10'), 'refused'), 'chain_rejected');
      expect(core.transfers().filter((row) => row.status === 'failed')).toEqual([expect.objectContaining({ errorCode: 'chain_rejected' })]);
      expect(commits).not.toContain('chain-derived');
      expect(commits.filter((commit) => commit === 'durable').length).toBeGreaterThanOrEqual(2);
    });

    it('landed but the answer was lost: the row stays pending, and the next round confirms it without sending it twice', async () => {
      const { engine, chain, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      chain.offlineAfterNextSend = true;
      await expectCofferError(core.paid('alpha', outside('0.10'), null), 'chain_unavailable');
      expect(await engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
      expect(core.logs.at(-1)).toMatch(/^reconcile: payment pay_\S+ stays pending: the chain could not be asked/);
      chain.offline = false;
      expect(await engine.reconcile()).toEqual({ confirmed: 1, failed: 0, stillPending: 0 });
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
    });

    it('expired unseen: reconciliation fails it as dropped, its budget comes back, and a retry under its key is a first try, paid once', async () => {
      const { engine, chain, asAgent, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      chain.dropNextSend = true;
      await expectCofferError(core.paid('alpha', outside('0.10'), 'k'), 'chain_unavailable');
      chain.advanceBlocks(151n);
      expect(await engine.reconcile()).toEqual({ confirmed: 0, failed: 1, stillPending: 0 });
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').spent24h).toBe('0.00');
      const first = await core.paid('alpha', outside('0.10'), 'k');
      const again = await core.paid('alpha', outside('0.10'), 'k');
      expect(again.paymentId).toBe(first.paymentId);
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
      await expectCofferError(core.paid('alpha', outside('0.20'), 'k'), 'idempotency_key_reused');
    });

    it("failed on chain and the answer lost: reconciliation fails it as chain_rejected, by the chain's word, and its budget comes back", async () => {
      const { engine, chain, asAgent, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      // The wallet emptied on chain behind the ledger's back while the payment is signed: the transfer
      // runs and fails there, and the answer is lost.
      const release = chain.pauseNextPrepare();
      chain.offlineAfterNextSend = true;
      const paying = expectCofferError(core.paid('alpha', outside('0.10'), null), 'chain_unavailable');
      // The wallet's reading, taken beside the signing, is in by the next turn (the chain is in memory).
      await new Promise((resolve) => setImmediate(resolve));
      chain.mint(agent.walletAddress, -micro('1'));
      release();
      await paying;
      chain.offline = false;
      expect(await engine.reconcile()).toEqual({ confirmed: 0, failed: 1, stillPending: 0 });
      expect(core.transfers().filter((row) => row.kind === 'payment')).toEqual([
        expect.objectContaining({ status: 'failed', errorCode: 'chain_rejected' }),
      ]);
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').spent24h).toBe('0.00');
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(0n);
    });

    it('the settlement cannot be written after the chain moved: the row stays pending and reconciliation confirms it', async () => {
      const { engine, chain, fundedAgent, store: ledger } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      const settle = ledger.settleTransfer;
      ledger.settleTransfer = () => {
        throw new Error('the disk said no');
      };
      await expectCofferError(core.paid('alpha', outside('0.10'), null), 'internal');
      ledger.settleTransfer = settle;
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
      expect(await engine.reconcile()).toEqual({ confirmed: 1, failed: 0, stillPending: 0 });
    });

    it('the process dies between the write and the send: the next start sends the same bytes, once; a retry under its key answers it', async () => {
      const { chain, asAgent, fundedAgent, restart } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      chain.hangNextSend = true;
      // Never answered: the process is gone while its send is under way.
      void core.paid('alpha', outside('0.10'), 'crash');
      // The wallet's reading, taken beside the signing, is in by the next turn (the chain is in memory).
      await new Promise((resolve) => setImmediate(resolve));
      const [pending] = core.store.pendingTransfers();
      expect(pending).toMatchObject({ kind: 'payment', status: 'pending' });
      expect(pending!.txWire).not.toBeNull();
      const after = restart();
      expect(await after.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
      expect(await after.reconcile()).toEqual({ confirmed: 1, failed: 0, stillPending: 0 });
      const replayed = await after.pay(asAgent('alpha'), 'alpha', outside('0.10'), 'crash');
      expect(replayed.kind === 'done' && replayed.result.paymentId).toBe(pending!.id);
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
    });

    it('concurrent payments never pass the budget, nor the balance', async () => {
      const { chain, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1', { dailyBudget: '0.35' });
      const answers = await Promise.allSettled(Array.from({ length: 20 }, () => core.paid('alpha', outside('0.05'), null)));
      expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(7);
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.65'));
      await fundedAgent('beta', '0.12');
      const beta = await Promise.allSettled(Array.from({ length: 10 }, () => core.paid('beta', outside('0.05'), null)));
      expect(beta.filter((answer) => answer.status === 'fulfilled')).toHaveLength(2);
      expect(beta.filter((answer) => answer.status === 'rejected').map((answer) => (answer as PromiseRejectedResult).reason.code)).toEqual(
        Array(8).fill('insufficient_funds'),
      );
    });

    it('concurrent payments never pass any budget in force, each scope counted apart', async () => {
      const { engine, asOwner, fundedAgent } = await withSeller(store);
      const confirmed = (agentId: string, to?: string) =>
        core
          .transfers()
          .filter(
            (row) =>
              row.kind === 'payment' && row.agentId === agentId && row.status === 'confirmed' && (to === undefined || row.recipient === to),
          )
          .reduce((sum, row) => sum + row.amount, 0n);
      const race = (agentId: string, n: number, body: (i: number) => Record<string, unknown>) =>
        Promise.allSettled(Array.from({ length: n }, (_, i) => core.paid(agentId, body(i) as never, null)));
      const budgets = [
        { amount: '0.10', window: 'day' as const },
        { amount: '0.02', window: 'hour' as const, recipient: SELLER },
      ];
      // One recipient's budget, alone: exactly what it allows goes through.
      await fundedAgent('alpha', '5');
      await engine.updatePolicy(asOwner, 'alpha', { budgets });
      const alone = await race('alpha', 10, () => outside('0.01'));
      expect(alone.filter((answer) => answer.status === 'fulfilled')).toHaveLength(2);
      expect(confirmed('alpha', SELLER)).toBe(micro('0.02'));
      // Both, raced together by payments to two recipients: neither budget is ever passed.
      await fundedAgent('beta', '5');
      await engine.updatePolicy(asOwner, 'beta', { budgets });
      const mixed = await race('beta', 30, (i) => (i % 2 === 0 ? outside('0.01') : { service: 'demo-weather', amount: '0.01' }));
      expect(confirmed('beta')).toBe(micro('0.10'));
      expect(confirmed('beta', SELLER) <= micro('0.02')).toBe(true);
      const codes = [...alone, ...mixed].flatMap((answer) =>
        answer.status === 'rejected' ? [(answer.reason as { code: string }).code] : [],
      );
      expect(new Set(codes)).toEqual(new Set(['budget_exceeded']));
    });

    it('two requests under one key at once pay once and answer the same payment', async () => {
      const { chain, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      const both = await Promise.all([core.paid('alpha', outside('0.10'), 'same'), core.paid('alpha', outside('0.10'), 'same')]);
      expect(both[0].paymentId).toBe(both[1].paymentId);
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.90'));
    });
  });

  describe('allocations, returns and refunds through the same lifecycle', () => {
    it('an allocation the treasury cannot cover is refused in its reservation, and nothing is written', async () => {
      core = await coreEngine({ store, treasury: '2' });
      const { engine, asOwner } = core;
      await engine.deployAgent(asOwner, { agentId: 'alpha', dailyBudget: '1', maxPerPayment: '1' });
      const rows = core.transfers().length;
      await expectCofferError(engine.allocate(asOwner, 'alpha', '3'), 'insufficient_treasury_funds');
      expect(core.transfers().length).toBe(rows);
    });

    it('a return of everything leaves what pending payments hold, and is signed again when a payment takes part of it first', async () => {
      const { engine, chain, asOwner, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      chain.dropNextSend = true;
      await expectCofferError(core.paid('alpha', outside('0.30'), null), 'chain_unavailable');
      const returned = await engine.returnFunds(asOwner, 'alpha', null);
      expect(returned).toMatchObject({ amount: '0.70' });
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(micro('0.30'));
      // A payment reserved between the return's signature and its reservation: the return is made again for what is left.
      await fundedAgent('beta', '1');
      const release = chain.pauseNextPrepare();
      const racing = engine.returnFunds(asOwner, 'beta', null);
      // The payment is reserved, sent and still pending when the return's reservation comes.
      chain.dropNextSend = true;
      await expectCofferError(core.paid('beta', outside('0.40'), null), 'chain_unavailable');
      release();
      expect((await racing).amount).toBe('0.60');
      // Both payments left pending (alpha's and beta's) are sent again, then land.
      expect(await engine.reconcile()).toMatchObject({ confirmed: 0, stillPending: 2 });
      expect(await engine.reconcile()).toMatchObject({ confirmed: 2, stillPending: 0 });
      expect(await chain.usdcBalance(core.store.getAgent(core.owner, 'beta')!.walletAddress)).toBe(0n);
    });

    it('a return of everything is signed again for what is left when a payment confirms between its balance read and its reservation', async () => {
      const { engine, chain, asOwner, fundedAgent } = await withSeller(store);
      const agent = await fundedAgent('alpha', '1');
      const release = chain.pauseNextPrepare();
      const prepared = chain.calls.get('prepareTransfer') ?? 0;
      const racing = engine.returnFunds(asOwner, 'alpha', null);
      await vi.waitUntil(() => (chain.calls.get('prepareTransfer') ?? 0) > prepared);
      await core.paid('alpha', outside('0.40'), null);
      release();
      expect((await racing).amount).toBe('0.60');
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(0n);
    });

    it("a return on one rail leaves out what is pending on the other: an agent's Base payments do not hold its Solana funds", async () => {
      const { engine, asOwner, fundedAgent } = await withSeller(store);
      await fundedAgent('alpha', '1');
      core.store.insertTransfer(
        paymentRow({
          id: 'pay_base',
          owner: core.owner,
          agentId: 'alpha',
          amount: micro('0.25'),
          createdAt: 1,
          rail: 'base',
          status: 'pending',
        }),
      );
      expect((await engine.returnFunds(asOwner, 'alpha', null)).amount).toBe('1.00');
    });
  });

  describe('the ledger equals the chain', () => {
    it('after any run of payments, allocations and returns, with sends lost, answers lost and blocks passing, once reconciled', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              what: fc.constantFrom('pay', 'pay-keyed', 'allocate', 'return', 'reconcile', 'blocks'),
              agent: fc.constantFrom('a', 'b'),
              cents: fc.integer({ min: 1, max: 60 }),
              trouble: fc.constantFrom('none', 'none', 'drop', 'lose-answer', 'offline'),
            }),
            { minLength: 1, maxLength: 25 },
          ),
          async (steps) => {
            core = await coreEngine({ store, treasury: '10' });
            core.chain.mint(SELLER, 1n);
            const wallets = [(await core.fundedAgent('a', '1')).walletAddress, (await core.fundedAgent('b', '1')).walletAddress];
            for (const step of steps) {
              core.chain.offline = step.trouble === 'offline';
              core.chain.dropNextSend = step.trouble === 'drop';
              core.chain.offlineAfterNextSend = step.trouble === 'lose-answer';
              const amount = (step.cents / 100).toFixed(2);
              const attempt =
                step.what === 'pay'
                  ? core.engine.pay(core.asAgent(step.agent), step.agent, outside(amount), null)
                  : step.what === 'pay-keyed'
                    ? core.engine.pay(core.asAgent(step.agent), step.agent, outside(amount), `key-${step.cents % 3}`)
                    : step.what === 'allocate'
                      ? core.engine.allocate(core.asOwner, step.agent, amount)
                      : step.what === 'return'
                        ? core.engine.returnFunds(core.asOwner, step.agent, amount)
                        : step.what === 'reconcile'
                          ? core.engine.reconcile()
                          : Promise.resolve(core.chain.advanceBlocks(200n));
              await attempt.catch((error: { code?: string }) => {
                if (error.code === undefined || error.code === 'internal') throw error;
              });
            }
            core.chain.offline = false;
            core.chain.dropNextSend = false;
            core.chain.offlineAfterNextSend = false;
            core.chain.advanceBlocks(200n);
            await core.engine.reconcile();
            expect(core.store.pendingTransfers()).toEqual([]);
            expect(core.ledgerBalance('a')).toBe(await core.chain.usdcBalance(wallets[0]!));
            expect(core.ledgerBalance('b')).toBe(await core.chain.usdcBalance(wallets[1]!));
            core.close();
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});
