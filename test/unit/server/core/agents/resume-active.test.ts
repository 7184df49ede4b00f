import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';

/**
 * An agent asks the owner to resume it (a request the owner decides). One that is not stopped has
 * nothing to ask: its request sat in the owner's queue, and a yes to it changed nothing.
 */
let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it('an active agent asking to be resumed is told it is active, and the owner is asked nothing', async () => {
    core = await coreEngine({ store });
    await core.fundedAgent('alpha', '1');
    const asked = core.engine.resume(core.asAgent('alpha'), 'alpha');
    expect(asked).toEqual({ kind: 'done', result: { agentId: 'alpha', status: 'active', was: 'active' } });
    expect(core.engine.approvals(core.asOwner, 'pending').approvals).toEqual([]);
    // Stopped, it still asks, and waits for the owner.
    core.engine.kill(core.asOwner, 'alpha');
    expect(core.engine.resume(core.asAgent('alpha'), 'alpha')).toMatchObject({ kind: 'awaiting_approval' });
    expect(core.engine.approvals(core.asOwner, 'pending').approvals).toHaveLength(1);
  });
});
