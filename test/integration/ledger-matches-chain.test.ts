import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployAgent, micro, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';

const AGENTS = ['alpha', 'beta', 'gamma'] as const;
/** Registry services (never paid above their listed price) and an API outside the registry (any price). */
const SERVICES = [{ service: 'demo-weather' }, { service: 'demo-quotes' }, { service: 'web-search' }, UNLISTED_API, UNLISTED_API];

/** Amounts as decimal strings with up to 6 decimals, small enough to run many operations. */
const amountArb = fc.integer({ min: 1, max: 3_000_000 }).map((m) => (m / 1e6).toFixed(6));

const railArb = fc.constantFrom('sol' as const, 'base' as const);

const operationArb = fc.oneof(
  fc.record({ op: fc.constant('allocate' as const), agent: fc.constantFrom(...AGENTS), amount: amountArb, rail: railArb }),
  fc.record({
    op: fc.constant('return' as const),
    agent: fc.constantFrom(...AGENTS),
    amount: fc.option(amountArb, { nil: undefined }),
    rail: railArb,
  }),
  fc.record({
    op: fc.constant('pay' as const),
    agent: fc.constantFrom(...AGENTS),
    amount: amountArb,
    service: fc.constantFrom(...SERVICES),
  }),
  fc.record({ op: fc.constant('kill' as const), agent: fc.constantFrom(...AGENTS) }),
  fc.record({ op: fc.constant('resume' as const), agent: fc.constantFrom(...AGENTS) }),
  fc.record({ op: fc.constant('faucet' as const), amount: amountArb, rail: railArb }),
);

