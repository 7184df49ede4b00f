import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deployAgent, fundedAgent, micro, startCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';

/** Giving an agent's USDC back to the treasury, on the real embedded chain. */
describe("returning an agent's funds to the treasury", () => {
  const t = useCoffer();

  const treasury = () => t.coffer.chain.usdcBalance(t.owner);
  const ret = (agentId: string, body: Record<string, unknown> = {}, options: { key?: string; headers?: Record<string, string> } = {}) =>
    t.api('POST', t.withOwner(`/v1/agents/${agentId}/return`), { body, ...options });

  it('returns an amount, or everything available, on chain; the ledger, the chain and the audit agree', async () => {
    const agent = await fundedAgent(t, 'giver', '10');
    const before = await treasury();
    const part = await ret('giver', { amount: '2.5' });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({
      agentId: 'giver',
      returnId: expect.stringMatching(/^alc_/),
      amount: '2.50',
      currency: 'USDC',
      balance: '7.50',
    });
    expect(await treasury()).toBe(before + micro('2.5'));
    const rest = await ret('giver');
    expect(rest.body).toMatchObject({ amount: '7.50', balance: '0.00' });
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(0n);
    expect(await treasury()).toBe(before + micro('10'));
    const rows = t.coffer.db
      .prepare("SELECT amount, status, direction FROM allocations WHERE agent_id = 'giver' ORDER BY created_at")
      .all();
    expect(rows).toEqual([
      { amount: 10_000_000, status: 'confirmed', direction: 'to_agent' },
      { amount: 2_500_000, status: 'confirmed', direction: 'to_treasury' },
      { amount: 7_500_000, status: 'confirmed', direction: 'to_treasury' },
    ]);
    const actions = t.coffer.db.prepare("SELECT action FROM audit_log WHERE agent_id = 'giver' ORDER BY id").pluck().all();
    expect(actions.filter((action) => action === 'return.confirmed')).toHaveLength(2);
    // Nothing left: said, and nothing moves.
    const empty = await ret('giver');
    expect(empty.status).toBe(402);
    expect(empty.body).toMatchObject({ code: 'insufficient_funds', error: expect.stringMatching(/nothing to return/) });
  });

  it('works for a stopped agent; an agent key cannot return (owner only); more than available is refused and moves nothing', async () => {
    const agent = await fundedAgent(t, 'stopped-giver', '3');
    await t.api('POST', t.withOwner('/v1/agents/stopped-giver/kill'));
    expect((await ret('stopped-giver', {}, { key: agent.apiKey })).body.code).toBe('owner_only');
    const before = await treasury();
    const over = await ret('stopped-giver', { amount: '3.01' });
    expect(over.body.code).toBe('insufficient_funds');
    expect(await treasury()).toBe(before);
    expect((await ret('stopped-giver', { amount: 'lots' })).body.code).toBe('invalid_amount');
    expect((await ret('stopped-giver')).body.amount).toBe('3.00');
  });

  it('the same Idempotency-Key returns once; it cannot be reused for an allocation', async () => {
    await fundedAgent(t, 'once-giver', '4');
    const headers = { 'idempotency-key': 'give-back-1' };
    const first = await ret('once-giver', { amount: '1' }, { headers });
    const again = await ret('once-giver', { amount: '1' }, { headers });
    expect(again.body.returnId).toBe(first.body.returnId);
    expect((await t.api('GET', t.withOwner('/v1/agents/once-giver/balance'))).body.balance).toBe('3.00');
    const crossed = await t.api('POST', t.withOwner('/v1/agents/once-giver/allocate'), { body: { amount: '1' }, headers });
    expect(crossed.body.code).toBe('idempotency_key_reused');
  });

  it('a payment cannot spend what a return has reserved, nor a return what payments have: no overdraft under concurrency', async () => {
    const agent = await fundedAgent(t, 'raced', '1', { dailyBudget: '100', maxPerPayment: '1' });
    const payOnce = () => pay(t, 'raced', agent.apiKey, { service: 'demo-weather', amount: '0.01' });
    const answers = await Promise.all([...Array.from({ length: 20 }, payOnce), ret('raced'), ...Array.from({ length: 20 }, payOnce)]);
    const paid = answers.filter((a) => a.status === 200 && a.body.paymentId !== undefined).length;
    const returned = answers.find((a) => a.body.returnId !== undefined);
    const chain = await t.coffer.chain.usdcBalance(agent.walletAddress);
    // Every micro-USDC is accounted for: paid, returned, or still in the wallet.
    expect(BigInt(paid) * micro('0.01') + (returned ? micro(returned.body.amount) : 0n) + chain).toBe(micro('1'));
    for (const answer of answers) expect([200, 402], JSON.stringify(answer.body)).toContain(answer.status);
  });
});

