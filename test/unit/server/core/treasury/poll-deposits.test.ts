import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { MemoryChain } from '../../../../fixtures/memory-chain.js';
import { addressOn } from '../../../../../server/core/rails.js';
import { parseAmount } from '../../../../../server/wire/money.js';

/**
 * The chain watch's deposits, rail by rail: a rail's node that cannot be read is named in the answer
 * (the watch logs it as that rail's RPC), while a failure to record what was read (the ledger's) is
 * thrown, not passed off as the node's.
 */
let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it("names a rail whose node cannot be read, and records the other's deposits", async () => {
    core = await coreEngine({ store });
    const base = new MemoryChain();
    core.engine.ctx.base = base;
    base.mint(addressOn(core.engine.ctx, core.owner, 'base'), parseAmount('2'));
    base.offline = true;
    const away = await core.engine.pollDeposits(core.owner);
    expect(away.unread.map(({ rail, error }) => [rail, error.constructor.name])).toEqual([['base', 'CofferError']]);
    base.offline = false;
    expect(await core.engine.pollDeposits(core.owner, ['base'])).toEqual({ recorded: 1, unread: [] });
  });

  it("throws a failure to record what was read: the ledger's, not the node's", async () => {
    core = await coreEngine({ store });
    const base = new MemoryChain();
    core.engine.ctx.base = base;
    base.mint(addressOn(core.engine.ctx, core.owner, 'base'), parseAmount('2'));
    core.engine.ctx.store.insertChainDeposit = () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    await expect(core.engine.pollDeposits(core.owner, ['base'])).rejects.toThrow('SQLITE_FULL');
  });
});
