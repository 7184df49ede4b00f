import { afterEach, describe, expect, it } from 'vitest';
import { admitWhatIf, WHAT_IFS_AT_ONCE, WHAT_IFS_A_MINUTE, type WhatIfUse } from '../../../../../server/core/policy/what-if-limits.js';
import { replayHistory, type ReplayStore } from '../../../../../server/core/policy/replay.js';
import type { Principal } from '../../../../../server/core/auth.js';
import type { PolicyReplay, PolicyReplayRequest, PolicyReplays, ReplayAsker } from '../../../../../server/core/ports/policy-replays.js';
import { CofferError } from '../../../../../server/wire/errors.js';
import { coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

const OWNER = 'owner-address';
const agent = (agentId: string, owner = OWNER): Principal => ({ kind: 'agent', owner, agentId });
const refusal = (fn: () => unknown): CofferError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof CofferError) return error;
    throw error;
  }
  throw new Error('admitted');
};

describe('how many what-ifs a key may ask', () => {
  it(`holds an agent's key to ${WHAT_IFS_AT_ONCE} at once; one answered, it asks again`, () => {
    const uses = new Map<string, WhatIfUse>();
    const releases = Array.from({ length: WHAT_IFS_AT_ONCE }, () => admitWhatIf(uses, agent('a'), 0));
    const refused = refusal(() => admitWhatIf(uses, agent('a'), 0));
    expect(refused).toMatchObject({ code: 'slow_down', retryAfterSeconds: 1 });
    expect(refused.message).toMatch(/already has 2 what-ifs running/);
    // Another agent, or the same id under another owner, is another key.
    admitWhatIf(uses, agent('b'), 0);
    admitWhatIf(uses, agent('a', 'another-owner'), 0);
    releases[0]!();
    // Released twice counts once.
    releases[0]!();
    admitWhatIf(uses, agent('a'), 0);
    expect(() => admitWhatIf(uses, agent('a'), 0)).toThrow(CofferError);
  });

  it(`holds an agent's key to ${WHAT_IFS_A_MINUTE} a minute, saying when the oldest leaves it`, () => {
    const uses = new Map<string, WhatIfUse>();
    for (let i = 0; i < WHAT_IFS_A_MINUTE; i += 1) admitWhatIf(uses, agent('a'), i * 1000)();
    const refused = refusal(() => admitWhatIf(uses, agent('a'), 40_500));
    // The first was admitted at 0: it leaves the minute at 60 s, 19.5 s later.
    expect(refused).toMatchObject({ code: 'slow_down', retryAfterSeconds: 20 });
    expect(refused.message).toMatch(/asked 30 what-ifs in the last minute: ask again in 20 s/);
    admitWhatIf(uses, agent('a'), 60_000)();
    expect(() => admitWhatIf(uses, agent('a'), 60_000)).toThrow(/in the last minute/);
  });

  it("never refuses the owner's, however many", () => {
    const uses = new Map<string, WhatIfUse>();
    for (let i = 0; i < 100; i += 1) admitWhatIf(uses, { kind: 'owner', owner: OWNER }, 0);
    expect(uses.size).toBe(0);
  });
});

/** A PolicyReplays port whose replays end when the test says (then replayed in process over `store`): what-ifs held running. */
function heldReplays(store: () => ReplayStore) {
  const asked: { asker: ReplayAsker; finish(): void; fail(): void }[] = [];
  const port: PolicyReplays = {
    replay: (request: PolicyReplayRequest, asker: ReplayAsker) =>
      new Promise<PolicyReplay>((resolve, reject) =>
        asked.push({ asker, finish: () => resolve(replayHistory(store(), request)), fail: () => reject(new Error('the replay failed')) }),
      ),
  };
  return { port, asked };
}

let core: CoreEngine;
afterEach(() => core?.close());

describe('what-ifs asked of the engine', () => {
  it("refuses an agent's third at once until one is answered (failed ones too); the owner's pass and are asked as the owner's", async () => {
    const held = heldReplays(() => core.store);
    core = await coreEngine({ policyReplays: held.port });
    const { engine, asAgent, asOwner, fundedAgent } = core;
    await fundedAgent('alpha', '10');
    const running = [engine.policyWhatIf(asAgent('alpha'), 'alpha', {}), engine.policyWhatIf(asAgent('alpha'), 'alpha', {})];
    await expectCofferError(engine.policyWhatIf(asAgent('alpha'), 'alpha', {}), 'slow_down', /already has 2 what-ifs running/);
    const owners = [engine.policyWhatIf(asOwner, 'alpha', {}), engine.policyWhatIf(asOwner, 'alpha', {})];
    expect(held.asked.map(({ asker }) => asker)).toEqual(['agent', 'agent', 'owner', 'owner']);
    // A replay that fails answers its error, and no longer counts as running.
    held.asked[0]!.fail();
    await expect(running[0]).rejects.toThrow('the replay failed');
    const again = engine.policyWhatIf(asAgent('alpha'), 'alpha', {});
    for (const each of held.asked.slice(1)) each.finish();
    expect((await Promise.all([running[1]!, again, ...owners])).map((answer) => answer.agentId)).toEqual([
      'alpha',
      'alpha',
      'alpha',
      'alpha',
    ]);
  });

  it('checks the change before counting it: a refused change takes no place', async () => {
    const held = heldReplays(() => core.store);
    core = await coreEngine({ policyReplays: held.port });
    const { engine, asAgent, fundedAgent } = core;
    await fundedAgent('alpha', '10');
    for (let i = 0; i < 5; i += 1)
      await expect(engine.policyWhatIf(asAgent('alpha'), 'alpha', { maxPerPayment: 'lots' })).rejects.toThrow();
    expect(held.asked).toHaveLength(0);
    void engine.policyWhatIf(asAgent('alpha'), 'alpha', {});
    void engine.policyWhatIf(asAgent('alpha'), 'alpha', {});
    expect(held.asked).toHaveLength(2);
  });
});
