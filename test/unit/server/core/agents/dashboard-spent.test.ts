import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';

/**
 * The overview's "Agents' payments in the last 24 h" is what left the agents' wallets for payments in
 * that time. An agent archived since (its rest returned, its row gone from the list) still spent what
 * it spent: summing the listed rows alone dropped it.
 */
const SELLER = randomAddress();
let core: CoreEngine;
afterEach(() => core?.close());

/** Two agents that paid today (0.25 and 0.10, 0.35 in all), the second's rest returned, ready to archive. */
async function twoAgentsPaid(store: (typeof STORES)[number]): Promise<void> {
  core = await coreEngine({ store, treasury: '1000' });
  core.chain.mint(SELLER, 1n);
  await core.fundedAgent('alpha', '2', { dailyBudget: '10', maxPerPayment: '5' });
  await core.fundedAgent('scraper', '1', { dailyBudget: '10', maxPerPayment: '5' });
  await core.paid('alpha', { service: 'forecast-api', recipient: SELLER, amount: '0.25' });
  await core.paid('scraper', { service: 'forecast-api', recipient: SELLER, amount: '0.10' });
  await core.engine.returnFunds(core.asOwner, 'scraper', null);
}

describe.each(STORES)('on the %s ledger', (store) => {
  it("counts in the day's total what an agent archived since spent, which its row no longer shows", async () => {
    await twoAgentsPaid(store);
    await core.engine.archive(core.asOwner, 'scraper');
    const board = await core.engine.dashboard(core.asOwner);
    expect(board.agents.map((row) => [row.agentId, row.spent24h])).toEqual([['alpha', '0.25']]);
    expect(board.archivedAgents.map((agent) => agent.agentId)).toEqual(['scraper']);
    expect(board).toMatchObject({ spent24h: '0.35', held24h: '0.00' });
  });

  it('counts an agent archived while the overview reads its rows once: its row already holds it', async () => {
    await twoAgentsPaid(store);
    const reading = core.engine.dashboard(core.asOwner);
    await core.engine.archive(core.asOwner, 'scraper');
    const board = await reading;
    expect(board.agents.map((row) => row.agentId).sort()).toEqual(['alpha', 'scraper']);
    expect(board.spent24h).toBe('0.35');
  });
});