describe('after any sequence of allocations, returns and payments on both rails, every wallet on chain equals the ledger', () => {
  const t = useCoffer();
  const keys = new Map<string, string>();
  const wallets = new Map<string, string>();
  /** Each wallet's Base account (agents' and the treasury's). */
  const baseAccounts = new Map<string, string>();
  beforeAll(async () => {
    for (const agentId of AGENTS) {
      const agent = await deployAgent(t, agentId, { dailyBudget: '1000.00', maxPerPayment: '2.50' });
      keys.set(agentId, agent.apiKey);
      wallets.set(agentId, agent.walletAddress);
      // Start funded, so payments in the generated sequences can succeed from the first step.
      await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: '5.00' } });
    }
    const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
    baseAccounts.set(t.owner, dashboard.treasury.wallets.base);
    for (const row of dashboard.agents) baseAccounts.set(row.walletAddress, row.wallets.base);
  });

  const ledgerSum = (sql: string, ...params: unknown[]): bigint =>
    BigInt(
      (t.coffer.db
        .prepare(sql)
        .safeIntegers(true)
        .pluck()
        .get(...params) as bigint | null) ?? 0n,
    );

  async function assertLedgerMatchesChain() {
    const pending =
      ledgerSum("SELECT COUNT(*) FROM payments WHERE status = 'pending'") +
      ledgerSum("SELECT COUNT(*) FROM allocations WHERE status = 'pending'");
    expect(pending).toBe(0n);
    const base = t.coffer.base!.chain;
    for (const rail of ['sol', 'base'] as const) {
      const chain = rail === 'sol' ? t.coffer.chain : base;
      const on = (wallet: string) => (rail === 'sol' ? wallet : baseAccounts.get(wallet)!);
      const moved = (direction: string, agentId: string) =>
        ledgerSum(
          "SELECT SUM(amount) FROM allocations WHERE agent_id = ? AND direction = ? AND rail = ? AND status = 'confirmed'",
          agentId,
          direction,
          rail,
        );
      let allocatedOut = 0n;
      for (const agentId of AGENTS) {
        const paid = ledgerSum("SELECT SUM(amount) FROM payments WHERE agent_id = ? AND rail = ? AND status = 'confirmed'", agentId, rail);
        const net = moved('to_agent', agentId) - moved('to_treasury', agentId);
        allocatedOut += net;
        expect(await chain.usdcBalance(on(wallets.get(agentId)!)), `wallet of ${agentId} on ${rail}`).toBe(net - paid);
      }
      const deposited = ledgerSum("SELECT SUM(amount) FROM deposits WHERE owner = ? AND rail = ? AND status = 'confirmed'", t.owner, rail);
      expect(await chain.usdcBalance(on(t.owner)), `treasury on ${rail}`).toBe(deposited - allocatedOut);
    }
    const recipients = t.coffer.db.prepare('SELECT DISTINCT recipient FROM payments').pluck().all() as string[];
    for (const recipient of recipients) {
      const received = ledgerSum("SELECT SUM(amount) FROM payments WHERE recipient = ? AND status = 'confirmed'", recipient);
      expect(await t.coffer.chain.usdcBalance(recipient), `recipient ${recipient}`).toBe(received);
    }
  }

  it('holds for random interleavings (fast-check), including refused and concurrent operations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(operationArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        async (generated) => {
          // Every run moves real money at least once, whatever was generated (a short generated run
          // may refuse everything): resume, fund and pay once, then the generated batches.
          const batches: (typeof generated)[number][] = [
            [{ op: 'resume', agent: 'alpha' }],
            [{ op: 'allocate', agent: 'alpha', amount: '0.020000', rail: 'sol' }],
            [{ op: 'allocate', agent: 'beta', amount: '0.030000', rail: 'base' }],
            [{ op: 'pay', agent: 'alpha', amount: '0.010000', service: UNLISTED_API }],
            ...generated,
          ];
          for (const batch of batches) {
            // Operations of one batch run concurrently.
            await Promise.all(
              batch.map(async (step) => {
                if (step.op === 'faucet') {
                  const r = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: step.amount, rail: step.rail } });
                  expect(r.status).toBe(200);
                } else if (step.op === 'allocate') {
                  const r = await t.api('POST', t.withOwner(`/v1/agents/${step.agent}/allocate`), {
                    body: { amount: step.amount, rail: step.rail },
                  });
                  expect([200, 402]).toContain(r.status);
                } else if (step.op === 'return') {
                  const r = await t.api('POST', t.withOwner(`/v1/agents/${step.agent}/return`), {
                    body: { amount: step.amount, rail: step.rail },
                  });
                  expect([200, 402]).toContain(r.status);
                  if (r.status !== 200) expect(r.body.code).toBe('insufficient_funds');
                } else if (step.op === 'pay') {
                  const r = await pay(t, step.agent, keys.get(step.agent)!, { ...step.service, amount: step.amount, currency: 'USDC' });
                  expect([200, 400, 402, 403]).toContain(r.status);
                  if (r.status !== 200)
                    expect([
                      'insufficient_funds',
                      'agent_suspended',
                      'max_per_payment_exceeded',
                      'price_above_registry',
                      'price_below_registry',
                    ]).toContain(r.body.code);
                } else {
                  const r = await t.api('POST', t.withOwner(`/v1/agents/${step.agent}/${step.op}`));
                  expect(r.status).toBe(200);
                }
              }),
            );
          }
          await assertLedgerMatchesChain();
        },
      ),
      { numRuns: 8 },
    );
    // The property must have moved real money, or it proved nothing.
    expect(ledgerSum("SELECT COUNT(*) FROM payments WHERE status = 'confirmed'")).toBeGreaterThan(0n);
    expect(ledgerSum("SELECT COUNT(*) FROM allocations WHERE status = 'confirmed' AND rail = 'sol'")).toBeGreaterThan(0n);
    expect(ledgerSum("SELECT COUNT(*) FROM allocations WHERE status = 'confirmed' AND rail = 'base'")).toBeGreaterThan(0n);
  });

  it('balances reported by the API equal the chain', async () => {
    for (const agentId of AGENTS) {
      const r = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`));
      expect(micro(r.body.balance)).toBe(await t.coffer.chain.usdcBalance(wallets.get(agentId)!));
      expect(micro(r.body.balances.base)).toBe(await t.coffer.base!.chain.usdcBalance(baseAccounts.get(wallets.get(agentId)!)!));
    }
  });
});
