import { describeRequest } from '../../server/wire/describe-request.js';
import { describe, expect, it, vi } from 'vitest';
import { deployAgent, fundedAgent, manualClock, micro, UNLISTED_API } from '../helpers/coffer.js';
import { acrossRestart } from '../helpers/restart.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { pay } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';

const DAY = 24 * 60 * 60 * 1000;

describe('approvals: an agent asks, only the owner loosens', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });

  const ask = (agentId: string, key: string, path: string, body?: unknown) =>
    t.api('POST', t.withOwner(`/v1/agents/${agentId}/${path}`), { key, body });
  const approve = (id: string) => t.api('POST', t.withOwner(`/v1/approvals/${id}/approve`));
  const deny = (id: string) => t.api('POST', t.withOwner(`/v1/approvals/${id}/deny`));

  it('a looser policy waits in the inbox and is applied exactly as asked when approved, once', async () => {
    const agent = await deployAgent(t, 'asker', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const asked = await ask('asker', agent.apiKey, 'policy', { dailyBudget: '8.00', cooldownSeconds: 0 });
    expect(asked.status).toBe(202);
    const inbox = await t.api('GET', t.withOwner('/v1/approvals?status=pending'));
    expect(inbox.body.approvals.map((a: { approvalId: string }) => a.approvalId)).toContain(asked.body.approvalId);
    expect((await t.api('GET', t.withOwner('/v1/agents/asker/policy'))).body.policy.dailyBudget).toBe('5.00');

    const approved = await approve(asked.body.approvalId);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'approved',
      result: { agentId: 'asker', policy: { dailyBudget: '8.00', maxPerPayment: '1.00' } },
    });
    expect((await t.api('GET', t.withOwner('/v1/agents/asker/policy'))).body.policy.dailyBudget).toBe('8.00');
    const again = await approve(asked.body.approvalId);
    expectError(again, 409, 'approval_decided');
    // The agent can follow its own request.
    const mine = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`), { key: agent.apiKey });
    expect(mine.body.status).toBe('approved');
  });

  it('an allocation approved twice at once moves the money once', async () => {
    const agent = await fundedAgent(t, 'funder', '1.00');
    const asked = await ask('funder', agent.apiKey, 'allocate', { amount: '2.50' });
    expect(asked.status).toBe(202);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));
    const [a, b] = await Promise.all([approve(asked.body.approvalId), approve(asked.body.approvalId)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('3.50'));
  });

  it('a denied request is never carried out', async () => {
    const agent = await deployAgent(t, 'denied', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const asked = await ask('denied', agent.apiKey, 'allocate', { amount: '1.00' });
    expect((await deny(asked.body.approvalId)).body.status).toBe('denied');
    expect((await approve(asked.body.approvalId)).body.code).toBe('approval_decided');
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(0n);
  });

  it('an expired request is never carried out', async () => {
    const agent = await deployAgent(t, 'late', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const asked = await ask('late', agent.apiKey, 'policy', { dailyBudget: '50.00' });
    clock.advance(DAY + 1);
    const listed = await t.api('GET', t.withOwner('/v1/approvals'));
    expect(listed.body.approvals.find((a: { approvalId: string }) => a.approvalId === asked.body.approvalId).status).toBe('expired');
    expect((await approve(asked.body.approvalId)).body.code).toBe('approval_decided');
    expect((await t.api('GET', t.withOwner('/v1/agents/late/policy'))).body.policy.dailyBudget).toBe('5.00');
  });

  it('an agent that killed itself asks to resume; the owner grants it', async () => {
    const agent = await deployAgent(t, 'sleeper');
    await ask('sleeper', agent.apiKey, 'kill');
    const asked = await ask('sleeper', agent.apiKey, 'resume');
    expect(asked.body).toMatchObject({ kind: 'resume', status: 'pending', request: {} });
    // Stopped by a person (itself), not its breaker: there is no reason to carry.
    expect(describeRequest(asked.body.kind, asked.body.request)).toBe('Resume itself (payments allowed again)');
    expect((await approve(asked.body.approvalId)).body.result).toEqual({ agentId: 'sleeper', status: 'active', was: 'suspended' });
  });

  it('an agent asking for another agent gets its key once, after approval', async () => {
    const parent = await deployAgent(t, 'parent');
    const asked = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      key: parent.apiKey,
      body: { agentId: 'child', dailyBudget: '1.00', maxPerPayment: '0.10' },
    });
    expect(asked.status).toBe(202);
    expect((await t.api('GET', t.withOwner('/v1/agents/child/balance'))).body.code).toBe('agent_not_found');
    const approved = await approve(asked.body.approvalId);
    expect(approved.body.result.agent.agentId).toBe('child');
    expect(JSON.stringify(approved.body)).not.toMatch(/cof_agt_/);

    const collected = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`), { key: parent.apiKey });
    expect(collected.body.apiKey).toMatch(/^cof_agt_/);
    const childBalance = await t.api('GET', t.withOwner('/v1/agents/child/balance'), { key: collected.body.apiKey });
    expect(childBalance.status).toBe(200);
    const twice = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`), { key: parent.apiKey });
    expect(twice.body.apiKey).toBeUndefined();
    // Another agent cannot read it, and the owner's view never carries a key.
    const stranger = await deployAgent(t, 'stranger');
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`), { key: stranger.apiKey })).body.code).toBe(
      'wrong_agent',
    );
    // Nor withdraw it, told so without being told whose it is.
    const withdrawn = await t.api('POST', t.withOwner(`/v1/approvals/${asked.body.approvalId}/withdraw`), { key: stranger.apiKey });
    expectError(withdrawn, 403, 'wrong_agent', "this request is another agent's: only the agent that asked withdraws it");
  });

  it('a deploy approval never hands out a key before the agent exists, nor for an agent it did not create', async () => {
    const parent = await deployAgent(t, 'racer');
    const asked = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      key: parent.apiKey,
      body: { agentId: 'prize', dailyBudget: '1.00', maxPerPayment: '0.10' },
    });
    const { engine } = t.coffer;
    const owner = { kind: 'owner' as const, owner: t.owner };
    const agentPrincipal = { kind: 'agent' as const, owner: t.owner, agentId: 'racer' };
    // The owner deploys an agent of that id while approving the request: one of the two creates it.
    const deploying = engine.deployAgent(owner, { agentId: 'prize', dailyBudget: '50.00', maxPerPayment: '5.00' });
    const approving = engine.approve(owner, asked.body.approvalId);
    const during = (await engine.approval(agentPrincipal, asked.body.approvalId)) as Record<string, unknown>;
    expect(during.apiKey).toBeUndefined();
    const [deployed, approved] = await Promise.allSettled([deploying, approving]);
    const after = (await engine.approval(agentPrincipal, asked.body.approvalId)) as Record<string, unknown>;
    const prize = t.coffer.engine.ctx.store.getAgent(t.owner, 'prize')!;
    if (deployed.status === 'fulfilled') {
      // The owner's deploy made it: the approval fails and hands out no key for an agent it did not create.
      expect(approved.status === 'fulfilled' && approved.value.status).toBe('failed');
      expect(after.apiKey).toBeUndefined();
      expect(deployed.value.kind === 'done' && deployed.value.result.agent.walletAddress).toBe(prize.walletAddress);
    } else {
      // The approval made it (the two raced the other way): the owner's deploy is refused, and the key
      // the asking agent collects is that of the agent the approval created.
      expect((deployed.reason as { code: string }).code).toBe('agent_exists');
      expect(approved.status === 'fulfilled' && approved.value.status).toBe('approved');
      // (The view's agentId is the asker's; the agent it created is its targetAgentId.)
      expect(after).toMatchObject({ agentId: 'racer', targetAgentId: 'prize', apiKey: expect.any(String) });
      expect(engine.authenticate(t.owner, after.apiKey as string)).toMatchObject({ kind: 'agent', agentId: 'prize' });
    }
  });

  it('a stopped agent cannot collect a key nor ask for anything but to resume', async () => {
    const parent = await deployAgent(t, 'rogue');
    const asked = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      key: parent.apiKey,
      body: { agentId: 'rogue-child', dailyBudget: '1.00', maxPerPayment: '0.10' },
    });
    await approve(asked.body.approvalId);
    await t.api('POST', t.withOwner('/v1/agents/rogue/kill'));
    const collect = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`), { key: parent.apiKey });
    expect(collect.body.apiKey).toBeUndefined();
    const more = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      key: parent.apiKey,
      body: { agentId: 'rogue-two', dailyBudget: '1.00', maxPerPayment: '0.10' },
    });
    expectError(more, 403, 'agent_suspended');
    expect((await ask('rogue', parent.apiKey, 'resume')).status).toBe(202);
  });

  it('the same request asked twice is one inbox entry, and an agent cannot bury the inbox', async () => {
    const agent = await deployAgent(t, 'noisy', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const first = await ask('noisy', agent.apiKey, 'allocate', { amount: '1.00' });
    const again = await ask('noisy', agent.apiKey, 'allocate', { amount: '1.00' });
    expect(again.body.approvalId).toBe(first.body.approvalId);
    for (let i = 2; i <= 20; i++) expect((await ask('noisy', agent.apiKey, 'allocate', { amount: `${i}.00` })).status).toBe(202);
    const flood = await ask('noisy', agent.apiKey, 'allocate', { amount: '21.00' });
    expectError(flood, 429, 'too_many_requests');
  });

  it('only the owner lists, approves and denies', async () => {
    const agent = await deployAgent(t, 'sneaky');
    const asked = await ask('sneaky', agent.apiKey, 'allocate', { amount: '1.00' });
    for (const [method, path] of [
      ['GET', '/v1/approvals'],
      ['POST', `/v1/approvals/${asked.body.approvalId}/approve`],
      ['POST', `/v1/approvals/${asked.body.approvalId}/deny`],
    ] as const) {
      const response = await t.api(method, t.withOwner(path), { key: agent.apiKey });
      expectError(response, 403, 'owner_only');
    }
    expect((await t.api('GET', t.withOwner('/v1/approvals/apr_nope'))).body.code).toBe('approval_not_found');
    // An id no request has is not repeated where it could lie on the screen (a bidirectional control).
    const lying = await t.api('GET', t.withOwner('/v1/approvals/apr_%E2%80%AEtxt'));
    expectError(lying, 404, 'approval_not_found', 'no approval with that id (an id is apr_ and letters, digits, "_" or "-")');
  });

  it('streams events to the owner as they happen (SSE)', async () => {
    const agent = await fundedAgent(t, 'streamed', '1.00');
    const controller = new AbortController();
    const response = await fetch(`${t.url}${t.withOwner('/v1/events')}`, {
      headers: { authorization: `Bearer ${t.ownerKey}` },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    const received: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received.push(decoder.decode(value));
        if (received.join('').includes('event: approval')) return;
      }
    })().catch(() => undefined);
    await pay(t, 'streamed', agent.apiKey, { ...UNLISTED_API, amount: '0.10', currency: 'USDC' });
    await pay(t, 'streamed', agent.apiKey, { ...UNLISTED_API, amount: '5.00', currency: 'USDC' });
    await ask('streamed', agent.apiKey, 'allocate', { amount: '1.00' });
    await reading;
    controller.abort();
    const text = received.join('');
    expect(text).toMatch(/event: payment\ndata: .*"status":"confirmed"/);
    expect(text).toMatch(/event: payment_refused\ndata: .*"code":"insufficient_funds"/);
    expect(text).toMatch(/event: approval\ndata: .*"kind":"allocate"/);
  });

  it("an agent's key listens to its own events alone: it hears its held payment decided, not the others' nor the owner's", async () => {
    const agent = await fundedAgent(t, 'listener', '5.00');
    const other = await fundedAgent(t, 'neighbour', '1.00');
    expect((await t.api('POST', t.withOwner('/v1/agents/listener/policy'), { body: { askAbove: '1' } })).status).toBe(200);
    const controller = new AbortController();
    const response = await fetch(`${t.url}${t.withOwner('/v1/events')}`, {
      headers: { authorization: `Bearer ${agent.apiKey}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value);
        if (/"status":"approved"/.test(text)) return;
      }
    })().catch(() => undefined);
    await pay(t, 'neighbour', other.apiKey, { ...UNLISTED_API, amount: '0.10', currency: 'USDC' });
    await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '1.00' } });
    const held = await pay(t, 'listener', agent.apiKey, { ...UNLISTED_API, amount: '2.00', currency: 'USDC' });
    expect(held.status).toBe(202);
    await t.api('POST', t.withOwner(`/v1/approvals/${held.body.approvalId}/approve`));
    await reading;
    controller.abort();
    expect(text).toMatch(/event: approval\ndata: .*"agentId":"listener".*"status":"pending"/);
    expect(text).toMatch(new RegExp(`event: approval\\ndata: .*"approvalId":"${held.body.approvalId}".*"status":"approved"`));
    expect(text).not.toMatch(/neighbour/);
    expect(text).not.toMatch(/event: deposit/);
  });

  it('a waiting policy request reads against the policy now, and once decided against the one it was decided on', async () => {
    const agent = await deployAgent(t, 'tightened', { dailyBudget: '5.00', maxPerPayment: '0.25' });
    const asked = await ask('tightened', agent.apiKey, 'policy', { maxPerPayment: '0.50' });
    expect(asked.status).toBe(202);
    expect(asked.body.before).toMatchObject({ maxPerPayment: '0.25' });
    // The agent tightens itself meanwhile (at once): approving would now loosen 0.20 to 0.50, and the inbox says so.
    expect((await ask('tightened', agent.apiKey, 'policy', { maxPerPayment: '0.20' })).status).toBe(200);
    const waiting = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`));
    expect(waiting.body.before).toMatchObject({ maxPerPayment: '0.20' });
    const listed = (await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals.find(
      (a: { approvalId: string }) => a.approvalId === asked.body.approvalId,
    );
    expect(listed.before).toMatchObject({ maxPerPayment: '0.20' });
    // Approved, it reads against what it was approved on, whatever the policy does after.
    expect((await approve(asked.body.approvalId)).body).toMatchObject({ status: 'approved', before: { maxPerPayment: '0.20' } });
    expect((await t.api('POST', t.withOwner('/v1/agents/tightened/policy'), { body: { maxPerPayment: '1.00' } })).status).toBe(200);
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`))).body.before).toMatchObject({
      maxPerPayment: '0.20',
    });
  });

  it('stopping an agent withdraws what it asked for, except asking to be resumed; stop all does it for every agent', async () => {
    const agent = await fundedAgent(t, 'braked', '1.00');
    const allocate = await ask('braked', agent.apiKey, 'allocate', { amount: '3.00' });
    const loosen = await ask('braked', agent.apiKey, 'policy', { dailyBudget: '500.00' });
    expect([allocate.status, loosen.status]).toEqual([202, 202]);
    // A policy request keeps what it was asked against, so it still reads right once decided.
    expect(loosen.body.before).toMatchObject({ dailyBudget: '100.00' });
    expect(allocate.body).not.toHaveProperty('before');
    const seen: unknown[] = [];
    const unsubscribe = t.coffer.engine.events.subscribe((event) => seen.push(event));
    const killed = await t.api('POST', t.withOwner('/v1/agents/braked/kill'));
    expect(killed.status).toBe(200);
    // The answer says what the stop withdrew, so no door leaves it unsaid.
    expect(killed.body).toEqual({
      agentId: 'braked',
      status: 'suspended',
      was: 'active',
      withdrawn: { requests: 2, heldPayments: 0 },
      stillLanding: { payments: 0, amount: '0.00', until: null, agents: [] },
    });
    unsubscribe();
    for (const asked of [allocate, loosen]) {
      const read = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`));
      expect(read.body.status).toBe('withdrawn');
      const late = await approve(asked.body.approvalId);
      expectError(late, 409, 'approval_decided');
      expect(seen).toContainEqual(expect.objectContaining({ type: 'approval', approvalId: asked.body.approvalId, status: 'withdrawn' }));
    }
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));
    expect((await t.api('GET', t.withOwner('/v1/agents/braked/policy'))).body.policy.dailyBudget).toBe('100.00');
    expect(
      (await t.api('GET', t.withOwner('/v1/approvals?status=withdrawn'))).body.approvals.map((a: { approvalId: string }) => a.approvalId),
    ).toEqual(expect.arrayContaining([allocate.body.approvalId, loosen.body.approvalId]));

    // Asking to be resumed is what a stopped agent may still do, and stopping again does not withdraw it.
    const resume = await ask('braked', agent.apiKey, 'resume');
    expect(resume.status).toBe(202);
    const other = await deployAgent(t, 'braked-too', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    const otherAsk = await ask('braked-too', other.apiKey, 'allocate', { amount: '1.00' });
    // Stop all withdraws what every agent still waits on (earlier tests' too), asking to be resumed aside.
    const waiting = (await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as { kind: string }[];
    const killedAll = await t.api('POST', t.withOwner('/v1/kill-all'));
    expect(killedAll.status).toBe(200);
    expect(killedAll.body.withdrawn).toEqual({
      requests: waiting.filter((a) => a.kind !== 'resume' && a.kind !== 'payment').length,
      heldPayments: waiting.filter((a) => a.kind === 'payment').length,
    });
    expect(killedAll.body.withdrawn.requests).toBeGreaterThanOrEqual(1);
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${resume.body.approvalId}`))).body.status).toBe('pending');
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${otherAsk.body.approvalId}`))).body.status).toBe('withdrawn');
    expect((await approve(resume.body.approvalId)).body).toMatchObject({
      status: 'approved',
      result: { agentId: 'braked', status: 'active' },
    });
  });

  it('resuming an agent (one, or all) withdraws its own waiting request to be resumed: nothing is left to decide', async () => {
    const agent = await fundedAgent(t, 'resumed', '1.00');
    const other = await fundedAgent(t, 'resumed-too', '1.00');
    expect((await t.api('POST', t.withOwner('/v1/agents/resumed/kill'))).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/resumed-too/kill'))).status).toBe(200);
    const asked = await ask('resumed', agent.apiKey, 'resume');
    const askedToo = await ask('resumed-too', other.apiKey, 'resume');
    expect([asked.status, askedToo.status]).toEqual([202, 202]);
    expect((await t.api('POST', t.withOwner('/v1/agents/resumed/resume'))).status).toBe(200);
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`))).body.status).toBe('withdrawn');
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${askedToo.body.approvalId}`))).body.status).toBe('pending');
    expect((await t.api('POST', t.withOwner('/v1/resume-all'))).status).toBe(200);
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${askedToo.body.approvalId}`))).body.status).toBe('withdrawn');
    const pending = (await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as { agentId: string }[];
    expect(pending.filter((a) => a.agentId.startsWith('resumed'))).toEqual([]);
  });
});

