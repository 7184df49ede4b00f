import { describe, expect, it } from 'vitest';
import { fundedAgent, micro, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';

describe('concurrent payments against one budget', () => {
  const t = useCoffer();

  it('50 concurrent payments against a budget for 10: exactly 10 succeed, the chain moved exactly 10', async () => {
    const agent = await fundedAgent(t, 'burst', '100.00', { dailyBudget: '1.00', maxPerPayment: '0.10' });
    const recipient = UNLISTED_API.recipient;
    const recipientBefore = await t.coffer.chain.usdcBalance(recipient);

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        pay(t, 'burst', agent.apiKey, { ...UNLISTED_API, amount: '0.10', currency: 'USDC', description: `burst ${i}` }),
      ),
    );

    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) {
      expectError(r, 402, 'daily_budget_exceeded');
    }
    expect(new Set(ok.map((r) => r.body.txSignature)).size).toBe(10);

    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('99.00'));
    expect((await t.coffer.chain.usdcBalance(recipient)) - recipientBefore).toBe(micro('1.00'));
    for (const r of ok) {
      const onChain = await t.coffer.chain.findTransfer(r.body.txSignature);
      expect(onChain?.succeeded).toBe(true);
      expect(onChain?.amount).toBe(micro('0.10'));
    }
  });

  it('concurrent payments never overdraw the wallet: the ledger refuses before the chain would', async () => {
    const agent = await fundedAgent(t, 'drain', '0.55', { dailyBudget: '100.00', maxPerPayment: '1.00' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => pay(t, 'drain', agent.apiKey, { ...UNLISTED_API, amount: '0.10', currency: 'USDC' })),
    );
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(5);
    for (const r of responses.filter((r) => r.status !== 200)) expect(r.body.code).toBe('insufficient_funds');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.05'));
  });

  it('concurrent allocations never overdraw the treasury', async () => {
    const treasury = await t.coffer.chain.usdcBalance(t.owner);
    await fundedAgent(t, 'sink', '0.01');
    const remaining = treasury - micro('0.01');
    // Ask for the whole treasury three times at once: one allocation fits, two are refused.
    const amount = (Number(remaining) / 1e6).toFixed(6);
    const responses = await Promise.all(
      Array.from({ length: 3 }, () => t.api('POST', t.withOwner('/v1/agents/sink/allocate'), { body: { amount } })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) {
      expectError(r, 402, 'insufficient_treasury_funds');
    }
    expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(0n);
  });
});
