import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine, type StoreKind } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';
import type { DeployBody } from '../../../../../server/wire/schemas.js';
import { createNonces } from '../../../../../server/x402/paywall/nonces.js';
import { endedNonceRefusal } from '../../../../../server/core/payments/held.js';

/**
 * Payments held for the owner's yes (server/core/payments/held.ts), through the engine's own calls on
 * both ledgers and the in-memory chain: held, counted, paid once on approval after being judged again,
 * never paid after a deny, an expiry, a kill or a crash.
 */
const SELLER = randomAddress();
const OTHER_SELLER = randomAddress();
const HOUR = 3_600_000;
const micro = (usdc: string) => BigInt(Math.round(Number(usdc) * 1_000_000));
const outside = (amount: string, recipient = SELLER) => ({ service: 'forecast-api', recipient, amount });

let core: CoreEngine;
afterEach(() => core?.close());

async function agentAsking(store: StoreKind, policy: Partial<DeployBody>, funds = '20'): Promise<CoreEngine> {
  core = await coreEngine({ store });
  core.chain.mint(SELLER, 1n);
  core.chain.mint(OTHER_SELLER, 1n);
  await core.fundedAgent('alpha', funds, { dailyBudget: '10', maxPerPayment: '8', ...policy });
  return core;
}

/** The agent pays; held, answers the approval it waits for. */
async function held(amount: string, key: string | null = null, recipient = SELLER) {
  const outcome = await core.engine.pay(core.asAgent('alpha'), 'alpha', outside(amount, recipient), key);
  if (outcome.kind !== 'awaiting_approval') throw new Error(`paid at once: ${JSON.stringify(outcome.result)}`);
  return outcome.approval;
}

const wallet = () => core.store.getAgent(core.owner, 'alpha')!.walletAddress;
const chainBalance = () => core.chain.usdcBalance(wallet());