describe('archiving an agent', () => {
  const t = useCoffer();

  it('needs an empty wallet; then the key stops at once, nothing can restart or fund it, and its history stays', async () => {
    const agent = await fundedAgent(t, 'retiring', '2');
    const paid = await pay(t, 'retiring', agent.apiKey, { service: 'demo-weather', amount: '0.01' });
    expect(paid.status).toBe(200);
    const archive = () => t.api('POST', t.withOwner('/v1/agents/retiring/archive'));
    const refused = await archive();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'agent_has_funds',
      error: expect.stringMatching(/still holds 1\.99 USDC on Solana: return it to the treasury first/),
    });
    expect((await t.api('POST', t.withOwner('/v1/agents/retiring/archive'), { key: agent.apiKey })).body.code).toBe('owner_only');

    await t.api('POST', t.withOwner('/v1/agents/retiring/return'));
    const archived = await archive();
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ agentId: 'retiring', status: 'archived', archivedAt: expect.any(String) });
    expect((await archive()).body).toEqual(archived.body);

    // The key is gone; nothing brings it back or funds it.
    expect((await t.api('GET', t.withOwner('/v1/agents/retiring/balance'), { key: agent.apiKey })).status).toBe(401);
    expect((await t.api('POST', t.withOwner('/v1/agents/retiring/resume'))).body.code).toBe('agent_archived');
    expect((await t.api('POST', t.withOwner('/v1/agents/retiring/allocate'), { body: { amount: '1' } })).body.code).toBe('agent_archived');
    expect((await t.api('POST', t.withOwner('/v1/agents/retiring/key'))).body.code).toBe('agent_archived');
    // Its policy is kept as it was when archived, and read as an archived agent's: a change would limit nothing.
    const policyBefore = (await t.api('GET', t.withOwner('/v1/agents/retiring/policy'))).body;
    expect(policyBefore.archivedAt).toBe(archived.body.archivedAt);
    const changed = await t.api('POST', t.withOwner('/v1/agents/retiring/policy'), { body: { dailyBudget: '100' } });
    expect({ status: changed.status, code: changed.body.code }).toEqual({ status: 409, code: 'agent_archived' });
    // Nor is a change tried on its past: it could not be applied.
    const tried = await t.api('POST', t.withOwner('/v1/agents/retiring/policy/what-if'), { body: { dailyBudget: '100' } });
    expect({ status: tried.status, code: tried.body.code }).toEqual({ status: 409, code: 'agent_archived' });
    expect((await t.api('GET', t.withOwner('/v1/agents/retiring/policy'))).body).toEqual(policyBefore);
    expect((await t.api('POST', t.withOwner('/v1/resume-all'))).body.resumed).not.toContain('retiring');
    expect(
      (await t.api('POST', t.withOwner('/v1/agents/deploy'), { body: { agentId: 'retiring', dailyBudget: '1', maxPerPayment: '1' } })).body
        .code,
    ).toBe('agent_exists');

    // Out of the lists; its history is still there for the owner.
    const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
    expect(dashboard.agents.map((a: { agentId: string }) => a.agentId)).not.toContain('retiring');
    expect(dashboard.archivedAgents).toEqual([
      expect.objectContaining({ agentId: 'retiring', status: 'suspended', archivedAt: archived.body.archivedAt }),
    ]);
    const history = await t.api('GET', t.withOwner('/v1/agents/retiring/spend-history'));
    expect(history.body.payments).toHaveLength(1);
    expect(
      t.coffer.db.prepare("SELECT action FROM audit_log WHERE agent_id = 'retiring' AND action = 'agent.archive'").pluck().all(),
    ).toHaveLength(1);
  });
});

