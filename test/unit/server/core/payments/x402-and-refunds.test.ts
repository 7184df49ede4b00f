import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine, type StoreKind } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * x402 payments and image refunds through the lifecycle every move of money shares
 * (server/core/transfers/lifecycle.ts), on the engine alone: its ledger in memory, the in-memory chain,
 * a buyer over it, an image provider that answers as told.
 */
let core: CoreEngine;
afterEach(() => core?.close());

const SELLER = randomAddress();
const URL_PAID = 'https://api.example.test/forecast';

async function x402Ready(store: StoreKind): Promise<CoreEngine> {
  core = await coreEngine({ store });
  core.chain.mint(SELLER, 1n);
  await core.fundedAgent('alpha', '1');
  return core;
}
const ask = (amount: bigint, memo?: string) => ({ url: URL_PAID, status: 402 as const, ...core.x402.answer402(SELLER, amount, memo) });
/** A seller's 402 listing these entries (whom, how much, and its challenge's memo where given), as Coffer is handed it. */
const offerOf = (...entries: (readonly [payTo: string, amount: bigint, memo?: string])[]) => {
  const accepts = entries.flatMap(
    ([payTo, amount, memo]) => (core.x402.answer402(payTo, amount, memo).body as { accepts: unknown[] }).accepts,
  );
  return { url: URL_PAID, status: 402 as const, headers: {}, body: { x402Version: 2, accepts } };
};

