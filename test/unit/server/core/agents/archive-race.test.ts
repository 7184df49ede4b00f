import { afterEach, describe, expect, it, vi } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * An archive must never leave money in the wallet it archives. Its balance read can race a payment:
 * the payment lands on chain before the read (the read already lacks it) and is confirmed in the
 * ledger after it. Judged "less what left since the read", as a payment is judged (where counting an
 * outflow twice only refuses more), the read would count it twice and take what is left for nothing.
 */
const SELLER = randomAddress();
let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it('a payment landing before the balance read and confirmed after it: the archive refuses, naming what is left', async () => {
    core = await coreEngine({ store, treasury: '1000' });
    core.chain.mint(SELLER, 1n);
    await core.fundedAgent('alpha', '0.50', { dailyBudget: '100', maxPerPayment: '10' });
    const paid = await core.x402Paid('alpha', {
      url: 'https://api.example.test/report',
      status: 402 as const,
      ...core.x402.answer402(SELLER, 400_000n, 'm1'),
    });
    expect(paid.status).toBe('pending');
    const { paymentId } = paid;
    const header = paid.header!;
    const read = core.chain.usdcBalance.bind(core.chain);
    vi.spyOn(core.chain, 'usdcBalance').mockImplementationOnce(async (wallet: string) => {
      const landed = core.chain.settleForSeller(header.value);
      const balance = await read(wallet);
      await core.engine.reportX402Settlement(core.asAgent('alpha'), 'alpha', paymentId, { 'payment-response': landed });
      return balance;
    });
    const refused = await expectCofferError(core.engine.archive(core.asOwner, 'alpha'), 'agent_has_funds');
    expect(refused.message).toMatch(/still holds 0\.10 USDC on Solana: return it to the treasury first/);
    expect(await core.chain.usdcBalance((await core.engine.balance(core.asOwner, 'alpha')).walletAddress)).toBe(100_000n);
  });
});