describe('an archived agent and the retries of what came before', () => {
  const t = useCoffer();

  it('an allocation replayed with its Idempotency-Key after the archive answers its first result, and moves nothing again', async () => {
    await deployAgent(t, 'replayed-after-archive');
    const allocate = (key: string) =>
      t.api('POST', t.withOwner('/v1/agents/replayed-after-archive/allocate'), {
        body: { amount: '0.50' },
        headers: { 'idempotency-key': key },
      });
    const first = await allocate('alloc-before-archive');
    expect(first.status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/replayed-after-archive/return'))).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/replayed-after-archive/archive'))).status).toBe(200);
    const treasury = await t.coffer.chain.usdcBalance(t.owner);

    const replayed = await allocate('alloc-before-archive');
    // The first allocation again (API.md: `balance` is read afresh, and the wallet was emptied since).
    expect({ status: replayed.status, body: replayed.body }).toEqual({ status: 200, body: { ...first.body, balance: '0.00' } });
    expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasury);
    // A new key is a new allocation: refused, as before.
    expect((await allocate('alloc-after-archive')).body.code).toBe('agent_archived');
  });

  it('an agent holding USDC on Base is archived only once that is returned too; then its Base account is paid no more', async () => {
    await deployAgent(t, 'base-holder');
    const baseAccount = (await t.api('GET', t.withOwner('/v1/agents/base-holder/balance'))).body.wallets.base as string;
    const allocated = await t.api('POST', t.withOwner('/v1/agents/base-holder/allocate'), { body: { amount: '0.50', rail: 'base' } });
    expect(allocated.status).toBe(200);
    const archive = () => t.api('POST', t.withOwner('/v1/agents/base-holder/archive'));
    const refused = await archive();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'agent_has_funds',
      error: expect.stringMatching(/0\.50 USDC on Base: return it to the treasury first/),
    });
    expect((await t.api('POST', t.withOwner('/v1/agents/base-holder/return'), { body: { rail: 'base' } })).status).toBe(200);
    expect((await archive()).status).toBe(200);
    const payer = await deployAgent(t, 'payer-of-archived-base');
    expect(
      (await t.api('POST', t.withOwner('/v1/agents/payer-of-archived-base/allocate'), { body: { amount: '1', rail: 'base' } })).status,
    ).toBe(200);
    const paid = await pay(t, 'payer-of-archived-base', payer.apiKey, { service: 'to-archived', recipient: baseAccount, amount: '0.10' });
    expectError(paid, 409, 'recipient_archived', /base-holder.*archived/);
  });

  it("a payment to an archived agent's wallet is refused (409 recipient_archived) and moves nothing", async () => {
    // Funded once, so its wallet has a USDC account a payment could land in; emptied, then archived.
    const archived = await fundedAgent(t, 'archived-recipient', '0.50');
    expect((await t.api('POST', t.withOwner('/v1/agents/archived-recipient/return'))).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/archived-recipient/archive'))).status).toBe(200);
    const payer = await fundedAgent(t, 'payer-of-archived', '1.00');
    const before = await t.coffer.chain.usdcBalance(payer.walletAddress);
    const paid = await pay(t, 'payer-of-archived', payer.apiKey, {
      service: 'to-archived',
      recipient: archived.walletAddress,
      amount: '0.10',
    });
    expectError(paid, 409, 'recipient_archived', /archived-recipient.*archived/);
    expect(await t.coffer.chain.usdcBalance(payer.walletAddress)).toBe(before);
    expect(await t.coffer.chain.usdcBalance(archived.walletAddress)).toBe(0n);
  });
});

describe('archiving where the Base rail is off', () => {
  it('an agent the ledger ever funded on Base is refused (503 rail_unavailable): its account there cannot be read', async () => {
    let t = await startCoffer({ keepDataDir: true });
    const dataDir = t.dataDir;
    try {
      // Holding USDC on Solana too: the rail's refusal comes before any balance is judged (the
      // dashboard asks the archive first where the rail is off, and returns nothing when refused so).
      await fundedAgent(t, 'left-on-base', '0.30');
      await deployAgent(t, 'returned-on-base');
      await fundedAgent(t, 'solana-only', '0.20');
      for (const agentId of ['left-on-base', 'returned-on-base']) {
        const allocated = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: '0.40', rail: 'base' } });
        expect(allocated.status).toBe(200);
      }
      expect((await t.api('POST', t.withOwner('/v1/agents/returned-on-base/return'), { body: { rail: 'base' } })).status).toBe(200);
      await t.stop();

      t = await startCoffer({ dataDir, keepDataDir: true, baseRpc: 'off' });
      const archive = (agentId: string) => t.api('POST', t.withOwner(`/v1/agents/${agentId}/archive`));
      // Left there or given back since, Coffer cannot tell now: nothing is archived until the rail is open.
      for (const agentId of ['left-on-base', 'returned-on-base']) {
        expectError(await archive(agentId), 503, 'rail_unavailable', new RegExp(`"${agentId}" took USDC on Base.*open the Base rail`));
        expect((await t.api('GET', t.withOwner(`/v1/agents/${agentId}`))).body.archivedAt ?? null).toBeNull();
      }
      // Never funded on Base: refused for its Solana USDC alone (the dashboard then returns it), archived once returned.
      expectError(await archive('solana-only'), 409, 'agent_has_funds', /"solana-only" still holds 0\.20 USDC/);
      expect((await t.api('POST', t.withOwner('/v1/agents/solana-only/return'))).status).toBe(200);
      expect((await archive('solana-only')).status).toBe(200);
      await t.stop();

      // With the rail open again, the one given back is archived; the other holds its 0.40 there.
      t = await startCoffer({ dataDir, keepDataDir: true });
      expect((await archive('returned-on-base')).status).toBe(200);
      expectError(await archive('left-on-base'), 409, 'agent_has_funds', /0\.40 USDC on Base/);
    } finally {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