describe.each(STORES)('on the %s ledger', (store) => {
  describe('an x402 purchase from the demo API where it runs on another port than the catalog lists', () => {
    it("is the listed service's: named by it, allowed by it, held to its price; its sibling at the same address is not", async () => {
      // `coffer demo-api --port 7612`: the registry lists its services there (GET /v1/services says so).
      core = await coreEngine({ store, demoApiUrl: () => 'http://127.0.0.1:7612' });
      const weather = core.store.getService('demo-weather')!;
      expect(core.store.getService('demo-quotes')!.payTo).toBe(weather.payTo);
      core.chain.mint(weather.payTo, 1n);
      await core.fundedAgent('alpha', '1', { allowedServices: ['demo-weather'] });
      const offer = (url: string, amount: bigint) => ({ url, status: 402 as const, ...core.x402.answer402(weather.payTo, amount) });
      const paid = await core.x402Paid('alpha', offer('http://127.0.0.1:7612/weather?city=Lisbon', 10_000n));
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ serviceId: 'demo-weather', serviceName: weather.name });
      // Its listed price caps it, as on the catalog's own port.
      await expectCofferError(core.x402Paid('alpha', offer('http://127.0.0.1:7612/weather?city=Porto', 20_000n)), 'price_above_registry');
      // demo-quotes, paid at the same address, is another service: not one this agent is allowed.
      await expectCofferError(core.x402Paid('alpha', offer('http://127.0.0.1:7612/quote?symbol=ACME', 10_000n)), 'service_not_allowed');
    });
  });

  describe('an x402 payment', () => {
    it('is signed by the agent alone and handed out pending; the seller settles it, its report confirms it', async () => {
      const { engine, chain, x402, asAgent } = await x402Ready(store);
      const paid = await core.x402Paid('alpha', ask(250_000n), null);
      expect(paid).toMatchObject({ status: 'pending', amount: '0.25', txSignature: null, header: { name: 'PAYMENT-SIGNATURE' } });
      // Counted against the budget from the moment it is handed out.
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').spent24h).toBe('0.25');
      const landed = chain.settleForSeller(paid.header!.value);
      const reported = await engine.reportX402Settlement(asAgent('alpha'), 'alpha', paid.paymentId, { 'payment-response': landed });
      expect(reported).toMatchObject({ status: 'confirmed', txSignature: landed });
      expect(await chain.usdcBalance(SELLER)).toBe(250_001n);
      expect(x402.feePayer).not.toBe(core.owner);
    });

    it('a retry under its key answers the same header; another request under the key is 409; a refusal signs nothing', async () => {
      const { chain } = await x402Ready(store);
      const first = await core.x402Paid('alpha', ask(100_000n), 'k');
      const again = await core.x402Paid('alpha', ask(100_000n), 'k');
      expect(again).toEqual(first);
      await expectCofferError(core.x402Paid('alpha', ask(200_000n), 'k'), 'idempotency_key_reused');
      const calls = new Map(chain.calls);
      await expectCofferError(core.x402Paid('alpha', ask(20_000_000n), null), 'max_per_payment_exceeded');
      expect(chain.calls).toEqual(calls);
      expect(core.store.listPayments(core.owner, 'alpha', 10)).toHaveLength(1);
    });

    it("a retry's key is the offer's terms, whether or not the signing would refuse its first entry now: the one purchase answers", async () => {
      const { x402 } = await x402Ready(store);
      const other = randomAddress();
      core.chain.mint(other, 1n);
      // Two entries, each with its own memo: the first to SELLER, the second to another address.
      const both = () => {
        const [first, second] = [x402.answer402(SELLER, 100_000n, 'memo-a'), x402.answer402(other, 100_000n, 'memo-b')];
        const accepts = [first, second].flatMap((answer) => (answer.body as { accepts: unknown[] }).accepts);
        return { url: URL_PAID, status: 402 as const, headers: {}, body: { x402Version: 2, accepts } };
      };
      // The signing refuses the first entry (its token's terms read, and not this USDC's): the second is paid.
      x402.refusing = (requirement) => (requirement.payTo === SELLER ? 'another token' : null);
      const paid = await core.x402Paid('alpha', both(), 'k');
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ recipient: other });
      // Asked again under its key, the signing refusing nothing now (the token unread after a restart):
      // the same request, so the same purchase, not a 409 nor a second payment.
      x402.refusing = null;
      expect(await core.x402Paid('alpha', both(), 'k')).toEqual(paid);
      expect(core.store.listPayments(core.owner, 'alpha', 10)).toHaveLength(1);
    });

    it("pays the cheapest of an offer's entries on a rail, passing over one to the agent's own wallet; long memos are no terms", async () => {
      await x402Ready(store);
      const other = randomAddress();
      core.chain.mint(other, 1n);
      const own = core.store.getAgent(core.owner, 'alpha')!.walletAddress;
      const offer = offerOf;
      // A seller steering with a dear first entry: the cheaper one is paid, whatever its place.
      const cheaper = await core.x402Paid('alpha', offer([SELLER, 400_000n], [other, 10_000n]), null);
      expect(core.store.getPayment(cheaper.paymentId)).toMatchObject({ recipient: other, amount: 10_000n });
      // An entry dearer than maxPerPayment (10 here) refuses nothing where a cheaper one fits.
      const fits = await core.x402Paid('alpha', offer([SELLER, 20_000_000n], [SELLER, 20_000n]), null);
      expect(core.store.getPayment(fits.paymentId)).toMatchObject({ recipient: SELLER, amount: 20_000n });
      // The agent's own wallet buys nothing: the entry after it is paid, though dearer.
      const past = await core.x402Paid('alpha', offer([own, 10_000n], [SELLER, 30_000n]), null);
      expect(core.store.getPayment(past.paymentId)).toMatchObject({ recipient: SELLER, amount: 30_000n });
      // Only its own wallet offered: refused in words, nothing signed.
      const calls = new Map(core.chain.calls);
      await expectCofferError(core.x402Paid('alpha', offer([own, 10_000n]), null), 'unsupported_offer', /pays this agent's own wallet/);
      // A memo longer than x402 puts on chain is no terms Coffer keeps: another entry is paid, or none.
      await expectCofferError(core.x402Paid('alpha', offer([SELLER, 10_000n, 'm'.repeat(257)]), null), 'unsupported_offer', /memo/);
      // What the seller offers is said as written, a character that hides or reorders text escaped;
      // the Base rail (off here) is not said of an offer with no entry on an EVM chain.
      const elsewhere = offer([SELLER, 10_000n]);
      Object.assign(elsewhere.body.accepts[0] as object, { network: 'aptos:1', asset: '0x1::usdc\u202e' });
      const refused = await expectCofferError(core.x402Paid('alpha', elsewhere, null), 'unsupported_offer');
      expect(refused.message).toMatch(/; the seller offers exact on aptos:1 in "0x1::usdc\\u202e"$/);
      expect(core.chain.calls).toEqual(calls);
      const short = await core.x402Paid('alpha', offer([SELLER, 10_000n, 'm'.repeat(257)], [SELLER, 40_000n, 'short']), null);
      expect(core.store.getPayment(short.paymentId)).toMatchObject({ amount: 40_000n, memo: 'short' });
      // A cheap entry whose fee payer Coffer would be (none named, or the treasury) is passed over too.
      const feePaidBy = (feePayer: string | undefined) => {
        const dear = offer([SELLER, 50_000n]);
        const cheap = offer([SELLER, 1n]).body.accepts[0] as { extra: Record<string, unknown> };
        cheap.extra = feePayer === undefined ? {} : { feePayer };
        return { ...dear, body: { ...dear.body, accepts: [cheap, ...dear.body.accepts] } };
      };
      for (const feePayer of [undefined, core.owner]) {
        const passed = await core.x402Paid('alpha', feePaidBy(feePayer), null);
        expect(core.store.getPayment(passed.paymentId)).toMatchObject({ amount: 50_000n });
        core.chain.advanceBlocks(1n);
      }
    });

    it('passes over a cheaper entry the policy or the registry refuses for one they allow; with none allowed, the cheapest is refused', async () => {
      core = await coreEngine({ store });
      const [other, third] = [randomAddress(), randomAddress()];
      for (const address of [SELLER, other, third]) core.chain.mint(address, 1n);
      await core.fundedAgent('picky', '1', {
        allowedServices: [other, third],
        budgets: [{ amount: '0.01', window: 'day', recipient: third }],
      });
      const offer = offerOf;
      // SELLER is not allowed, the 0.02 to `third` passes its budget: the 0.30 to `other` is paid.
      const paid = await core.x402Paid('picky', offer([SELLER, 10_000n], [third, 20_000n], [other, 300_000n]), 'k');
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ recipient: other, amount: 300_000n });
      // Its key is the offer's terms, whatever the policy says: asked again, the same purchase.
      expect(await core.x402Paid('picky', offer([SELLER, 10_000n], [third, 20_000n], [other, 300_000n]), 'k')).toEqual(paid);
      // None allowed: the cheapest entry's refusal, nothing signed.
      core.chain.advanceBlocks(1n);
      await expectCofferError(core.x402Paid('picky', offer([third, 20_000n], [SELLER, 10_000n]), null), 'service_not_allowed');
      expect(core.store.listPayments(core.owner, 'picky', 10)).toHaveLength(1);
    });

    it('an offer of many entries none of which it pays is refused naming the first five and how many more', async () => {
      const { x402 } = await x402Ready(store);
      const accepts = Array.from({ length: 200 }, (_, index) => {
        const [entry] = (x402.answer402(SELLER, BigInt(index + 1)).body as { accepts: Record<string, unknown>[] }).accepts;
        return { ...entry, network: 'eip155:1' };
      });
      const refused = await expectCofferError(
        core.x402Paid('alpha', { url: URL_PAID, status: 402, headers: {}, body: { x402Version: 2, accepts } }),
        'unsupported_offer',
        /the seller offers (exact on eip155:1 in \S+; ){5}and 195 more entries/,
      );
      expect(refused.message.length).toBeLessThan(1_000);
    });

    it('a challenge paid on one entry is paid: asked again, another entry the policy now prefers is not paid too', async () => {
      core = await coreEngine({ store });
      const { x402 } = core;
      const other = randomAddress();
      for (const address of [SELLER, other]) core.chain.mint(address, 1n);
      // SELLER's budget holds one 0.01 payment a day: once paid, the policy prefers `other`.
      await core.fundedAgent('budgeted', '1', { budgets: [{ amount: '0.01', window: 'day', recipient: SELLER }] });
      const accepts = [x402.answer402(SELLER, 10_000n, 'challenge-7'), x402.answer402(other, 20_000n, 'challenge-7')].flatMap(
        (answer) => (answer.body as { accepts: unknown[] }).accepts,
      );
      const offer = { url: URL_PAID, status: 402 as const, headers: {}, body: { x402Version: 2, accepts } };
      const paid = await core.x402Paid('budgeted', offer, null);
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ recipient: SELLER, amount: 10_000n });
      core.chain.advanceBlocks(1n);
      const calls = new Map(core.chain.calls);
      await expectCofferError(core.x402Paid('budgeted', offer, null), 'nonce_already_paid', new RegExp(paid.paymentId));
      expect(core.chain.calls).toEqual(calls);
      expect(core.store.listPayments(core.owner, 'budgeted', 10)).toHaveLength(1);
      // A stopped agent is told it is stopped, whatever it aimed at (judge.ts's order).
      await core.engine.kill(core.asOwner, 'budgeted');
      await expectCofferError(core.x402Paid('budgeted', offer, null), 'agent_suspended');
    });

    it('a challenge paid on an entry Coffer no longer pays is paid: another entry under its memo is not paid too', async () => {
      await x402Ready(store);
      const other = randomAddress();
      core.chain.mint(other, 1n);
      const offer = offerOf([SELLER, 10_000n, 'challenge-8'], [other, 20_000n, 'challenge-8']);
      const paid = await core.x402Paid('alpha', offer, null);
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ recipient: SELLER, amount: 10_000n });
      core.chain.advanceBlocks(1n);
      // The same challenge again, its paid entry now on terms Coffer does not sign (its fee payer
      // the owner's treasury): that entry's memo is still the challenge, paid.
      const unsigned = offerOf([SELLER, 10_000n, 'challenge-8'], [other, 20_000n, 'challenge-8']);
      const [first] = (unsigned.body as { accepts: { extra: Record<string, unknown> }[] }).accepts;
      first!.extra.feePayer = core.owner;
      const calls = new Map(core.chain.calls);
      await expectCofferError(core.x402Paid('alpha', unsigned, null), 'nonce_already_paid', new RegExp(paid.paymentId));
      expect(core.chain.calls).toEqual(calls);
      expect(core.store.listPayments(core.owner, 'alpha', 10)).toHaveLength(1);
    });

    it('two asks of one challenge at once, the policy choosing two entries between them, pay it once', async () => {
      core = await coreEngine({ store });
      const { x402 } = core;
      const other = randomAddress();
      for (const address of [SELLER, other]) core.chain.mint(address, 1n);
      await core.fundedAgent('twice', '1');
      const accepts = [x402.answer402(SELLER, 10_000n, 'challenge-9'), x402.answer402(other, 20_000n, 'challenge-9')].flatMap(
        (answer) => (answer.body as { accepts: unknown[] }).accepts,
      );
      const offer = { url: URL_PAID, status: 402 as const, headers: {}, body: { x402Version: 2, accepts } };
      // The first ask is held at its signing (after its door's checks, before its reservation).
      const sign = x402.sign.bind(x402);
      let release = () => {};
      const signing = new Promise<void>((resolve) => (release = resolve));
      let signed = 0;
      x402.sign = async (...args) => {
        signed += 1;
        if (signed === 1) await signing;
        return sign(...args);
      };
      const first = core.x402Paid('twice', offer, null);
      await new Promise((resolve) => setImmediate(resolve));
      expect(signed).toBe(1);
      // Meanwhile the owner allows `other` alone, and the second ask pays it; then allows both again.
      core.engine.updatePolicy(core.asOwner, 'twice', { allowedServices: [other] });
      const second = await core.x402Paid('twice', offer, null);
      expect(core.store.getPayment(second.paymentId)).toMatchObject({ recipient: other, amount: 20_000n });
      core.engine.updatePolicy(core.asOwner, 'twice', { allowedServices: [] });
      release();
      // The first ask's entry is allowed again, but its challenge is paid: refused, nothing handed out.
      await expectCofferError(first, 'nonce_already_paid', new RegExp(second.paymentId));
      expect(core.store.listPayments(core.owner, 'twice', 10).filter((payment) => payment.status !== 'failed')).toHaveLength(1);
    });

    it('under an approval, pays the approved recipient at or below the amount approved, though the offer now lists a cheaper entry to another', async () => {
      core = await coreEngine({ store });
      const other = randomAddress();
      for (const address of [SELLER, other]) core.chain.mint(address, 1n);
      await core.fundedAgent('asker', '1', { askAbove: '0.05' });
      const offer = offerOf;
      const held = await core.engine.payX402(core.asAgent('asker'), 'asker', offer([SELLER, 400_000n], [SELLER, 100_000n]), null);
      if (held.kind !== 'awaiting_approval') throw new Error('the purchase was not held');
      expect(core.store.getPayment(held.approval.paymentId!)).toMatchObject({ recipient: SELLER, amount: 100_000n });
      await core.engine.approve(core.asOwner, held.approval.approvalId);
      // The seller's fresh terms put a cheaper entry to someone else first: the approved one is paid.
      const fresh = { ...offer([other, 20_000n], [SELLER, 400_000n], [SELLER, 100_000n]), approvalId: held.approval.approvalId };
      const paid = await core.x402Paid('asker', fresh);
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ id: held.approval.paymentId, recipient: SELLER, amount: 100_000n });
      expect(core.store.listPayments(core.owner, 'asker', 10)).toHaveLength(1);
    });

    it('an approved purchase is not paid on a challenge the agent paid meanwhile on another entry', async () => {
      core = await coreEngine({ store });
      const other = randomAddress();
      for (const address of [SELLER, other]) core.chain.mint(address, 1n);
      await core.fundedAgent('asker', '1', { askAbove: '0.05' });
      const offer = (memo: string, ...entries: [string, bigint][]) =>
        offerOf(...entries.map(([payTo, amount]) => [payTo, amount, memo] as const));
      const held = await core.engine.payX402(core.asAgent('asker'), 'asker', offer('challenge-1', [SELLER, 100_000n]), null);
      if (held.kind !== 'awaiting_approval') throw new Error('the purchase was not held');
      await core.engine.approve(core.asOwner, held.approval.approvalId);
      // The seller's fresh challenge adds a cheaper entry: asked without the approval, that one is paid.
      const fresh = offer('challenge-2', [other, 20_000n], [SELLER, 100_000n]);
      const paid = await core.x402Paid('asker', fresh);
      expect(core.store.getPayment(paid.paymentId)).toMatchObject({ recipient: other, amount: 20_000n });
      // The same challenge with the approval: paid already, not paid again to the approved recipient.
      core.chain.advanceBlocks(1n);
      await expectCofferError(
        core.x402Paid('asker', { ...fresh, approvalId: held.approval.approvalId }),
        'nonce_already_paid',
        new RegExp(paid.paymentId),
      );
      expect(core.store.getPayment(held.approval.paymentId!)).toMatchObject({ status: 'held' });
    });

    it('two equal payments signed in one block are one transaction: the second is not handed out until the next block', async () => {
      const { chain } = await x402Ready(store);
      await core.x402Paid('alpha', ask(10_000n), null);
      await expectCofferError(core.x402Paid('alpha', ask(10_000n), null), 'chain_unavailable');
      chain.advanceBlocks(1n);
      expect((await core.x402Paid('alpha', ask(10_000n), null)).status).toBe('pending');
    });

    it('the purchase that trips the spending breaker is handed out, and says the agent is stopped now and why', async () => {
      core = await coreEngine({ store });
      core.chain.mint(SELLER, 1n);
      await core.fundedAgent('spender', '1', { dailyBudget: '1', breaker: { spending: { percent: 50, minutes: 15 } } });
      const first = await core.x402Paid('spender', ask(300_000n), null);
      expect(first).not.toHaveProperty('agentStopped');
      const tripping = await core.x402Paid('spender', ask(200_000n), null);
      expect(tripping.header).not.toBeNull();
      const reason = 'its breaker tripped: 0.50 USDC spent within 15 minutes, 50 % or more of its daily budget of 1.00 USDC';
      expect(tripping.agentStopped).toEqual({ reason });
      expect(core.store.getAgent(core.owner, 'spender')).toMatchObject({ status: 'suspended', statusReason: reason });
      await expectCofferError(core.x402Paid('spender', ask(10_000n), null), 'agent_suspended');
    });

    it('never settled: reconciliation fails it as dropped once it can no longer land, its budget comes back, its key is free', async () => {
      const { engine, asAgent, chain } = await x402Ready(store);
      const first = await core.x402Paid('alpha', ask(300_000n), 'k');
      expect(await engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
      chain.advanceBlocks(151n);
      expect(await engine.reconcile()).toEqual({ confirmed: 0, failed: 1, stillPending: 0 });
      expect(core.store.getPayment(first.paymentId)).toMatchObject({ status: 'failed', errorCode: 'dropped' });
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').spent24h).toBe('0.00');
      const second = await core.x402Paid('alpha', ask(300_000n), 'k');
      expect(second.paymentId).not.toBe(first.paymentId);
    });
  });

  describe('an image that fails is refunded through the same lifecycle', () => {
    const failing = { generate: () => Promise.reject(new Error('the provider is down')) };
    const generate = (agentId: string) =>
      core.engine.generate(core.asAgent(agentId), agentId, { prompt: 'a harbour at night', modelId: 'sdxl', resolution: '1k' }, null);

    it('the image whose payment trips the spending breaker is bought, and its task says the agent is stopped', async () => {
      core = await coreEngine({ store, imageProvider: { generate: () => new Promise<{ url: string }>(() => {}) } });
      // sdxl 1k costs 0.002: the second image reaches half of the 0.008 daily budget within 15 minutes.
      await core.fundedAgent('painter', '1', {
        dailyBudget: '0.008',
        maxPerPayment: '0.002',
        breaker: { spending: { percent: 50, minutes: 15 } },
      });
      const first = await generate('painter');
      expect(first.kind === 'done' && first.result).not.toHaveProperty('agentStopped');
      const tripping = await generate('painter');
      expect(tripping.kind === 'done' && tripping.result).toMatchObject({
        status: 'queued',
        agentStopped: { reason: expect.stringMatching(/^its breaker tripped: 0\.004 USDC spent within 15 minutes/) },
      });
    });

    it("the agent's payment comes back to its wallet, once, and the payment no longer counts as spent", async () => {
      core = await coreEngine({ store, imageProvider: failing });
      const agent = await core.fundedAgent('painter', '1');
      await generate('painter');
      await core.engine.settleTasks();
      expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(1_000_000n);
      expect(core.engine.readPolicy(core.asAgent('painter'), 'painter').spent24h).toBe('0.00');
      expect(
        core
          .transfers()
          .filter((row) => row.kind === 'refund')
          .map((row) => row.status),
      ).toEqual(['confirmed']);
      core.engine.resumeTasks();
      await core.engine.settleTasks();
      expect(core.transfers().filter((row) => row.kind === 'refund').length).toBe(1);
    });

    it('a refund the chain cannot sign now is said in the log, and made by the next round', async () => {
      let failNow!: () => void;
      const provider = { generate: () => new Promise<{ url: string }>((_, reject) => (failNow = () => reject(new Error('down')))) };
      core = await coreEngine({ store, imageProvider: provider });
      const agent = await core.fundedAgent('painter', '1');
      await generate('painter');
      // The chain goes away while the image is made; then the provider fails.
      core.chain.offline = true;
      failNow();
      await core.engine.settleTasks();
      expect(core.logs).toContainEqual(expect.stringMatching(/^refund rfd_\S+ of payment pay_\S+ was not sent now: /));
      expect(core.transfers().filter((row) => row.kind === 'refund').length).toBe(0);
      core.chain.offline = false;
      core.engine.resumeTasks({ retryFailedRefunds: false });
      await core.engine.settleTasks();
      expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(1_000_000n);
    });
  });
});
