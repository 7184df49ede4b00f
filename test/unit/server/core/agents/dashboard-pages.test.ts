import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';

/**
 * The overview of many agents never holds a payment up for its whole length (issue 28, point 4): it
 * is read and built a page of agents at a time, and a payment asked meanwhile is made between pages.
 */
const SELLER = randomAddress();
const AGENTS = 250;

let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it('reads each page of agents on its own turn, and a payment asked meanwhile is made before the last page', async () => {
    core = await coreEngine({ store, treasury: '1000' });
    core.chain.mint(SELLER, 1n);
    const { engine, asOwner } = core;
    await core.fundedAgent('payer', '5');
    for (let i = 1; i < AGENTS; i++) await engine.deployAgent(asOwner, { agentId: `idle-${i}`, dailyBudget: '1', maxPerPayment: '1' });

    // Every read of spending and policies the overview makes, with how many agents it covered.
    const reads: { what: string; agents: number }[] = [];
    const spendTotals = core.store.spendTotals.bind(core.store);
    const listPolicies = core.store.listPolicies.bind(core.store);
    core.store.listPolicies = (owner, agentIds) => {
      reads.push({ what: 'policies', agents: agentIds?.length ?? AGENTS });
      return listPolicies(owner, agentIds);
    };

    // The payment is asked once the overview has read its first page.
    let readsWhenPaid = -1;
    const firstPageRead = new Promise<void>((resolve) => {
      core.store.spendTotals = (owner, since, agentIds) => {
        reads.push({ what: 'spend', agents: agentIds?.length ?? AGENTS });
        resolve();
        return spendTotals(owner, since, agentIds);
      };
    });
    const overview = engine.dashboard(asOwner);
    await firstPageRead;
    const paid = core.paid('payer', { service: 'forecast-api', recipient: SELLER, amount: '0.10' });
    void paid.then(() => (readsWhenPaid = reads.filter((read) => read.what === 'spend').length));
    const board = await overview;
    expect(await paid).toMatchObject({ status: 'confirmed' });

    const spendReads = reads.filter((read) => read.what === 'spend');
    expect(spendReads.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...reads.map((read) => read.agents))).toBeLessThanOrEqual(50);
    expect(readsWhenPaid).toBeGreaterThan(0);
    expect(readsWhenPaid).toBeLessThan(spendReads.length);
    // Every agent has its row, once.
    expect(new Set(board.agents.map((row) => row.agentId)).size).toBe(AGENTS);
  });
});