describe.each(STORES)('on the %s ledger', (store) => {
  describe('askAbove', () => {
    it('a payment held that trips the spending breaker is withdrawn with the agent stopped, and said so: nothing waits, nothing paid', async () => {
      await agentAsking(store, { askAbove: '2', breaker: { spending: { percent: 50, minutes: 15 } } });
      expect(await core.paid('alpha', outside('2'))).toMatchObject({ status: 'confirmed' });
      const error = await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('3'), 'k-trip'), 'approval_withdrawn');
      expect(error.message).toBe(
        "this payment was held for the owner (3.00 USDC is above 2.00 USDC: above that, the policy waits for the owner's yes), then its breaker tripped: 5.00 USDC spent within 15 minutes, " +
          '50 % or more of its daily budget of 10.00 USDC: agent "alpha" is stopped, every payment refused until the owner resumes it; ' +
          'the request was withdrawn and nothing was paid',
      );
      expect(core.engine.approvals(core.asOwner, 'pending')).toEqual({ approvals: [] });
      // A retry under its key answers as the first answer did; the refusal log holds none of it (the history has it, withdrawn).
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('3'), 'k-trip'), 'approval_withdrawn');
      expect(core.store.recentRefusals(core.owner, 10)).toEqual([]);
      expect(await chainBalance()).toBe(micro('18'));
    });

    it('holds a payment above it (nothing moves), pays one at or below it at once; approved, the held one is paid once', async () => {
      await agentAsking(store, { askAbove: '2' });
      expect(await core.paid('alpha', outside('2'))).toMatchObject({ status: 'confirmed' });
      const approval = await held('2.50', 'k-held');
      expect(approval).toMatchObject({
        kind: 'payment',
        status: 'pending',
        agentId: 'alpha',
        request: {
          service: 'forecast-api',
          amount: '2.50',
          recipient: SELLER,
          reason: { code: 'ask_above', message: expect.stringContaining('above 2.00 USDC') },
        },
      });
      expect(Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)).toBe(24 * HOUR);
      const paymentId = approval.paymentId!;
      expect(core.store.getPayment(paymentId)).toMatchObject({ status: 'held', txSignature: null });
      expect(await chainBalance()).toBe(micro('18'));
      // The retry under its key waits for the same approval; nothing new is held.
      const retried = await core.engine.pay(core.asAgent('alpha'), 'alpha', outside('2.50'), 'k-held');
      expect(retried).toMatchObject({ kind: 'awaiting_approval', approval: { approvalId: approval.approvalId } });
      expect(core.engine.approvals(core.asOwner, 'pending').approvals).toHaveLength(1);

      const sent = core.chain.calls.get('submitTransfer');
      const decided = await core.engine.approve(core.asOwner, approval.approvalId);
      expect(decided).toMatchObject({ status: 'approved', result: { paymentId, status: 'confirmed', amount: '2.50' } });
      expect(await chainBalance()).toBe(micro('15.50'));
      expect(core.chain.calls.get('submitTransfer')).toBe(sent! + 1);
      await expectCofferError(core.engine.approve(core.asOwner, approval.approvalId), 'approval_decided');
      // The retry under its key now answers the payment, and pays nothing again.
      expect(await core.paid('alpha', outside('2.50'), 'k-held')).toMatchObject({ paymentId, status: 'confirmed' });
      expect(await chainBalance()).toBe(micro('15.50'));
      expect(core.ledgerBalance('alpha')).toBe(micro('15.50'));
    });

    it('"0" asks for every payment; the owner paying from the wallet is never held', async () => {
      await agentAsking(store, { askAbove: '0' });
      await held('0.01');
      const owners = await core.engine.pay(core.asOwner, 'alpha', outside('0.01'), null);
      expect(owners).toMatchObject({ kind: 'done', result: { status: 'confirmed' } });
    });

    it('a held payment counts against the budgets while it waits: two held payments cannot pass a budget together', async () => {
      await agentAsking(store, { askAbove: '3', budgets: [{ amount: '9', window: 'day' }] });
      await held('6');
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('5'), null), 'daily_budget_exceeded');
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('3.50'), null), 'budget_exceeded');
      expect(await core.paid('alpha', outside('3'))).toMatchObject({ status: 'confirmed' });
      expect(core.engine.readPolicy(core.asOwner, 'alpha').budgets).toMatchObject([{ spent: '9.00', remaining: '0.00' }]);
    });

    it('each payment held is its own, with its own approval: under another key a second one, under one key at once one', async () => {
      await agentAsking(store, { askNewRecipient: true });
      // Under other keys: two payments the agent asked for (another key is another payment), each
      // the owner's to decide; twice at once under one key: one.
      const first = await held('2', 'k-1');
      const second = await held('2', 'k-2');
      expect(second.approvalId).not.toBe(first.approvalId);
      const [a, b] = await Promise.all([held('2', 'k-3'), held('2', 'k-3')]);
      expect(b).toEqual(a);
      const heldRows = () => core.transfers().filter((row) => row.kind === 'payment' && row.status === 'held');
      expect(heldRows()).toHaveLength(3);
      expect(core.engine.readPolicy(core.asOwner, 'alpha')).toMatchObject({ spent24h: '6.00', held24h: '6.00' });
      // The owner's figures say them apart too: the agent's row, and the day's total.
      const waiting = await core.engine.dashboard(core.asOwner);
      expect(waiting.agents.map(({ spent24h, held24h }) => ({ spent24h, held24h }))).toEqual([{ spent24h: '6.00', held24h: '6.00' }]);
      expect(waiting).toMatchObject({ spent24h: '6.00', held24h: '6.00' });
      // Each key asked again answers its own approval; another payment under a key in use is refused.
      for (const [key, approval] of [
        ['k-1', first],
        ['k-2', second],
        ['k-3', a],
      ] as const) {
        expect(await held('2', key)).toEqual(approval);
      }
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('3'), 'k-1'), 'idempotency_key_reused');
      // The first approved and paid (the recipient now known): the second's key still answers its
      // own approval, never a payment made at once; denied, it moves nothing and counts no more.
      expect(await core.engine.approve(core.asOwner, first.approvalId)).toMatchObject({ status: 'approved' });
      expect(await held('2', 'k-2')).toEqual(second);
      await core.engine.deny(core.asOwner, second.approvalId);
      await core.engine.deny(core.asOwner, a.approvalId);
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('2'), 'k-2'), 'payment_denied');
      expect(heldRows()).toEqual([]);
      expect(core.transfers().filter((row) => row.kind === 'payment' && row.status === 'confirmed')).toHaveLength(1);
      expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('2.00');
      const decided = await core.engine.dashboard(core.asOwner);
      expect(decided.agents.map(({ spent24h, held24h }) => ({ spent24h, held24h }))).toEqual([{ spent24h: '2.00', held24h: '0.00' }]);
      expect(decided).toMatchObject({ spent24h: '2.00', held24h: '0.00' });
    });

    it('approved, it is judged again as a payment made now: a budget the owner cut since refuses it, nothing moves, the agent hears the code', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('6', 'k-cut');
      core.engine.updatePolicy(core.asOwner, 'alpha', { dailyBudget: '5' });
      const decided = await core.engine.approve(core.asOwner, approval.approvalId);
      expect(decided).toMatchObject({
        status: 'failed',
        errorCode: 'daily_budget_exceeded',
        error: expect.stringContaining('daily budget'),
      });
      expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'daily_budget_exceeded' });
      expect(await chainBalance()).toBe(micro('20'));
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('6'), 'k-cut'), 'daily_budget_exceeded');
      // Its budget is free again: 5 can be spent.
      expect(await core.paid('alpha', outside('3'))).toMatchObject({ status: 'confirmed' });
    });

    it('approved with too little left in the wallet, it fails insufficient_funds and moves nothing', async () => {
      await agentAsking(store, { askAbove: '3', dailyBudget: '20' }, '7');
      const approval = await held('6');
      await core.paid('alpha', outside('3'));
      expect(await core.engine.approve(core.asOwner, approval.approvalId)).toMatchObject({
        status: 'failed',
        errorCode: 'insufficient_funds',
      });
      expect(await chainBalance()).toBe(micro('4'));
    });

    it('the cooldown does not hold back a payment the owner approved', async () => {
      await agentAsking(store, { askAbove: '3', cooldownSeconds: 3600 });
      const approval = await held('4');
      await core.paid('alpha', outside('1'));
      expect(await core.engine.approve(core.asOwner, approval.approvalId)).toMatchObject({
        status: 'approved',
        result: { status: 'confirmed' },
      });
    });
  });

  describe('ended without a yes', () => {
    it('denied: nothing moves, its budget is free, a retry under its key says payment_denied', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('6', 'k-deny');
      expect(core.engine.deny(core.asOwner, approval.approvalId)).toMatchObject({ status: 'denied' });
      expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'payment_denied' });
      await expectCofferError(core.engine.approve(core.asOwner, approval.approvalId), 'approval_decided');
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('6'), 'k-deny'), 'payment_denied');
      expect(await chainBalance()).toBe(micro('20'));
      expect(await held('8')).toMatchObject({ status: 'pending' });
    });

    it("a payment for a paywall's nonce waits only until the nonce ends: then it expires, nothing paid", async () => {
      await agentAsking(store, { askAbove: '1' });
      const nonces = createNonces(new Uint8Array(32).fill(7));
      const now = core.clock.now();
      const nonce = nonces.issue({ resource: 'GET /forecast', amount: micro('2'), issuedAt: now, expiresAt: now + 300_000 });
      const pay = () => core.engine.pay(core.asAgent('alpha'), 'alpha', { ...outside('2'), nonce }, 'k-nonce');
      const waiting = await pay();
      if (waiting.kind !== 'awaiting_approval') throw new Error('paid at once');
      // The request says so: a yes after the seller's terms end would move the money and buy nothing.
      expect(waiting.approval.expiresAt).toBe(new Date(now + 300_000).toISOString());
      core.advance(10 * 60_000);
      await expectCofferError(core.engine.approve(core.asOwner, waiting.approval.approvalId), 'approval_decided');
      expect(core.store.getPayment(waiting.approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_expired' });
      expect(await chainBalance()).toBe(micro('20'));
      await expectCofferError(pay(), 'approval_expired');
      // A yes within the nonce's time pays it, as ever.
      const fresh = nonces.issue({
        resource: 'GET /forecast',
        amount: micro('2'),
        issuedAt: core.clock.now(),
        expiresAt: core.clock.now() + 300_000,
      });
      const again = await core.engine.pay(core.asAgent('alpha'), 'alpha', { ...outside('2'), nonce: fresh }, null);
      if (again.kind !== 'awaiting_approval') throw new Error('paid at once');
      core.advance(60_000);
      expect(await core.engine.approve(core.asOwner, again.approval.approvalId)).toMatchObject({ status: 'approved' });
      expect(await chainBalance()).toBe(micro('18'));
    });

    it("a paywall's nonce ended: not held at all, and a yes after its end refused nonce_expired (a request held before it expired with its nonce)", async () => {
      const nonces = createNonces(new Uint8Array(32).fill(7));
      const nonce = nonces.issue({ resource: 'GET /forecast', amount: 1n, issuedAt: 0, expiresAt: 300_000 });
      const payment = { sentBy: 'coffer' as const, nonce, amount: 1n };
      expect(endedNonceRefusal(payment, 300_000, 'approved')).toBeNull();
      expect(endedNonceRefusal(payment, 300_001, 'approved')).toMatchObject({ code: 'nonce_expired' });
      expect(endedNonceRefusal(payment, 300_001, 'approved')!.message).toMatch(
        /ended at 1970-01-01T00:05:00\.000Z, before the owner's yes: nothing was paid/,
      );
      // Another amount, another memo, an x402 purchase: no nonce of this payment, the request's day decides.
      expect(endedNonceRefusal({ ...payment, amount: 2n }, 10 ** 15, 'approved')).toBeNull();
      expect(endedNonceRefusal({ ...payment, nonce: '2026.11.28.1301.ab12.ff' }, 10 ** 15, 'approved')).toBeNull();
      expect(endedNonceRefusal({ ...payment, sentBy: 'seller' as const }, 10 ** 15, 'approved')).toBeNull();
      // Held with a nonce already ended: refused at once, nothing held.
      await agentAsking(store, { askAbove: '1' });
      const now = core.clock.now();
      const ended = nonces.issue({ resource: 'GET /forecast', amount: micro('2'), issuedAt: now - 600_000, expiresAt: now - 300_000 });
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', { ...outside('2'), nonce: ended }, null), 'nonce_expired');
      expect(core.engine.approvals(core.asOwner, 'pending')).toEqual({ approvals: [] });
    });

    it('withdrawn by the agent that asked (its fetch was interrupted): nothing paid, a later yes finds it ended', async () => {
      await agentAsking(store, { askAbove: '1' });
      const approval = await held('2', 'k-gone');
      // Only the agent that asked takes it back, only while it waits.
      await expectCofferError(
        Promise.resolve().then(() => core.engine.withdrawRequest(core.asOwner, approval.approvalId)),
        'wrong_agent',
      );
      expect(core.engine.withdrawRequest(core.asAgent('alpha'), approval.approvalId)).toMatchObject({ status: 'withdrawn' });
      expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_withdrawn' });
      expect(core.events).toContainEqual(
        expect.objectContaining({ type: 'approval', approvalId: approval.approvalId, status: 'withdrawn' }),
      );
      await expectCofferError(core.engine.approve(core.asOwner, approval.approvalId), 'approval_decided');
      await expectCofferError(
        Promise.resolve().then(() => core.engine.withdrawRequest(core.asAgent('alpha'), approval.approvalId)),
        'approval_decided',
      );
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('2'), 'k-gone'), 'approval_withdrawn');
      expect(await chainBalance()).toBe(micro('20'));
      // Decided first, it stays decided: the yes carried out is the answer.
      const paid = await held('2');
      await core.engine.approve(core.asOwner, paid.approvalId);
      await expectCofferError(
        Promise.resolve().then(() => core.engine.withdrawRequest(core.asAgent('alpha'), paid.approvalId)),
        'approval_decided',
      );
      expect(await chainBalance()).toBe(micro('18'));
    });

    it('expired after a day: failed approval_expired, its budget free again, announced', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('8', 'k-late');
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('3'), null), 'daily_budget_exceeded');
      core.advance(24 * HOUR);
      core.engine.expireWaiting();
      expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_expired' });
      expect(core.events).toContainEqual(expect.objectContaining({ type: 'approval', approvalId: approval.approvalId, status: 'expired' }));
      await expectCofferError(core.engine.pay(core.asAgent('alpha'), 'alpha', outside('8'), 'k-late'), 'approval_expired');
      await expectCofferError(core.engine.approve(core.asOwner, approval.approvalId), 'approval_decided');
      expect(await core.paid('alpha', outside('3'))).toMatchObject({ status: 'confirmed' });
    });

    it('the agent stopped: its held payments are withdrawn and never paid, even when approved just before the kill', async () => {
      await agentAsking(store, { askAbove: '3' });
      const waiting = await held('4');
      const approving = await held('5');
      const release = core.chain.pauseNextPrepare();
      const approved = core.engine.approve(core.asOwner, approving.approvalId);
      core.engine.kill(core.asOwner, 'alpha');
      release();
      expect(await approved).toMatchObject({ status: 'failed', errorCode: 'agent_suspended' });
      expect(core.store.getPayment(waiting.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_withdrawn' });
      expect(core.store.getPayment(approving.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'agent_suspended' });
      await expectCofferError(core.engine.approve(core.asOwner, waiting.approvalId), 'approval_decided');
      expect(await chainBalance()).toBe(micro('20'));
    });

    it('approved twice at once, or approved and denied at once: paid at most once', async () => {
      await agentAsking(store, { askAbove: '1' });
      const twice = await held('2');
      const results = await Promise.allSettled([
        core.engine.approve(core.asOwner, twice.approvalId),
        core.engine.approve(core.asOwner, twice.approvalId),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const racing = await held('3');
      const approving = core.engine.approve(core.asOwner, racing.approvalId);
      expect(() => core.engine.deny(core.asOwner, racing.approvalId)).toThrow(/already approved/);
      await approving;
      expect(await chainBalance()).toBe(micro('15'));
      expect(core.ledgerBalance('alpha')).toBe(micro('15'));
    });
  });

  describe('askNewRecipient', () => {
    it('holds the first payment to a recipient the agent never paid; once paid, the next goes at once', async () => {
      await agentAsking(store, { askNewRecipient: true });
      const first = await held('1', null, OTHER_SELLER);
      expect(first.request).toMatchObject({ reason: { code: 'new_recipient' } });
      // A second one to the same new recipient waits too: it was not paid yet.
      await held('1', null, OTHER_SELLER);
      await core.engine.approve(core.asOwner, first.approvalId);
      expect(await core.paid('alpha', outside('1', OTHER_SELLER))).toMatchObject({ status: 'confirmed' });
    });
  });

  describe('a crash between the yes and the payment', () => {
    it('before the payment was written: at the next start the approval fails saying so, and nothing is paid', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('4', 'k-crash');
      core.chain.pauseNextPrepare();
      void core.engine.approve(core.asOwner, approval.approvalId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const after = core.restart();
      await after.reconcile();
      expect(await after.recoverApprovals()).toBe(1);
      expect(after.approval(core.asOwner, approval.approvalId)).toMatchObject({
        status: 'failed',
        errorCode: 'approval_interrupted',
      });
      expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_interrupted' });
      await expectCofferError(after.pay(core.asAgent('alpha'), 'alpha', outside('4'), 'k-crash'), 'approval_interrupted');
      expect(await chainBalance()).toBe(micro('20'));
    });

    it('after the payment was written: the next start sends it once, and the approval answers the payment', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('4', 'k-sent');
      core.chain.hangNextSend = true;
      void core.engine.approve(core.asOwner, approval.approvalId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'pending' });
      const after = core.restart();
      await after.reconcile();
      await after.reconcile();
      await after.recoverApprovals();
      const read = await after.approval(core.asOwner, approval.approvalId);
      expect(read).toMatchObject({ status: 'approved', result: { paymentId: approval.paymentId, status: 'confirmed' } });
      const replay = await after.pay(core.asAgent('alpha'), 'alpha', outside('4'), 'k-sent');
      expect(replay).toMatchObject({ kind: 'done', result: { paymentId: approval.paymentId } });
      expect(await chainBalance()).toBe(micro('16'));
      expect(core.ledgerBalance('alpha')).toBe(micro('16'));
    });
  });

  describe('waiting', () => {
    it('a read with a wait answers once the owner decides, and at once when the request is decided already', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('4');
      const waiting = core.engine.waitForDecision(core.asAgent('alpha'), approval.approvalId, 30);
      let answered = false;
      void waiting.then(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(answered).toBe(false);
      await core.engine.approve(core.asOwner, approval.approvalId);
      await waiting;
      expect(core.engine.approval(core.asAgent('alpha'), approval.approvalId)).toMatchObject({
        status: 'approved',
        result: { status: 'confirmed' },
      });
      // Decided already: at once.
      await core.engine.waitForDecision(core.asAgent('alpha'), approval.approvalId, 30);
    });

    it('a wait ends once its caller is gone, and holds nothing after', async () => {
      await agentAsking(store, { askAbove: '3' });
      const approval = await held('4');
      const gone = new AbortController();
      const waiting = core.engine.waitForDecision(core.asAgent('alpha'), approval.approvalId, 30, gone.signal);
      expect(core.engine.ctx.state.decisionWaits.size).toBe(1);
      gone.abort();
      await waiting;
      expect(core.engine.ctx.state.decisionWaits.size).toBe(0);
      expect(core.engine.approval(core.asAgent('alpha'), approval.approvalId)).toMatchObject({ status: 'pending' });
    });
  });

  describe('what cannot wait', () => {
    it('bad thresholds are refused and change nothing', async () => {
      await agentAsking(store, {});
      expect(() => core.engine.updatePolicy(core.asOwner, 'alpha', { askAbove: '9' })).toThrow(/above the max per payment/);
      expect(() => core.engine.updatePolicy(core.asOwner, 'alpha', { askAbove: '8', maxPerPayment: '7' })).toThrow(/invalid|above/);
      expect(core.engine.readPolicy(core.asOwner, 'alpha').policy).not.toHaveProperty('askAbove');
      // Lowering the max below an existing threshold is never refused (the cut an incident needs).
      core.engine.updatePolicy(core.asOwner, 'alpha', { askAbove: '5' });
      expect(core.engine.updatePolicy(core.asOwner, 'alpha', { maxPerPayment: '4' }).kind).toBe('done');
    });

    it('an agent lowering its threshold applies at once; raising or removing it waits for the owner', async () => {
      await agentAsking(store, { askAbove: '3' });
      expect(core.engine.updatePolicy(core.asAgent('alpha'), 'alpha', { askAbove: '1', askNewRecipient: true }).kind).toBe('done');
      expect(core.engine.updatePolicy(core.asAgent('alpha'), 'alpha', { askAbove: '2' }).kind).toBe('awaiting_approval');
      expect(core.engine.updatePolicy(core.asAgent('alpha'), 'alpha', { askAbove: null }).kind).toBe('awaiting_approval');
      expect(core.engine.updatePolicy(core.asAgent('alpha'), 'alpha', { askNewRecipient: false }).kind).toBe('awaiting_approval');
    });
  });
});

