import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster } from '../fixtures/test-cluster.js';
import { deployAgent, micro, reconcileUntilConfirmed, startCoffer, type TestCoffer } from '../helpers/coffer.js';

/**
 * Nothing on a money path is swallowed: what the engine catches and no caller is told (the chain not
 * answering while it reconciles, a transaction it could not send again) is logged with the row it
 * concerns. Against an RPC cluster that goes offline, as a remote one does.
 */
describe('the log of a money path', () => {
  let cluster: TestCluster;
  let t: TestCoffer;
  const lines: string[] = [];
  beforeAll(async () => {
    cluster = await new TestCluster().start();
    t = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address, log: (line) => lines.push(line) });
    cluster.airdrop(t.owner);
    await cluster.depositFromOutside(t.owner, micro('5'));
  });
  afterAll(async () => {
    await t.stop();
    await cluster.stop();
  });

  it('names the row that stays pending when the chain cannot be asked, and it settles once the chain answers', async () => {
    await deployAgent(t, 'logged');
    // The allocation is sent, then the cluster goes away before it is confirmed.
    cluster.offlineAfterNextSend = true;
    const allocate = await t.api('POST', t.withOwner('/v1/agents/logged/allocate'), { body: { amount: '1' } });
    expect(allocate.body.code).toBe('chain_unavailable');
    const pending = t.coffer.db.prepare("SELECT id FROM allocations WHERE status = 'pending'").pluck().all() as string[];
    expect(pending).toHaveLength(1);
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
    const unasked = new RegExp(`^reconcile: allocation ${pending[0]} stays pending: the chain could not be asked \\(.+\\)$`);
    expect(lines).toContainEqual(expect.stringMatching(unasked));
    // Asked again each round, said once.
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
    expect(lines.filter((line) => unasked.test(line))).toHaveLength(1);
    cluster.offline = false;
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 1, failed: 0, stillPending: 0 });
  });

  it('names the row it could not send again, and sends it at a later round, where it lands once', async () => {
    // Sent, never seen by the cluster (a node that drops it), then the cluster goes away while Coffer waits.
    cluster.dropNextSend = true;
    const allocating = t.api('POST', t.withOwner('/v1/agents/logged/allocate'), { body: { amount: '1' } });
    const sentRow = () =>
      t.coffer.db.prepare("SELECT id FROM allocations WHERE status = 'pending' AND tx_signature IS NOT NULL").pluck().get() as
        string | undefined;
    const deadline = Date.now() + 10_000;
    while (sentRow() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const id = sentRow()!;
    cluster.offline = true;
    expect((await allocating).body.code).toBe('chain_unavailable');
    cluster.offline = false;
    // The cluster answers, but refuses to take the transaction again for now.
    cluster.throttle = { method: 'sendTransaction', allow: 0 };
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
    const notSent = new RegExp(`^reconcile: allocation ${id} could not be sent again \\(.+\\); it stays pending, tried again each round$`);
    expect(lines).toContainEqual(expect.stringMatching(notSent));
    // Tried again each round (every 15 s in the chain watch), said once.
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 1 });
    expect(lines.filter((line) => notSent.test(line))).toHaveLength(1);
    cluster.throttle = null;
    // Sent again at the next rounds until the cluster has it; then confirmed, once.
    expect(await reconcileUntilConfirmed(t)).toBe(1);
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 0 });
    expect((await t.api('GET', t.withOwner('/v1/agents/logged/balance'))).body.balance).toBe('2.00');
  });
});