describe('an approval interrupted by a stop (approved, no outcome recorded)', () => {
  it('is settled on the next start as failed, saying what to check, and hands out no key', async () => {
    await acrossRestart(
      async (t) => {
        const asker = await deployAgent(t, 'parent', { dailyBudget: '5.00', maxPerPayment: '1.00' });
        const ask = (path: string, body: unknown) => t.api('POST', t.withOwner(path), { key: asker.apiKey, body });
        const made = (await ask('/v1/agents/deploy', { agentId: 'child-made', dailyBudget: '1.00', maxPerPayment: '0.10' })).body
          .approvalId;
        const funds = (await ask('/v1/agents/parent/allocate', { amount: '1.00' })).body.approvalId;
        // What a process killed mid-approval leaves: the approvals taken, an agent of that name made
        // (by the approval or by someone else: it cannot be told), nothing recorded.
        await deployAgent(t, 'child-made', { dailyBudget: '1.00', maxPerPayment: '0.10' });
        t.coffer.db.prepare("UPDATE approvals SET status = 'approved', decided_at = 1 WHERE id IN (?, ?)").run(made, funds);
        return { askerKey: asker.apiKey, made, funds };
      },
      async (t, { askerKey, made, funds }) => {
        const read = async (id: string) => (await t.api('GET', t.withOwner(`/v1/approvals/${id}`))).body;
        expect(await read(made)).toMatchObject({ status: 'failed', error: expect.stringMatching(/no key was handed over/) });
        expect(await read(funds)).toMatchObject({ status: 'failed', error: expect.stringMatching(/may have been applied in part/) });
        // The asking agent gets no key to an agent it may not have made.
        const collected = await t.api('GET', t.withOwner(`/v1/approvals/${made}`), { key: askerKey });
        expect(collected.status).toBe(200);
        expect(collected.body.apiKey).toBeUndefined();
        // Approving again is refused: the request is decided.
        expect((await t.api('POST', t.withOwner(`/v1/approvals/${made}/approve`))).body.code).toBe('approval_decided');
        expect(t.coffer.db.prepare("SELECT COUNT(*) FROM audit_log WHERE action = 'approval.recovered'").pluck().get()).toBe(2);
      },
    );
  });
});