describe.each(STORES)('a held x402 purchase on the %s ledger', (store) => {
  const URL_PAID = 'https://api.example.test/forecast';
  const ask = (amount: bigint, url = URL_PAID, payTo = SELLER) => ({ url, status: 402 as const, ...core.x402.answer402(payTo, amount) });

  async function heldPurchase(amount = 3_000_000n, key: string | null = 'x-held') {
    await agentAsking(store, { askAbove: '1' });
    const outcome = await core.engine.payX402(core.asAgent('alpha'), 'alpha', ask(amount), key);
    if (outcome.kind !== 'awaiting_approval') throw new Error('not held');
    return outcome.approval;
  }

  it('is held (nothing signed); approved, it is bought once with fresh terms under the approval, judged again then', async () => {
    const approval = await heldPurchase();
    expect(approval).toMatchObject({ kind: 'payment', request: { amount: '3.00', recipient: SELLER, reason: { code: 'ask_above' } } });
    await expectCofferError(
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(3_000_000n), approvalId: approval.approvalId }, null),
      'owner_approval_required',
    );
    // Waiting for the owner: held, and said so (no approvedAt) in the agent's history and the owner's activity.
    const shown = async () => ({
      history: core.engine.spendHistory(core.asAgent('alpha'), 'alpha').payments.find(({ id }) => id === approval.paymentId),
      activity: (await core.engine.dashboard(core.asOwner)).recentActivity.find(({ id }) => id === approval.paymentId),
    });
    const waiting = await shown();
    expect(waiting.history).toMatchObject({ status: 'held' });
    expect(waiting.history).not.toHaveProperty('approvedAt');
    expect(waiting.activity).toMatchObject({ status: 'held' });
    expect(waiting.activity).not.toHaveProperty('approvedAt');
    const decided = await core.engine.approve(core.asOwner, approval.approvalId);
    expect(decided).toMatchObject({ status: 'approved', result: { paymentId: approval.paymentId, protocol: 'x402', status: 'approved' } });
    // The yes moves nothing: the purchase is made when the agent comes back with fresh terms.
    expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'held', txWire: null });
    // Held still, but no longer the owner's to answer: said approved, with when.
    const approved = await shown();
    expect(approved.history).toMatchObject({ status: 'held', approvedAt: decided.decidedAt });
    expect(approved.activity).toMatchObject({ status: 'held', approvedAt: decided.decidedAt });
    // The replay of the first request says it was approved: buy it with fresh terms.
    expect(await core.engine.payX402(core.asAgent('alpha'), 'alpha', ask(3_000_000n), 'x-held')).toMatchObject({
      kind: 'awaiting_approval',
      approval: { status: 'approved' },
    });
    // Another seller, a dearer offer, another URL: refused, nothing paid.
    for (const wrong of [ask(3_000_001n), ask(3_000_000n, 'https://api.example.test/other'), ask(3_000_000n, URL_PAID, OTHER_SELLER)]) {
      await expectCofferError(
        core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...wrong, approvalId: approval.approvalId }, null),
        'approval_mismatch',
      );
    }
    const bought = await core.x402Paid('alpha', { ...ask(2_500_000n), approvalId: approval.approvalId }, 'x-approved');
    expect(bought).toMatchObject({
      paymentId: approval.paymentId,
      status: 'pending',
      amount: '2.50',
      header: { name: 'PAYMENT-SIGNATURE' },
    });
    // The same call again answers the same purchase, under its key or any (the approval buys one
    // purchase); another purchase under the approval buys nothing.
    expect(await core.x402Paid('alpha', { ...ask(2_500_000n), approvalId: approval.approvalId }, 'x-approved')).toEqual(bought);
    expect(await core.x402Paid('alpha', { ...ask(2_500_000n), approvalId: approval.approvalId }, null)).toEqual(bought);
    await expectCofferError(
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(2_400_000n), approvalId: approval.approvalId }, null),
      'approval_decided',
    );
    // The first request again, under its key: the purchase the owner said yes to, not a second one
    // (the recipient is paid now, and nothing would hold it again).
    core.chain.advanceBlocks(1n);
    expect(await core.x402Paid('alpha', ask(3_000_000n), 'x-held')).toEqual(bought);
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('2.50');
    expect(core.transfers().filter((row) => row.kind === 'payment')).toHaveLength(1);
  });

  it('held as a new recipient and bought: the first request asked again answers the purchase, never pays again', async () => {
    await agentAsking(store, { askNewRecipient: true });
    const first = ask(3_000_000n);
    const outcome = await core.engine.payX402(core.asAgent('alpha'), 'alpha', first, 'x-new');
    if (outcome.kind !== 'awaiting_approval') throw new Error('not held');
    await core.engine.approve(core.asOwner, outcome.approval.approvalId);
    const bought = await core.x402Paid('alpha', { ...ask(3_000_000n), approvalId: outcome.approval.approvalId }, 'x-new-approved');
    // Another blockhash (on Base each authorization has a nonce of its own): a new purchase would differ.
    core.chain.advanceBlocks(1n);
    expect(await core.x402Paid('alpha', first, 'x-new')).toEqual(bought);
    expect(core.transfers().filter((row) => row.kind === 'payment')).toHaveLength(1);
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('3.00');
  });

  it('bought under its approval and dropped (the seller never settled): the first request asked again is held afresh', async () => {
    await agentAsking(store, { askNewRecipient: true });
    const first = ask(3_000_000n);
    const outcome = await core.engine.payX402(core.asAgent('alpha'), 'alpha', first, 'x-dropped');
    if (outcome.kind !== 'awaiting_approval') throw new Error('not held');
    await core.engine.approve(core.asOwner, outcome.approval.approvalId);
    const bought = await core.x402Paid('alpha', { ...ask(3_000_000n), approvalId: outcome.approval.approvalId }, 'x-dropped-approved');
    core.chain.advanceBlocks(1000n);
    await core.engine.reconcile();
    expect(core.store.getPayment(bought.paymentId)).toMatchObject({ status: 'failed', errorCode: 'dropped' });
    // Never landed: a retry under its key is a first try (held, the recipient never paid), not
    // "ask again" for a day.
    expect(await core.engine.payX402(core.asAgent('alpha'), 'alpha', first, 'x-dropped')).toMatchObject({
      kind: 'awaiting_approval',
      approval: { status: 'pending' },
    });
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('3.00');
  });

  // Its nonce commits to its id, which a held purchase keeps: approved on a Coffer after its backup and
  // bought there, then approved again on the Coffer restored from that file, its first authorization
  // ran before this row was written, perhaps days before. Looked for from the row's time alone (and
  // two hours before), it was never found: pending for good, its budget held (noted at stop 103).
  it('bought under its approval, is looked for on chain from when it was held, not from when it was bought', async () => {
    const approval = await heldPurchase(3_000_000n, 'x-long');
    const heldAt = core.store.getApproval(approval.approvalId)!.createdAt;
    core.advance(20 * HOUR);
    await core.engine.approve(core.asOwner, approval.approvalId);
    const bought = await core.x402Paid('alpha', { ...ask(3_000_000n), approvalId: approval.approvalId }, null);
    expect(core.store.getPayment(bought.paymentId)!.createdAt).toBe(heldAt + 20 * HOUR);
    const asked: number[] = [];
    const fateOf = core.chain.fateOfPayerSigned.bind(core.chain);
    core.chain.fateOfPayerSigned = (sent) => {
      asked.push(sent.since);
      return fateOf(sent);
    };
    await core.engine.reportX402Settlement(core.asAgent('alpha'), 'alpha', bought.paymentId, {});
    await core.engine.reconcile();
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set([heldAt]));
  });

  it('approved and not bought yet when the agent is stopped: withdrawn, its budget free, never bought after a resume', async () => {
    const approval = await heldPurchase(3_000_000n, 'x-killed');
    await core.engine.approve(core.asOwner, approval.approvalId);
    core.engine.kill(core.asOwner, 'alpha');
    expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_withdrawn' });
    expect(core.store.getApproval(approval.approvalId)).toMatchObject({ status: 'withdrawn' });
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('0.00');
    await core.engine.resume(core.asOwner, 'alpha');
    await expectCofferError(
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(3_000_000n), approvalId: approval.approvalId }, null),
      'approval_withdrawn',
    );
    expect(core.transfers().filter((row) => row.kind === 'payment' && row.status !== 'failed')).toEqual([]);
  });

  it('approved and not bought yet when the agent that asked stops waiting: withdrawn, its budget free, never bought', async () => {
    const approval = await heldPurchase(3_000_000n, 'x-gone');
    await core.engine.approve(core.asOwner, approval.approvalId);
    expect(core.engine.withdrawRequest(core.asAgent('alpha'), approval.approvalId)).toMatchObject({ status: 'withdrawn' });
    expect(core.store.getPayment(approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_withdrawn' });
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('0.00');
    await expectCofferError(
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(3_000_000n), approvalId: approval.approvalId }, null),
      'approval_withdrawn',
    );
    // Bought, it stays bought: a withdrawal then is refused.
    const bought = await heldPurchase(3_000_000n, 'x-bought');
    await core.engine.approve(core.asOwner, bought.approvalId);
    await core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(3_000_000n), approvalId: bought.approvalId }, null);
    await expectCofferError(
      Promise.resolve().then(() => core.engine.withdrawRequest(core.asAgent('alpha'), bought.approvalId)),
      'approval_decided',
    );
    expect(core.transfers().filter((row) => row.kind === 'payment' && row.status !== 'failed')).toHaveLength(1);
  });

  it('approved, bought under the first request’s own key: bought once, and that key answers it', async () => {
    const approval = await heldPurchase(3_000_000n, 'x-held');
    await core.engine.approve(core.asOwner, approval.approvalId);
    // Fresh terms (a dearer seller nonce would differ too), under the key the purchase was held with.
    const bought = await core.x402Paid('alpha', { ...ask(2_500_000n), approvalId: approval.approvalId }, 'x-held');
    expect(bought).toMatchObject({ paymentId: approval.paymentId, status: 'pending', header: { name: 'PAYMENT-SIGNATURE' } });
    expect(await core.x402Paid('alpha', { ...ask(2_500_000n), approvalId: approval.approvalId }, 'x-held')).toEqual(bought);
    expect(await core.x402Paid('alpha', ask(3_000_000n), 'x-held')).toEqual(bought);
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('2.50');
  });

  it('approved, the same request asked twice at once under its approval is bought once, and both answer it; another request is refused', async () => {
    const approval = await heldPurchase();
    await core.engine.approve(core.asOwner, approval.approvalId);
    const buy = (key: string) => core.x402Paid('alpha', { ...ask(3_000_000n), approvalId: approval.approvalId }, key);
    const [first, second] = await Promise.all([buy('x-twice'), buy('x-twice')]);
    expect(first).toMatchObject({ paymentId: approval.paymentId, status: 'pending', header: { name: 'PAYMENT-SIGNATURE' } });
    expect(second).toEqual(first);
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('3.00');

    // Another engine each: two purchases under one approval at once, each with a key of its own. The
    // same terms are the same purchase (both answer it); other terms buy nothing.
    const other = await heldPurchase(2_000_000n, 'x-other-held');
    await core.engine.approve(core.asOwner, other.approvalId);
    const [one, two] = await Promise.all([
      core.x402Paid('alpha', { ...ask(2_000_000n), approvalId: other.approvalId }, 'x-one'),
      core.x402Paid('alpha', { ...ask(2_000_000n), approvalId: other.approvalId }, 'x-two'),
    ]);
    expect(two).toEqual(one);
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('2.00');
    const third = await heldPurchase(1_500_000n, 'x-third-held');
    await core.engine.approve(core.asOwner, third.approvalId);
    const answers = await Promise.allSettled([
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(1_500_000n), approvalId: third.approvalId }, 'x-one'),
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(1_400_000n), approvalId: third.approvalId }, 'x-two'),
    ]);
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    const refused = answers.find((answer) => answer.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'approval_decided' });
    expect(['1.50', '1.40']).toContain(core.engine.readPolicy(core.asOwner, 'alpha').spent24h);
  });

  it('denied, the purchase with its approval is payment_denied; approved and never bought, it expires with its request and frees its budget', async () => {
    const denied = await heldPurchase(2_000_000n, null);
    core.engine.deny(core.asOwner, denied.approvalId);
    await expectCofferError(
      core.engine.payX402(core.asAgent('alpha'), 'alpha', { ...ask(2_000_000n), approvalId: denied.approvalId }, null),
      'payment_denied',
    );
    const outcome = await core.engine.payX402(core.asAgent('alpha'), 'alpha', ask(8_000_000n), null);
    if (outcome.kind !== 'awaiting_approval') throw new Error('not held');
    await core.engine.approve(core.asOwner, outcome.approval.approvalId);
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('8.00');
    core.advance(24 * HOUR);
    core.engine.expireWaiting();
    expect(core.store.getPayment(outcome.approval.paymentId!)).toMatchObject({ status: 'failed', errorCode: 'approval_expired' });
    expect(core.engine.readPolicy(core.asOwner, 'alpha').spent24h).toBe('0.00');
  });
});

