import { afterEach, describe, expect, it, vi } from 'vitest';
import { STORES, coreEngine, type CoreEngine, type StoreKind } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';
import type { CofferEventWithTime } from '../../../../../server/core/events.js';

/**
 * What a policy says beyond its limits (issue 25, points 3 to 5), through the engine's own calls on
 * both ledgers: its end, the warnings as budgets pass their shares, and the breaker.
 */
const SELLER = randomAddress();
const HOUR = 3_600_000;
const MINUTE = 60_000;
const outside = (amount: string) => ({ service: 'forecast-api', recipient: SELLER, amount });

let core: CoreEngine;
afterEach(() => core?.close());

async function started(store: StoreKind): Promise<CoreEngine> {
  core = await coreEngine({ store, treasury: '1000' });
  core.chain.mint(SELLER, 1n);
  return core;
}

const warnings = (events: CofferEventWithTime[]) =>
  events.filter((event) => event.type === 'warning').map((event) => (event.type === 'warning' ? event.message : ''));

describe.each(STORES)('on the %s ledger', (store) => {
  describe('a policy that ends (expiresAt)', () => {
    it('allows payments until its end, then refuses every one with policy_expired, recorded for the owner', async () => {
      const { engine, asAgent, asOwner, fundedAgent, advance } = await started(store);
      await fundedAgent('alpha', '5');
      const end = new Date(Date.UTC(2026, 10, 23, 14)).toISOString();
      // The owner's zone named, whatever the machine's (its end is said in it).
      engine.updateSettings(asOwner, { timeZone: 'UTC' });
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: end });
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').policy).toMatchObject({ expiresAt: end });
      advance(2 * HOUR - 1);
      expect(await core.paid('alpha', outside('0.10'))).toMatchObject({ status: 'confirmed' });
      advance(1);
      await expectCofferError(
        engine.pay(asAgent('alpha'), 'alpha', outside('0.10'), null),
        'policy_expired',
        /ended at 2026-11-23 14:00 UTC \(2026-11-23T14:00:00.000Z\)/,
      );
      // Said in the owner's zone, where they set the end, and as the instant a program reads.
      engine.updateSettings(asOwner, { timeZone: 'America/New_York' });
      await expectCofferError(
        engine.pay(asAgent('alpha'), 'alpha', outside('0.10'), null),
        'policy_expired',
        "this agent's policy ended at 2026-11-23 09:00 America/New_York (2026-11-23T14:00:00.000Z): its payments are refused until the owner sets a later end, or none",
      );
      expect(core.store.recentRefusals(core.owner, 10)[0]).toMatchObject({ agentId: 'alpha', code: 'policy_expired' });
      // The owner sets a later end (or none): payments pass again.
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: null });
      expect(await core.paid('alpha', outside('0.10'))).toMatchObject({ status: 'confirmed' });
    });

    it('an agent may bring its end closer at once; moving it later or taking it away waits for the owner', async () => {
      const { engine, asAgent, asOwner, fundedAgent } = await started(store);
      await fundedAgent('alpha', '1');
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: '2026-12-31' });
      expect(engine.updatePolicy(asAgent('alpha'), 'alpha', { expiresAt: '2026-12-01' }).kind).toBe('done');
      const later = engine.updatePolicy(asAgent('alpha'), 'alpha', { expiresAt: '2026-12-02' });
      // The request waits with the time the day resolved to, so the owner judges (and applies) that time.
      expect(later).toMatchObject({
        kind: 'awaiting_approval',
        approval: { request: { expiresAt: expect.stringMatching(/^2026-12-0[23]T/) } },
      });
      expect(engine.updatePolicy(asAgent('alpha'), 'alpha', { expiresAt: null }).kind).toBe('awaiting_approval');
      // A day is the end of that day in the owner's time zone (the machine's here: this test's TZ).
      const { expiresAt } = engine.readPolicy(asAgent('alpha'), 'alpha').policy as { expiresAt: string };
      expect(Date.parse(expiresAt)).toBeGreaterThan(Date.UTC(2026, 11, 1, 0) - 15 * HOUR);
      expect(Date.parse(expiresAt)).toBeLessThanOrEqual(Date.UTC(2026, 11, 2, 0) + 15 * HOUR);
    });

    it('an end already past is invalid_policy, and the policy is unchanged', async () => {
      const { engine, asAgent, asOwner, fundedAgent } = await started(store);
      await fundedAgent('alpha', '1');
      const before = engine.readPolicy(asAgent('alpha'), 'alpha').policy;
      expect(() => engine.updatePolicy(asOwner, 'alpha', { expiresAt: '2026-11-22', dailyBudget: '1' })).toThrow(/in the past/);
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').policy).toEqual(before);
    });

    it('the owner is told once, a day before the end; a new end is told again', async () => {
      const { engine, asOwner, fundedAgent, advance, events } = await started(store);
      await fundedAgent('alpha', '1');
      await fundedAgent('beta', '1');
      engine.updateSettings(asOwner, { timeZone: 'UTC' });
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: new Date(Date.UTC(2026, 10, 25, 12)).toISOString() });
      expect(engine.remindOfExpiries()).toBe(0);
      advance(24 * HOUR - MINUTE);
      expect(engine.remindOfExpiries()).toBe(0);
      advance(MINUTE);
      expect(engine.remindOfExpiries()).toBe(1);
      expect(engine.remindOfExpiries()).toBe(0);
      expect(warnings(events)).toEqual([
        expect.stringMatching(/^alpha's policy ends at 2026-11-25 12:00 UTC \(2026-11-25T12:00:00.000Z\): /),
      ]);
      // Told across a restart too: the ledger remembers.
      expect(core.restart().remindOfExpiries()).toBe(0);
      // The agent bringing its end closer (a tightening it may make) is not told again: it could have the owner told every minute.
      for (let ms = 1; ms <= 3; ms += 1) {
        engine.updatePolicy(core.asAgent('alpha'), 'alpha', { expiresAt: new Date(Date.UTC(2026, 10, 25, 12) - ms).toISOString() });
        expect(engine.remindOfExpiries()).toBe(0);
      }
      // An end the owner sets is told afresh.
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: new Date(Date.UTC(2026, 10, 25, 6)).toISOString() });
      expect(engine.remindOfExpiries()).toBe(1);
      expect(engine.remindOfExpiries()).toBe(0);
    });
  });

  describe('warnings as a budget passes its shares', () => {
    it('tells the owner once per share as the daily budget passes 80 % and 95 %, the highest share reached only', async () => {
      const { engine, asAgent, fundedAgent, events } = await started(store);
      await fundedAgent('alpha', '50', { dailyBudget: '10' });
      await engine.pay(asAgent('alpha'), 'alpha', outside('7.99'), null);
      expect(warnings(events)).toEqual([]);
      await engine.pay(asAgent('alpha'), 'alpha', outside('0.01'), null);
      expect(warnings(events)).toEqual(['alpha has used 80 % of its daily budget of 10.00 USDC (8.00 USDC spent)']);
      await engine.pay(asAgent('alpha'), 'alpha', outside('0.50'), null);
      expect(warnings(events)).toHaveLength(1);
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.00'), null);
      expect(warnings(events)).toEqual([
        expect.stringMatching(/80 %/),
        'alpha has used 95 % of its daily budget of 10.00 USDC (9.50 USDC spent)',
      ]);
      await engine.pay(asAgent('alpha'), 'alpha', outside('0.50'), null);
      expect(warnings(events)).toHaveLength(2);
    });

    it('an agent lowering its limit by a hair is not told again; the owner changing it is told afresh', async () => {
      const { engine, asAgent, asOwner, fundedAgent, events } = await started(store);
      await fundedAgent('alpha', '50', { dailyBudget: '10' });
      await engine.pay(asAgent('alpha'), 'alpha', outside('8.50'), null);
      expect(warnings(events)).toHaveLength(1);
      for (const limit of ['9.999999', '9.999998']) {
        engine.updatePolicy(asAgent('alpha'), 'alpha', { dailyBudget: limit });
        await engine.pay(asAgent('alpha'), 'alpha', outside('0.01'), null);
      }
      expect(warnings(events)).toHaveLength(1);
      engine.updatePolicy(asOwner, 'alpha', { dailyBudget: '10.5' });
      await engine.pay(asAgent('alpha'), 'alpha', outside('0.01'), null);
      expect(warnings(events)).toEqual([
        expect.stringMatching(/85 %/),
        'alpha has used 81 % of its daily budget of 10.50 USDC (8.53 USDC spent)',
      ]);
    });

    it('a payment that jumps past both shares tells once, and the lower share is not told after it in that window', async () => {
      const { engine, asAgent, fundedAgent, events, advance } = await started(store);
      await fundedAgent('alpha', '50', { dailyBudget: '10', maxPerPayment: '10' });
      await engine.pay(asAgent('alpha'), 'alpha', outside('9.60'), null);
      expect(warnings(events)).toEqual([expect.stringMatching(/96 % of its daily budget/)]);
      // A day later the window is another: the first payment past a share tells again.
      advance(24 * HOUR);
      await engine.pay(asAgent('alpha'), 'alpha', outside('8.00'), null);
      expect(warnings(events)).toEqual([expect.stringMatching(/96 %/), expect.stringMatching(/80 % of its daily budget/)]);
    });

    it('a calendar budget is told once per period, a count budget by its payments, and the owner may choose the shares or none', async () => {
      const { engine, asAgent, asOwner, fundedAgent, events } = await started(store);
      await fundedAgent('alpha', '50', {
        budgets: [
          { amount: '20', window: 'month' },
          { count: 2, window: 'hour' },
        ],
        warnAt: [50],
      });
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.00'), null);
      expect(warnings(events)).toEqual(['alpha has used 50 % of its budget of 2 payments in any hour (1 made)']);
      core.advance(HOUR);
      await engine.pay(asAgent('alpha'), 'alpha', outside('9.00'), null);
      expect(warnings(events).slice(1)).toEqual([
        'alpha has used 50 % of its budget of 20.00 USDC a month (10.00 USDC spent)',
        'alpha has used 50 % of its budget of 2 payments in any hour (1 made)',
      ]);
      engine.updatePolicy(asOwner, 'alpha', { warnAt: [] });
      core.advance(HOUR);
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.00'), null);
      expect(warnings(events)).toHaveLength(3);
    });

    it('twenty payments at once past a share tell it once', async () => {
      const { engine, asAgent, fundedAgent, events } = await started(store);
      await fundedAgent('alpha', '50', { dailyBudget: '2' });
      await Promise.all(Array.from({ length: 20 }, () => engine.pay(asAgent('alpha'), 'alpha', outside('0.10'), null)));
      expect(warnings(events).map((message) => message.replace(/ \(.*/, ''))).toEqual([
        'alpha has used 80 % of its daily budget of 2.00 USDC',
        'alpha has used 95 % of its daily budget of 2.00 USDC',
      ]);
    });
  });

  describe('the breaker', () => {
    it('stops the agent after N refusals within M minutes, with its reason; only the owner resumes it', async () => {
      const { engine, asAgent, asOwner, fundedAgent, events, advance } = await started(store);
      await fundedAgent('alpha', '5', { maxPerPayment: '1', breaker: { refusals: { count: 3, minutes: 10 } } });
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      // Older than the breaker's minutes by the third: it does not count.
      advance(10 * MINUTE);
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      const stopped = core.store.getAgent(core.owner, 'alpha')!;
      expect(stopped).toMatchObject({ status: 'suspended', statusReason: 'its breaker tripped: 3 refused payments within 10 minutes' });
      expect(events.filter((event) => event.type === 'agent').at(-1)).toMatchObject({ status: 'suspended', reason: stopped.statusReason });
      expect(engine.agentsAtRest(asOwner).agents.find((agent) => agent.agentId === 'alpha')).toMatchObject({
        status: 'suspended',
        statusReason: stopped.statusReason,
      });
      // Its payments are told why.
      await expectCofferError(
        engine.pay(asAgent('alpha'), 'alpha', outside('0.10'), null),
        'agent_suspended',
        /is stopped \(its breaker tripped: 3 refused payments within 10 minutes\): its payments are refused/,
      );
      expect(engine.resume(asAgent('alpha'), 'alpha').kind).toBe('awaiting_approval');
      engine.resume(asOwner, 'alpha');
      expect(core.store.getAgent(core.owner, 'alpha')).toMatchObject({ status: 'active', statusReason: null });
      expect(engine.agentsAtRest(asOwner).agents.find((agent) => agent.agentId === 'alpha')).not.toHaveProperty('statusReason');
      // Its count starts afresh.
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
    });

    it('stops the agent once its payments within M minutes make up a share of a budget; the payment itself stands', async () => {
      const { engine, asAgent, fundedAgent, advance, chain } = await started(store);
      const agent = await fundedAgent('alpha', '20', {
        dailyBudget: '100',
        budgets: [{ amount: '4', window: 'day' }],
        breaker: { spending: { percent: 50, minutes: 5 } },
      });
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.50'), null);
      advance(5 * MINUTE);
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.50'), null);
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      const paid = await core.paid('alpha', outside('0.50'));
      expect(paid.status).toBe('confirmed');
      expect(await chain.usdcBalance(agent.walletAddress)).toBe(16_500_000n);
      expect(core.store.getAgent(core.owner, 'alpha')).toMatchObject({
        status: 'suspended',
        statusReason: 'its breaker tripped: 2.00 USDC spent within 5 minutes, 50 % or more of its budget of 4.00 USDC a day',
      });
      // Resumed, it is judged on what it spends from then on: the spending that tripped it does not trip it again.
      engine.resume(core.asOwner, 'alpha');
      advance(MINUTE);
      await engine.pay(asAgent('alpha'), 'alpha', outside('0.01'), null);
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      // The next day, half its budget within five minutes stops it again.
      advance(24 * HOUR);
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.00'), null);
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      await engine.pay(asAgent('alpha'), 'alpha', outside('1.00'), null);
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('suspended');
    });

    it('counts the refusals since the owner last resumed it: none from before a stop, none answered after it stopped', async () => {
      const { engine, asAgent, asOwner, fundedAgent, advance } = await started(store);
      await fundedAgent('alpha', '0.05', { maxPerPayment: '1', breaker: { refusals: { count: 2, minutes: 10 } } });
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      engine.kill(asOwner, 'alpha');
      advance(MINUTE);
      engine.resume(asOwner, 'alpha');
      advance(MINUTE);
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      // Three refused at once: the first trips it (with the one before), and the other two, judged
      // before the stop and answered after it, do not count toward the next trip.
      const atOnce = [1, 2, 3].map(() => engine.pay(asAgent('alpha'), 'alpha', outside('2'), null));
      for (const refused of atOnce) await expectCofferError(refused, 'max_per_payment_exceeded');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('suspended');
      advance(MINUTE);
      engine.resume(asOwner, 'alpha');
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
    });

    it("counts only the agent's own new refusals: not the owner's, not an ended policy's, not a retry answered from its key", async () => {
      const { engine, chain, asAgent, asOwner, fundedAgent, advance } = await started(store);
      const { walletAddress } = await fundedAgent('alpha', '0.05', {
        maxPerPayment: '1',
        breaker: { refusals: { count: 2, minutes: 10 } },
      });
      // The owner's payments from the agent's wallet, refused.
      for (let i = 0; i < 3; i += 1) await expectCofferError(engine.pay(asOwner, 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      // An ended policy.
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: new Date(Date.UTC(2026, 10, 23, 12, 30)).toISOString() });
      advance(HOUR);
      for (let i = 0; i < 3; i += 1)
        await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('0.01'), null), 'policy_expired');
      engine.updatePolicy(asOwner, 'alpha', { expiresAt: null });
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      // A payment the chain refuses for lack of funds (money left the wallet behind Coffer's back, its
      // key used elsewhere, between its balance read and its send) counts once; its retries under its
      // key, answered with that same failure, do not.
      const release = chain.pauseNextPrepare();
      const prepared = chain.calls.get('prepareTransfer') ?? 0;
      const first = engine.pay(asAgent('alpha'), 'alpha', outside('0.04'), 'k');
      await vi.waitUntil(() => (chain.calls.get('prepareTransfer') ?? 0) > prepared);
      chain.settleForSeller(chain.signForSeller(walletAddress, core.owner, 20_000n, null).txWire);
      const sends = chain.calls.get('submitTransfer') ?? 0;
      release();
      await expectCofferError(first, 'insufficient_funds');
      // Refused by the chain, not in its reservation: it was sent.
      expect(chain.calls.get('submitTransfer')).toBe(sends + 1);
      for (let i = 0; i < 3; i += 1)
        await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('0.04'), 'k'), 'insufficient_funds');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('active');
      // Its own next refusal is the second.
      await expectCofferError(engine.pay(asAgent('alpha'), 'alpha', outside('2'), null), 'max_per_payment_exceeded');
      expect(core.store.getAgent(core.owner, 'alpha')?.status).toBe('suspended');
    });

    it('an agent may make its breaker quicker at once; a slower one or none waits for the owner', async () => {
      const { engine, asAgent, fundedAgent } = await started(store);
      await fundedAgent('alpha', '1', { breaker: { refusals: { count: 5, minutes: 10 } } });
      expect(engine.updatePolicy(asAgent('alpha'), 'alpha', { breaker: { refusals: { count: 3, minutes: 30 } } }).kind).toBe('done');
      expect(engine.updatePolicy(asAgent('alpha'), 'alpha', { breaker: { refusals: { count: 4, minutes: 30 } } }).kind).toBe(
        'awaiting_approval',
      );
      expect(engine.updatePolicy(asAgent('alpha'), 'alpha', { breaker: null }).kind).toBe('awaiting_approval');
      expect(engine.readPolicy(asAgent('alpha'), 'alpha').policy).toMatchObject({ breaker: { refusals: { count: 3, minutes: 30 } } });
    });
  });
});