describe('a wait for the owner’s decision (GET /v1/approvals/:id?wait=N)', () => {
  const t = useCoffer();

  // Helper 201: the place among an agent key's 32 was given back when its caller went away, but the
  // wait went on for its minute, holding the request and a listener on every event: one key aborting
  // waits in a loop took the server past 1 GB.
  it('ends when its caller goes away, holding nothing after', async () => {
    const agent = await deployAgent(t, 'leaver', { dailyBudget: '5', maxPerPayment: '1' });
    const asked = await t.api('POST', t.withOwner('/v1/agents/leaver/policy'), { key: agent.apiKey, body: { dailyBudget: '8' } });
    expect(asked.status).toBe(202);
    const waits = t.coffer.engine.ctx.state.decisionWaits;
    const callers = Array.from({ length: 5 }, () => new AbortController());
    const waiting = callers.map((caller) =>
      fetch(`${t.url}${t.withOwner(`/v1/approvals/${asked.body.approvalId}?wait=60`)}`, {
        headers: { authorization: `Bearer ${agent.apiKey}` },
        signal: caller.signal,
      }).catch(() => null),
    );
    await vi.waitFor(() => expect(waits.size).toBe(5));
    for (const caller of callers) caller.abort();
    await Promise.all(waiting);
    await vi.waitFor(() => expect(waits.size).toBe(0), { timeout: 3000 });
  });

  // Helper 201: a wait read the request once, before it waited: a key revoked meanwhile (replaced as
  // leaked) was still answered after it, a new agent's key among it.
  it('answers a key revoked while it waited 401, handing it no new agent’s key; the new key collects it', async () => {
    const parent = await deployAgent(t, 'revoked-parent');
    const asked = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
      key: parent.apiKey,
      body: { agentId: 'revoked-child', dailyBudget: '1.00', maxPerPayment: '0.10' },
    });
    expect(asked.status).toBe(202);
    const waits = t.coffer.engine.ctx.state.decisionWaits;
    const before = waits.size;
    const waiting = t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}?wait=30`), { key: parent.apiKey });
    await vi.waitFor(() => expect(waits.size).toBe(before + 1));
    const replaced = await t.api('POST', t.withOwner('/v1/agents/revoked-parent/key'));
    expect(replaced.status).toBe(200);
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${asked.body.approvalId}/approve`))).status).toBe(200);
    const answered = await waiting;
    expect(answered.status).toBe(401);
    expect(JSON.stringify(answered.body)).not.toMatch(/cof_agt_/);
    const collected = await t.api('GET', t.withOwner(`/v1/approvals/${asked.body.approvalId}`), { key: replaced.body.apiKey });
    expect(collected.body.apiKey).toMatch(/^cof_agt_/);
  });
});
