import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { MemoryChain } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';
import { parseAmount } from '../../../../../server/wire/money.js';
import { describeRequest } from '../../../../../server/wire/describe-request.js';

/**
 * A deploy funds the new agent in the same step on the rail asked (`fundRail`), Base as well as
 * Solana: an owner who keeps USDC on Base had to deploy, then allocate. What the treasury holds is
 * judged on that rail before anything is created.
 */
let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it('funds a new agent on Base where asked, judged against what the treasury holds there', async () => {
    core = await coreEngine({ store, treasury: '50' });
    const base = new MemoryChain();
    core.engine.ctx.base = base;
    const treasuryOnBase = (await core.engine.dashboard(core.asOwner)).treasury.wallets.base!;
    base.mint(treasuryOnBase, parseAmount('3'));
    const outcome = await core.engine.deployAgent(core.asOwner, {
      agentId: 'on-base',
      dailyBudget: '1',
      maxPerPayment: '1',
      fund: '1.25',
      fundRail: 'base',
    });
    const deployed = outcome.kind === 'done' ? outcome.result : null;
    expect(deployed?.funding).toMatchObject({ status: 'funded', allocation: { amount: '1.25', rail: 'base' } });
    const balances = (await core.engine.balance(core.asOwner, 'on-base')).balances;
    expect(balances).toEqual({ sol: '0.00', base: '1.25' });
    // More than the treasury holds on Base (its 50 on Solana do not count there): nothing is created.
    const refused = await expectCofferError(
      core.engine.deployAgent(core.asOwner, { agentId: 'too-much', dailyBudget: '1', maxPerPayment: '1', fund: '2', fundRail: 'base' }),
      'insufficient_treasury_funds',
    );
    expect(refused.message).toMatch(/1\.75 USDC available on Base/);
    expect((await core.engine.listAgents(core.asOwner)).agents.map((agent) => agent.agentId)).toEqual(['on-base']);
    // A rail for no funds says so, whoever asks, and creates nothing.
    for (const principal of [core.asOwner, core.asAgent('on-base')]) {
      await expectCofferError(
        core.engine.deployAgent(principal, { agentId: 'railed', dailyBudget: '1', maxPerPayment: '1', fundRail: 'base' }),
        'invalid_request',
      );
    }
    expect(core.engine.approvals(core.asOwner, 'pending').approvals).toEqual([]);
  });

  it("an agent's deploy with funds says them to the owner, and the yes's result says what became of them", async () => {
    core = await coreEngine({ store, treasury: '50' });
    await core.fundedAgent('parent', '1');
    const asked = await core.engine.deployAgent(core.asAgent('parent'), {
      agentId: 'child',
      dailyBudget: '1',
      maxPerPayment: '1',
      fund: '40',
    });
    expect(asked.kind).toBe('awaiting_approval');
    const [waiting] = core.engine.approvals(core.asOwner, 'pending').approvals;
    // As every door says the request (dashboard, coffer approvals, the tray).
    expect(describeRequest(waiting!.kind, waiting!.request)).toMatch(/funded with 40\.00 USDC on Solana from the treasury$/);
    const decided = await core.engine.approve(core.asOwner, waiting!.approvalId);
    expect(decided.result).toMatchObject({ agent: { agentId: 'child' }, funding: { status: 'funded', allocation: { amount: '40.00' } } });
  });
});
