import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeImageProvider } from '../fixtures/fake-image-provider.js';
import { deployAgent, fundedAgent, micro, type TestCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';

/**
 * Issue 22, point 2: archived agents ended up holding USDC (an allocation accepted before the archive
 * landing after it; a failed generation's refund after the archive), although an archive promises an
 * empty wallet. After an archive nothing may leave money in an archived wallet where the owner does
 * not see it: moves on their way in are settled first, an archived agent's refunds stay in the
 * treasury, and the dashboard shows any balance an archived agent still holds, with Return.
 */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never settled');
}

const archivedBalances = async (t: TestCoffer, agentIds: string[]) => {
  const rows = t.coffer.db
    .prepare(`SELECT agent_id, wallet_address FROM agents WHERE archived_at IS NOT NULL AND agent_id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(agentIds)) as { agent_id: string; wallet_address: string }[];
  const balances = await t.coffer.chain.usdcBalances(rows.map((row) => row.wallet_address));
  return { archived: rows.length, holding: rows.filter((row) => (balances.get(row.wallet_address) ?? 0n) > 0n).map((row) => row.agent_id) };
};

describe('an archived agent holds no USDC the owner does not see', () => {
  let provider: FakeImageProvider;
  beforeAll(async () => {
    provider = await new FakeImageProvider().start();
  });
  afterAll(async () => provider.stop());
  const t = useCoffer(() => ({ imageProviderUrl: provider.url }));

  it('an allocation racing the archive either lands before it (and the archive is refused) or is refused itself', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `racer-${i}`);
    for (const id of ids) await deployAgent(t, id);
    const treasuryBefore = await t.coffer.chain.usdcBalance(t.owner);
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const allocate = () => t.api('POST', t.withOwner(`/v1/agents/${id}/allocate`), { body: { amount: '0.10' } });
        const archive = () => t.api('POST', t.withOwner(`/v1/agents/${id}/archive`));
        // The archive arrives a little later each time: before the allocation is reserved, while it is
        // on its way to the chain, and after it landed.
        const later = new Promise((resolve) => setTimeout(resolve, i % 10)).then(archive);
        const [allocated, archived] = await Promise.all([allocate(), later]);
        return { allocated: allocated!.status, archived: archived!.status };
      }),
    );
    const { archived, holding } = await archivedBalances(t, ids);
    expect(holding).toEqual([]);
    expect(archived).toBe(outcomes.filter((o) => o.archived === 200).length);
    // Every allocation answered 200 moved 0.10 out of the treasury; no other did.
    const moved = outcomes.filter((o) => o.allocated === 200).length;
    expect(treasuryBefore - (await t.coffer.chain.usdcBalance(t.owner))).toBe(micro('0.10') * BigInt(moved));
  });

  it('a generation that fails after its agent was archived is refunded to the treasury, not to the archived wallet', async () => {
    const agent = await fundedAgent(t, 'late-refund', '0.08');
    provider.hold();
    provider.mode = 'fail';
    try {
      const created = await t.api('POST', t.withOwner('/v1/agents/late-refund/generate'), {
        key: agent.apiKey,
        body: { prompt: 'a lighthouse', modelId: 'flux-pro', resolution: '2k' },
      });
      expect(created.status).toBe(200);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(0n);
      const treasuryAfterCharge = await t.coffer.chain.usdcBalance(t.owner);
      expect((await t.api('POST', t.withOwner('/v1/agents/late-refund/archive'))).status).toBe(200);
      provider.release();
      const task = await waitFor(
        async () => (await t.api('GET', t.withOwner(`/v1/agents/late-refund/tasks/${created.body.taskId}`))).body,
        (body) => body.refund !== undefined && body.refund.status !== 'pending',
      );
      expect(task).toMatchObject({ status: 'failed', refund: { amount: '0.08', status: 'confirmed', to: 'treasury', txSignature: null } });
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(0n);
      expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasuryAfterCharge);
      const audit = t.coffer.db.prepare("SELECT action FROM audit_log WHERE agent_id = 'late-refund'").pluck().all();
      expect(audit).toContain('refund.kept_in_treasury');
    } finally {
      provider.mode = 'ok';
      provider.release();
    }
  });

  it('the dashboard shows what an archived agent still holds, and Return gives it back to the treasury', async () => {
    const agent = await fundedAgent(t, 'left-with-money', '0.40');
    // An archive from before these rules (or USDC sent to the wallet from outside): the wallet holds money.
    t.coffer.db.prepare("UPDATE agents SET archived_at = ?, status = 'suspended' WHERE agent_id = 'left-with-money'").run(Date.now());
    const shown = async () =>
      ((await t.api('GET', t.withOwner('/v1/dashboard'))).body.archivedAgents as { agentId: string }[]).find(
        (archived) => archived.agentId === 'left-with-money',
      );
    expect(await shown()).toMatchObject({ status: 'suspended', balance: '0.40' });
    const treasuryBefore = await t.coffer.chain.usdcBalance(t.owner);
    const returned = await t.api('POST', t.withOwner('/v1/agents/left-with-money/return'));
    expect(returned.status).toBe(200);
    expect(returned.body).toMatchObject({ amount: '0.40', balance: '0.00' });
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(0n);
    expect((await t.coffer.chain.usdcBalance(t.owner)) - treasuryBefore).toBe(micro('0.40'));
    expect(await shown()).toMatchObject({ balance: '0.00' });
  });

  it("the dashboard shows what an archived agent's Base account still holds, and Return on Base gives it back", async () => {
    await deployAgent(t, 'left-on-base');
    expect((await t.api('POST', t.withOwner('/v1/agents/left-on-base/allocate'), { body: { amount: '0.30', rail: 'base' } })).status).toBe(
      200,
    );
    // USDC that reached the Base account after the archive (from outside, or an archive from before Base was checked).
    t.coffer.db.prepare("UPDATE agents SET archived_at = ?, status = 'suspended' WHERE agent_id = 'left-on-base'").run(Date.now());
    const shown = async () =>
      ((await t.api('GET', t.withOwner('/v1/dashboard'))).body.archivedAgents as { agentId: string }[]).find(
        (archived) => archived.agentId === 'left-on-base',
      );
    expect(await shown()).toMatchObject({ balance: '0.00', balances: { sol: '0.00', base: '0.30' } });
    const returned = await t.api('POST', t.withOwner('/v1/agents/left-on-base/return'), { body: { rail: 'base' } });
    expect(returned.status).toBe(200);
    expect(returned.body).toMatchObject({ amount: '0.30', rail: 'base', balance: '0.00' });
    expect(await shown()).toMatchObject({ balances: { sol: '0.00', base: '0.00' } });
  });
});
