import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * An allocation is judged by the treasury's balance as read, less what Coffer confirmed leaving the
 * treasury since the read and what it has promised away (pending): an allocation that confirmed while
 * another read the balance is never counted as still there (helper 127: on Base, where a transfer is
 * not settled in the ledger's write, parallel allocations passed the check, reverted on chain, and
 * landed by themselves once the treasury was topped up).
 */
let core: CoreEngine;
afterEach(() => core?.close());

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe.each(STORES)('on the %s ledger', (store) => {
  it('an allocation confirmed after another read the balance is taken off: the second is refused, nothing sent', async () => {
    core = await coreEngine({ store, treasury: '10' });
    for (const agentId of ['alpha', 'beta']) {
      await core.engine.deployAgent(core.asOwner, { agentId, dailyBudget: '10', maxPerPayment: '10' });
    }
    // Beta's allocation reads the treasury (10.00) and waits to be signed ...
    const release = core.chain.pauseNextPrepare();
    const second = core.engine.allocate(core.asOwner, 'beta', '6');
    while ((core.chain.calls.get('prepareTransfer') ?? 0) === 0) await settled();
    // ... while alpha's is read, signed, sent and confirmed: 4.00 left in the treasury.
    expect(await core.engine.allocate(core.asOwner, 'alpha', '6')).toMatchObject({ kind: 'done' });
    release();
    await expectCofferError(second, 'insufficient_treasury_funds');
    const beta = core.transfers().filter((row) => row.agentId === 'beta');
    expect(beta).toEqual([]);
    expect(await core.chain.usdcBalance(core.owner)).toBe(4_000_000n);
    // What is left is still allocated.
    expect(await core.engine.allocate(core.asOwner, 'beta', '4')).toMatchObject({ kind: 'done' });
  });
});
