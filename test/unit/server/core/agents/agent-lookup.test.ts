import { afterEach, describe, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * An agent is named by its id in every call and command; its display name is what the dashboard and
 * a link show. A link made with `--name linked1` leaves an agent whose id is another: an owner typing
 * that name is told which id it is, not only that there is no such agent.
 */
let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it("a name that is an agent's display name, not its id, is answered with the id it names", async () => {
    core = await coreEngine({ store });
    await core.fundedAgent('agt-7f3k', '1');
    core.engine.rename(core.asOwner, 'agt-7f3k', 'Linked One');
    await expectCofferError(
      core.engine.allocate(core.asOwner, 'linked one', '1'),
      'agent_not_found',
      /^no agent "linked one" for this owner: "Linked One" is the display name of agent "agt-7f3k", which is named by its id$/,
    );
    // A mistyped id is still named with the one it most likely meant.
    await expectCofferError(core.engine.allocate(core.asOwner, 'agt-7f3x', '1'), 'agent_not_found', /\(did you mean "agt-7f3k"\?\)$/);
  });

  it('a display name two agents share names neither: both are said', async () => {
    core = await coreEngine({ store });
    await core.fundedAgent('alpha', '1');
    await core.fundedAgent('beta', '1');
    core.engine.rename(core.asOwner, 'alpha', 'Scout');
    core.engine.rename(core.asOwner, 'beta', 'scout');
    await expectCofferError(
      core.engine.allocate(core.asOwner, 'Scout', '1'),
      'agent_not_found',
      /^no agent "Scout" for this owner: agents "alpha" and "beta" are displayed as that name, and are named by their ids$/,
    );
  });
});
