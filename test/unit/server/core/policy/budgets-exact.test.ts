import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { inScope } from '../../../../../server/wire/policy/budget.js';
import type { Budget } from '../../../../../server/wire/policy/budget.js';
import { windowSpan } from '../../../../../server/wire/policy/windows.js';
import { budgetOf } from '../../../../../server/wire/policy/budget.js';
import type { BudgetBody } from '../../../../../server/wire/schemas.js';

/**
 * Budgets are exact (issue 25): after any run of payments to two recipients, lost sends, expiries,
 * reconciliations, restarts and clock moves across midnights, month ends and daylight-saving changes,
 * in two time zones, no payment that counts broke any budget as it stood when the payment was
 * reserved, and none was made once the policy had ended.
 */
let core: CoreEngine | undefined;
afterEach(() => core?.close());

const SELLER = randomAddress();
const HOUR = 3_600_000;

describe.each(STORES)('on the %s ledger', (store) => {
  it('no counted payment ever passes a budget in force when it was reserved, nor comes after the policy ended', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('America/New_York', 'Europe/Berlin'),
        fc.array(
          fc.record({
            amount: fc.constantFrom('0.03', '0.05', '0.10', 'count:2', 'count:4'),
            window: fc.constantFrom('hour', '24h', '7d', 'day', 'week', 'month', 'lifetime'),
            scope: fc.constantFrom('all', 'service', 'recipient'),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.array(
          fc.record({
            what: fc.constantFrom('pay-seller', 'pay-weather', 'pay-weather', 'advance', 'reconcile', 'restart'),
            trouble: fc.constantFrom('none', 'none', 'none', 'drop'),
            hours: fc.integer({ min: 0, max: 30 * 24 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        // The policy's end, in hours after the start (none: it never ends).
        fc.option(fc.integer({ min: 1, max: 20 * 24 }), { nil: null }),
        async (timeZone, wanted, steps, endsAfterHours) => {
          core?.close();
          core = await coreEngine({ store });
          const c = core;
          c.store.setMeta('time_zone', timeZone);
          // Just before a daylight-saving change and a month end in both zones: 2026-10-31.
          c.advance(Date.UTC(2026, 9, 31, 20) - c.engine.ctx.clock.now());
          c.chain.mint(SELLER, 1n);
          await c.fundedAgent('alpha', '5');
          const bodies: BudgetBody[] = wanted.map(({ amount, window, scope }) => ({
            ...(amount.startsWith('count:') ? { count: Number(amount.slice(6)) } : { amount }),
            window,
            ...(scope === 'service' ? { service: 'demo-weather' } : scope === 'recipient' ? { recipient: SELLER } : {}),
          }));
          const endsAt = endsAfterHours === null ? null : c.engine.ctx.clock.now() + endsAfterHours * HOUR;
          await c.engine.updatePolicy(c.asOwner, 'alpha', {
            budgets: bodies,
            ...(endsAt === null ? {} : { expiresAt: new Date(endsAt).toISOString() }),
          });
          const budgets: Budget[] = bodies.map(budgetOf);
          let engine = c.engine;
          for (const step of steps) {
            c.chain.dropNextSend = step.trouble === 'drop';
            const agent = c.asAgent('alpha');
            const attempt =
              step.what === 'pay-seller'
                ? engine.pay(agent, 'alpha', { service: 'forecast-api', recipient: SELLER, amount: '0.01' }, null)
                : step.what === 'pay-weather'
                  ? engine.pay(agent, 'alpha', { service: 'demo-weather', amount: '0.01' }, null)
                  : step.what === 'reconcile'
                    ? engine.reconcile()
                    : step.what === 'restart'
                      ? Promise.resolve((engine = c.restart()))
                      : Promise.resolve(c.advance((step.hours % 50) * HOUR + 1));
            await attempt.catch((error: { code?: string }) => {
              if (error.code !== 'budget_exceeded' && error.code !== 'chain_unavailable' && error.code !== 'policy_expired') throw error;
            });
            if (step.what === 'advance' && step.hours > 40) c.chain.advanceBlocks(200n);
          }
          // Every payment that counts, judged against each budget as it stood when it was made.
          const counted = c
            .transfers()
            .filter((row) => row.kind === 'payment' && row.status !== 'failed')
            .map((row) => row as Extract<typeof row, { kind: 'payment' }>);
          // None was made once the policy had ended.
          if (endsAt !== null) expect(counted.filter((payment) => payment.createdAt >= endsAt)).toEqual([]);
          for (const budget of budgets) {
            for (const payment of counted) {
              if (!inScope(budget.scope, payment)) continue;
              const { from } = windowSpan(budget.window, payment.createdAt, timeZone);
              const before = counted
                .filter((other) => other.createdAt <= payment.createdAt && (from === null || other.createdAt >= from))
                .filter((other) => inScope(budget.scope, other))
                .reduce((sum, other) => ({ amount: sum.amount + other.amount, payments: sum.payments + 1 }), { amount: 0n, payments: 0 });
              expect(
                budget.count === null ? before.amount <= budget.amount! : before.payments <= budget.count,
                `${budget.window} ${JSON.stringify(budget.scope)} at ${new Date(payment.createdAt).toISOString()}`,
              ).toBe(true);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