describe.each(STORES)('a held image on the %s ledger', (store) => {
  const drawing = { generate: async () => ({ url: 'https://images.test/harbour.png' }) };
  const harbour = { prompt: 'a harbour at night', modelId: 'sdxl', resolution: '1k' as const };

  it('waits for the owner with what it would buy; approved, it is paid and its task made once; denied, nothing is paid or made', async () => {
    core = await coreEngine({ store, imageProvider: drawing });
    const agent = await core.fundedAgent('painter', '5', { askAbove: '0' });
    const held = await core.engine.generate(core.asAgent('painter'), 'painter', harbour, 'img-1');
    if (held.kind !== 'awaiting_approval') throw new Error('not held');
    expect(held.approval).toMatchObject({
      kind: 'payment',
      request: { service: 'image-generate', purchase: { kind: 'image', ...harbour } },
    });
    expect(core.engine.tasks(core.asOwner, 'painter').tasks).toHaveLength(0);
    // The retry under its key waits for the same request.
    expect(await core.engine.generate(core.asAgent('painter'), 'painter', harbour, 'img-1')).toMatchObject({
      kind: 'awaiting_approval',
      approval: { approvalId: held.approval.approvalId },
    });
    const decided = await core.engine.approve(core.asOwner, held.approval.approvalId);
    expect(decided).toMatchObject({
      status: 'approved',
      result: { taskId: expect.stringMatching(/^tsk_/), paymentId: held.approval.paymentId },
    });
    await core.engine.settleTasks();
    const replay = await core.engine.generate(core.asAgent('painter'), 'painter', harbour, 'img-1');
    expect(replay).toMatchObject({ kind: 'done', result: { taskId: (decided.result as { taskId: string }).taskId, status: 'success' } });
    expect(core.engine.tasks(core.asOwner, 'painter').tasks).toHaveLength(1);
    const paid = await core.chain.usdcBalance(agent.walletAddress);
    expect(paid).toBeLessThan(5_000_000n);

    const denied = await core.engine.generate(core.asAgent('painter'), 'painter', harbour, 'img-2');
    if (denied.kind !== 'awaiting_approval') throw new Error('not held');
    core.engine.deny(core.asOwner, denied.approval.approvalId);
    await expectCofferError(core.engine.generate(core.asAgent('painter'), 'painter', harbour, 'img-2'), 'payment_denied');
    expect(core.engine.tasks(core.asOwner, 'painter').tasks).toHaveLength(1);
    expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(paid);
  });
});
