import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { MemoryChain } from '../../../../fixtures/memory-chain.js';
import { parseAmount } from '../../../../../server/wire/money.js';

/**
 * Issue 49: each row of the owner's agents (GET /v1/agents, the dashboard) carries its balance on each
 * rail, Base read once for a page of agents; a Base node that does not answer leaves those balances
 * unknown and never fails the answer, and `balance` stays the Solana one.
 */
let core: CoreEngine;
afterEach(() => core?.close());

/** The core engine with a second in-memory chain open as its Base rail. */
async function withBase(store: (typeof STORES)[number]) {
  core = await coreEngine({ store });
  const base = new MemoryChain();
  core.engine.ctx.base = base;
  const accountOf = (agentId: string) => core.engine.balance(core.asOwner, agentId).then((answer) => answer.wallets.base!);
  return { base, accountOf };
}

describe.each(STORES)('on the %s ledger', (store) => {
  it("carries each agent's balance on Base, read in one batch for a page of agents", async () => {
    const { base, accountOf } = await withBase(store);
    await core.fundedAgent('sol-funded', '2');
    await core.engine.deployAgent(core.asOwner, { agentId: 'base-funded', dailyBudget: '1', maxPerPayment: '1' });
    base.mint(await accountOf('base-funded'), parseAmount('1.25'));
    base.calls.clear();

    const { agents } = await core.engine.listAgents(core.asOwner);
    expect(agents.map(({ agentId, balance, balances }) => ({ agentId, balance, balances }))).toEqual(
      expect.arrayContaining([
        { agentId: 'sol-funded', balance: '2.00', balances: { sol: '2.00', base: '0.00' } },
        { agentId: 'base-funded', balance: '0.00', balances: { sol: '0.00', base: '1.25' } },
      ]),
    );
    expect(agents).toHaveLength(2);
    expect(Object.fromEntries(base.calls)).toEqual({ usdcBalances: 1 });
  });

  it('reads Base once a page, 50 agents to a page', async () => {
    const { base } = await withBase(store);
    for (let i = 0; i < 51; i++) await core.engine.deployAgent(core.asOwner, { agentId: `a-${i}`, dailyBudget: '1', maxPerPayment: '1' });
    base.calls.clear();
    const board = await core.engine.dashboard(core.asOwner);
    expect(board.agents.every((row) => row.balances.base === '0.00')).toBe(true);
    // Two pages of agents; the treasury's own balance is the one read of a single account.
    expect(Object.fromEntries(base.calls)).toMatchObject({ usdcBalances: 2, usdcBalance: 1 });
  });

  it('a Base node that does not answer leaves each balance there unknown, logged, and the dashboard answers', async () => {
    const { base } = await withBase(store);
    for (let i = 0; i < 60; i++) await core.engine.deployAgent(core.asOwner, { agentId: `a-${i}`, dailyBudget: '1', maxPerPayment: '1' });
    await core.fundedAgent('funded', '3');
    await core.engine.deployAgent(core.asOwner, { agentId: 'retired', dailyBudget: '1', maxPerPayment: '1' });
    await core.engine.archive(core.asOwner, 'retired');
    base.offline = true;
    base.calls.clear();
    const board = await core.engine.dashboard(core.asOwner);
    expect(board.agents).toHaveLength(61);
    expect(board.agents.every((row) => row.balances.base === null)).toBe(true);
    expect(board.agents.find((row) => row.agentId === 'funded')).toMatchObject({ balance: '3.00', balances: { sol: '3.00', base: null } });
    expect(board.treasury.balances.base).toBeNull();
    expect(board.archivedAgents).toMatchObject([{ agentId: 'retired', balances: { sol: '0.00', base: null } }]);
    // Asked once, for the first page of rows: nothing after it (the other pages, the treasury, the
    // archived agents) waits on a node that did not answer.
    expect(Object.fromEntries(base.calls)).toEqual({ usdcBalances: 1 });
    expect(core.logs.some((line) => /Base rail's node did not answer/.test(line))).toBe(true);
  });

  it('with the Base rail off, every balance on Base is null', async () => {
    core = await coreEngine({ store });
    await core.fundedAgent('solana-only', '1');
    const { agents } = await core.engine.listAgents(core.asOwner);
    expect(agents[0]).toMatchObject({ balance: '1.00', balances: { sol: '1.00', base: null } });
  });
});
