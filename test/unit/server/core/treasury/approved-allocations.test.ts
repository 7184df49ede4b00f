import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/** An agent's request for funds, carried out once by the owner's yes, through the lifecycle of every move of money. */
let core: CoreEngine;
afterEach(() => core?.close());

async function asked(amount: string): Promise<string> {
  const outcome = await core.engine.allocate(core.asAgent('alpha'), 'alpha', amount);
  if (outcome.kind !== 'awaiting_approval') throw new Error('an agent funding itself waits for the owner');
  return outcome.approval.approvalId;
}

describe.each(STORES)('on the %s ledger', (store) => {
  describe('an allocation an agent asks for', () => {
    it('moves nothing until the owner approves; approved, it moves once, and a second yes is refused', async () => {
      core = await coreEngine({ store });
      const agent = await core.fundedAgent('alpha', '1');
      const id = await asked('0.5');
      expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(1_000_000n);
      expect(await core.engine.approve(core.asOwner, id)).toMatchObject({ status: 'approved' });
      expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(1_500_000n);
      await expectCofferError(core.engine.approve(core.asOwner, id), 'approval_decided');
      expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(1_500_000n);
    });

    it('approved while the chain cannot sign: the approval fails saying why, nothing is written or moved, nothing is logged as broken', async () => {
      core = await coreEngine({ store });
      const agent = await core.fundedAgent('alpha', '1');
      const id = await asked('0.5');
      const rows = core.transfers().length;
      core.chain.offline = true;
      expect(await core.engine.approve(core.asOwner, id)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('cannot be reached'),
      });
      core.chain.offline = false;
      expect(core.transfers().length).toBe(rows);
      expect(await core.chain.usdcBalance(agent.walletAddress)).toBe(1_000_000n);
      expect(core.logs).toEqual([]);
    });

    it('approved beyond what the treasury holds: failed as insufficient_treasury_funds, nothing moved', async () => {
      core = await coreEngine({ store, treasury: '2' });
      await core.fundedAgent('alpha', '1');
      const id = await asked('5');
      expect(await core.engine.approve(core.asOwner, id)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('treasury holds 1.00'),
      });
    });
  });
});
