import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeImageProvider } from '../fixtures/fake-image-provider.js';
import { startCoffer, fundedAgent, micro, tempDataDir, type TestCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { expectError } from '../helpers/expect-error.js';

async function pollTask(t: TestCoffer, agentId: string, taskId: string, key: string) {
  for (let i = 0; i < 200; i++) {
    const task = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/tasks/${taskId}`), { key });
    if (task.body.status === 'success' || task.body.status === 'failed') return task.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('task never finished');
}

/** Polls a failed task until its refund is settled (confirmed or failed). */
async function pollRefund(t: TestCoffer, agentId: string, taskId: string, key: string) {
  for (let i = 0; i < 200; i++) {
    const task = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/tasks/${taskId}`), { key });
    if (task.body.refund && task.body.refund.status !== 'pending') return task.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the refund never settled');
}

describe('image generation', () => {
  let provider: FakeImageProvider;
  beforeAll(async () => {
    provider = await new FakeImageProvider().start();
  });
  afterAll(async () => provider.stop());
  const t = useCoffer(() => ({ imageProviderUrl: provider.url }));

  const generate = (agentId: string, key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.api('POST', t.withOwner(`/v1/agents/${agentId}/generate`), { key, body, headers });

  it('queues, charges the model price from the wallet to the treasury (which pays the provider) on chain, and ends in success with the image URL', async () => {
    const agent = await fundedAgent(t, 'artist', '1.00');
    const payToBefore = await t.coffer.chain.usdcBalance(t.owner);
    provider.hold();
    const created = await generate('artist', agent.apiKey, { prompt: 'a lighthouse at dusk', modelId: 'flux-pro', resolution: '2k' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'queued', estimatedCost: '0.08' });
    expect(created.body.taskId).toMatch(/^tsk_/);
    // Charged when accepted.
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.92'));
    expect((await t.coffer.chain.usdcBalance(t.owner)) - payToBefore).toBe(micro('0.08'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const working = await t.api('GET', t.withOwner(`/v1/agents/artist/tasks/${created.body.taskId}`), { key: agent.apiKey });
    expect(working.body.status).toBe('generating');
    expect(working.body.resultUrl).toBeUndefined();
    provider.release();

    const done = await pollTask(t, 'artist', created.body.taskId, agent.apiKey);
    expect(done).toMatchObject({ status: 'success', cost: '0.08', currency: 'USDC' });
    expect(done.resultUrl).toMatch(new RegExp(`^${provider.url}/images/\\d+\\.png$`));
    expect(provider.requests.at(-1)).toMatchObject({ model: 'flux-pro', prompt: 'a lighthouse at dusk', size: '2048x2048', n: 1 });
    const history = await t.api('GET', t.withOwner('/v1/agents/artist/spend-history'), { key: agent.apiKey });
    expect(history.body.payments[0]).toMatchObject({ service: 'Image generation', amount: '0.08', status: 'confirmed' });
  });

  it('a provider failure ends the task as failed with the reason', async () => {
    const agent = await fundedAgent(t, 'unlucky', '1.00');
    provider.mode = 'fail';
    try {
      const created = await generate('unlucky', agent.apiKey, { prompt: 'x', modelId: 'sdxl', resolution: '1k' });
      expect(created.status).toBe(200);
      const done = await pollTask(t, 'unlucky', created.body.taskId, agent.apiKey);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/500/);
      expect(done.resultUrl).toBeUndefined();
      provider.mode = 'garbage';
      const garbage = await generate('unlucky', agent.apiKey, { prompt: 'y', modelId: 'sdxl', resolution: '1k' });
      expect((await pollTask(t, 'unlucky', garbage.body.taskId, agent.apiKey)).error).toMatch(/other than JSON/);
      // A result that is not a web address never reaches an agent or the dashboard as a link.
      provider.mode = 'script-url';
      const script = await generate('unlucky', agent.apiKey, { prompt: 'z', modelId: 'sdxl', resolution: '1k' });
      const refused = await pollTask(t, 'unlucky', script.body.taskId, agent.apiKey);
      expect(refused.status).toBe('failed');
      expect(refused.resultUrl).toBeUndefined();
    } finally {
      provider.mode = 'ok';
    }
  });

  it('a failed generation is refunded on chain: the wallet and the rolling budget get the money back, and the task and history say so', async () => {
    // A budget for exactly one 4k sdxl image: without the refund the second try would be over budget.
    const agent = await fundedAgent(t, 'refunded', '0.10', { dailyBudget: '0.032', maxPerPayment: '0.032' });
    const treasuryBefore = await t.coffer.chain.usdcBalance(t.owner);
    const refunds: unknown[] = [];
    const unsubscribe = t.coffer.engine.events.subscribe((event) => event.type === 'refund' && refunds.push(event));
    provider.mode = 'fail';
    try {
      const created = await generate('refunded', agent.apiKey, { prompt: 'x', modelId: 'sdxl', resolution: '4k' });
      expect(created.status).toBe(200);
      await pollTask(t, 'refunded', created.body.taskId, agent.apiKey);
      const task = await pollRefund(t, 'refunded', created.body.taskId, agent.apiKey);
      expect(task).toMatchObject({ status: 'failed', refund: { amount: '0.032', currency: 'USDC', status: 'confirmed' } });
      expect(task.refund.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/);
      expect(task.error).toMatch(/500/);
      const onChain = await t.coffer.chain.findTransfer(task.refund.txSignature);
      expect(onChain).toMatchObject({ succeeded: true, from: t.owner, to: agent.walletAddress, amount: micro('0.032') });
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.10'));
      expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(treasuryBefore);
      const history = await t.api('GET', t.withOwner('/v1/agents/refunded/spend-history'), { key: agent.apiKey });
      expect(history.body.payments[0]).toMatchObject({
        service: 'Image generation',
        amount: '0.032',
        status: 'refunded',
        refund: { amount: '0.032', txSignature: task.refund.txSignature, timestamp: expect.any(String) },
      });
      const entry = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.agents.find(
        (a: { agentId: string }) => a.agentId === 'refunded',
      );
      expect(entry).toMatchObject({ spent24h: '0.00', lifetimeSpent: '0.00' });
      expect(refunds).toEqual([expect.objectContaining({ agentId: 'refunded', amount: '0.032', status: 'confirmed' })]);

      // The budget is whole again; a result that fails validation is refunded the same way.
      provider.mode = 'script-url';
      const again = await generate('refunded', agent.apiKey, { prompt: 'y', modelId: 'sdxl', resolution: '4k' });
      expect(again.status).toBe(200);
      expect((await pollRefund(t, 'refunded', again.body.taskId, agent.apiKey)).refund.status).toBe('confirmed');
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.10'));
    } finally {
      unsubscribe();
      provider.mode = 'ok';
    }
    // A success is not refunded.
    const paid = await generate('refunded', agent.apiKey, { prompt: 'z', modelId: 'sdxl', resolution: '4k' });
    const done = await pollTask(t, 'refunded', paid.body.taskId, agent.apiKey);
    expect(done.status).toBe('success');
    expect(done.refund).toBeUndefined();
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.068'));
  });

  it('refuses unknown or disabled models, unknown resolutions and empty prompts before charging', async () => {
    const agent = await fundedAgent(t, 'picky', '1.00');
    const cases: [Record<string, unknown>, number, string][] = [
      [{ prompt: 'x', modelId: 'no-such-model', resolution: '1k' }, 404, 'model_not_found'],
      [{ prompt: 'x', modelId: 'dalle-legacy', resolution: '1k' }, 404, 'model_not_found'],
      [{ prompt: 'x', modelId: 'sdxl', resolution: '8k' }, 400, 'invalid_resolution'],
      [{ prompt: '   ', modelId: 'sdxl', resolution: '1k' }, 400, 'invalid_request'],
      [{ modelId: 'sdxl', resolution: '1k' }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const response = await generate('picky', agent.apiKey, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.code).toBe(code);
    }
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));
  });

  it('image-generate is bought with /generate only: paid on its own through /pay it would buy nothing, and is refused', async () => {
    const agent = await fundedAgent(t, 'no-image', '1.00');
    const paid = await t.api('POST', t.withOwner('/v1/agents/no-image/pay'), {
      key: agent.apiKey,
      body: { service: 'image-generate', amount: '0.003', currency: 'USDC' },
    });
    expectError(
      paid,
      400,
      'invalid_recipient',
      `"image-generate" is paid to the owner's treasury by POST /v1/agents/:agentId/generate, which buys what it sells; a payment on its own would buy nothing`,
    );
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));
  });

  it('is a payment under the agent policy: refused by maxPerPayment, allowedServices and a kill', async () => {
    const capped = await fundedAgent(t, 'capped', '1.00', { maxPerPayment: '0.01' });
    const over = await generate('capped', capped.apiKey, { prompt: 'x', modelId: 'flux-pro', resolution: '1k' });
    expectError(over, 402, 'max_per_payment_exceeded');
    const listed = await fundedAgent(t, 'listed', '1.00', { allowedServices: ['demo-weather'] });
    expect((await generate('listed', listed.apiKey, { prompt: 'x', modelId: 'sdxl', resolution: '1k' })).body.code).toBe(
      'service_not_allowed',
    );
    await t.api('POST', t.withOwner('/v1/agents/capped/kill'));
    expect((await generate('capped', capped.apiKey, { prompt: 'x', modelId: 'sdxl', resolution: '1k' })).body.code).toBe('agent_suspended');
  });

  it('the same Idempotency-Key returns the same task and charges once', async () => {
    const agent = await fundedAgent(t, 'repeat', '1.00');
    const body = { prompt: 'same', modelId: 'sdxl', resolution: '4k' };
    const [a, b] = await Promise.all([
      generate('repeat', agent.apiKey, body, { 'idempotency-key': 'img-1' }),
      generate('repeat', agent.apiKey, body, { 'idempotency-key': 'img-1' }),
    ]);
    expect(a.status).toBe(200);
    expect(b.body.taskId).toBe(a.body.taskId);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.968'));
  });

  it('tasks are private to their agent; an unknown task is 404 task_not_found', async () => {
    const owner = await fundedAgent(t, 'owner-of-task', '1.00');
    const other = await fundedAgent(t, 'snoop', '1.00');
    const created = await generate('owner-of-task', owner.apiKey, { prompt: 'x', modelId: 'sdxl', resolution: '1k' });
    const path = `/v1/agents/owner-of-task/tasks/${created.body.taskId}`;
    expect((await t.api('GET', t.withOwner(path), { key: other.apiKey })).body.code).toBe('wrong_agent');
    expect((await t.api('GET', t.withOwner(`/v1/agents/snoop/tasks/${created.body.taskId}`), { key: other.apiKey })).body.code).toBe(
      'task_not_found',
    );
    expect((await t.api('GET', t.withOwner(path))).status).toBe(200);
  });
});

describe('image generation on the sim chain without a provider', () => {
  it('draws test images: charged in test USDC, success, and the result URL serves the picture', async () => {
    const t = await startCoffer();
    try {
      const agent = await fundedAgent(t, 'sim-artist', '1.00');
      const body = { prompt: 'a lighthouse at dusk', modelId: 'sdxl', resolution: '2k' };
      const created = await t.api('POST', t.withOwner('/v1/agents/sim-artist/generate'), { key: agent.apiKey, body });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ status: 'queued' });
      const price = micro(created.body.estimatedCost);
      expect(price).toBeGreaterThan(0n);
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00') - price);

      const done = await pollTask(t, 'sim-artist', created.body.taskId, agent.apiKey);
      expect(done).toMatchObject({ status: 'success', cost: created.body.estimatedCost, currency: 'USDC' });
      const url = new URL(done.resultUrl);
      expect(url.origin).toBe(t.url);
      expect(url.pathname).toMatch(/^\/sim-images\/[0-9a-f]{24}\.svg$/);

      const image = await fetch(done.resultUrl);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(image.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      const svg = await image.text();
      expect(svg).toMatch(/<svg [^>]*width="2048" height="2048"/);
      expect(svg).toContain('sdxl');
      expect(svg).not.toMatch(/<script/i);
      // The same request draws the same picture; another prompt another one.
      expect(await (await fetch(done.resultUrl)).text()).toBe(svg);
      const other = await t.api('POST', t.withOwner('/v1/agents/sim-artist/generate'), {
        key: agent.apiKey,
        body: { ...body, prompt: 'a forest' },
      });
      const otherDone = await pollTask(t, 'sim-artist', other.body.taskId, agent.apiKey);
      expect(otherDone.resultUrl).not.toBe(done.resultUrl);
      expect(await (await fetch(otherDone.resultUrl)).text()).not.toBe(svg);
    } finally {
      await t.stop();
    }
  });

  it("lists an agent's tasks newest first, with prompts, and announces each step as an event", async () => {
    const t = await startCoffer();
    try {
      const agent = await fundedAgent(t, 'lister', '1.00');
      const seen: { type: string; status?: string; taskId?: string }[] = [];
      const unsubscribe = t.coffer.engine.events.subscribe((event) => seen.push(event as never));
      const generate = (prompt: string) =>
        t.api('POST', t.withOwner('/v1/agents/lister/generate'), {
          key: agent.apiKey,
          body: { prompt, modelId: 'sdxl', resolution: '1k' },
        });
      const first = (await generate('a red kite')).body.taskId as string;
      const second = (await generate('a blue boat')).body.taskId as string;
      await pollTask(t, 'lister', first, agent.apiKey);
      await pollTask(t, 'lister', second, agent.apiKey);
      unsubscribe();

      const listed = await t.api('GET', t.withOwner('/v1/agents/lister/tasks'));
      expect(listed.status).toBe(200);
      expect(listed.body.tasks.map((task: { taskId: string }) => task.taskId)).toEqual([second, first]);
      expect(listed.body.tasks[0]).toMatchObject({
        prompt: 'a blue boat',
        status: 'success',
        modelId: 'sdxl',
        resolution: '1k',
        resultUrl: expect.stringContaining('/sim-images/'),
      });
      expect((await t.api('GET', t.withOwner('/v1/agents/lister/tasks?limit=1'))).body.tasks).toHaveLength(1);
      expect((await t.api('GET', t.withOwner('/v1/agents/lister/tasks?limit=0'))).body.code).toBe('invalid_limit');
      // The agent reads its own; another agent's key cannot.
      expect((await t.api('GET', t.withOwner('/v1/agents/lister/tasks'), { key: agent.apiKey })).status).toBe(200);
      const other = await fundedAgent(t, 'nosy', '0.10');
      expect((await t.api('GET', t.withOwner('/v1/agents/lister/tasks'), { key: other.apiKey })).body.code).toBe('wrong_agent');

      const steps = seen.filter((event) => event.type === 'task' && event.taskId === first).map((event) => event.status);
      expect(steps).toEqual(['generating', 'success']);
    } finally {
      await t.stop();
    }
  });

  it('a malformed sim image URL is a JSON 404', async () => {
    const t = await startCoffer();
    try {
      for (const path of [
        '/sim-images/nothex.svg?model=sdxl&resolution=1k',
        '/sim-images/0123456789abcdef01234567.svg?model=sdxl&resolution=8k',
        '/sim-images/0123456789abcdef01234567.svg?model=%3Cscript%3E&resolution=1k',
        '/sim-images/0123456789abcdef01234567.svg',
      ]) {
        const response = await t.api('GET', path, { key: null });
        expect(response.status, path).toBe(404);
        expect(response.body.code, path).toBe('not_found');
      }
    } finally {
      await t.stop();
    }
  });
});

describe('a generation interrupted by a restart', () => {
  it('is picked up again and finished: it was paid for', async () => {
    const lost = await new FakeImageProvider().start();
    const provider = await new FakeImageProvider().start();
    const dataDir = tempDataDir();
    try {
      const first = await startCoffer({ dataDir, imageProviderUrl: lost.url });
      const agent = await fundedAgent(first, 'patient', '1.00');
      lost.hold(); // the first process's provider call never comes back
      const created = await first.api('POST', first.withOwner('/v1/agents/patient/generate'), {
        key: agent.apiKey,
        body: { prompt: 'slow', modelId: 'sdxl', resolution: '1k' },
      });
      expect(created.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The process dies mid-generation: its data dir is left as it was, task `generating`, and the
      // operating system drops its lock on the data dir.
      await first.server.stop();
      first.coffer.db.close();
      first.coffer.dataDirLock.release();

      const second = await startCoffer({ dataDir, imageProviderUrl: provider.url });
      try {
        const done = await pollTask(second, 'patient', created.body.taskId, agent.apiKey);
        expect(done.status).toBe('success');
        expect(provider.requests).toHaveLength(1);
        expect(provider.requests[0]?.prompt).toBe('slow');
        // Paid once, when it was accepted.
        expect(await second.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('0.998'));
      } finally {
        await second.stop();
      }
    } finally {
      await lost.stop();
      await provider.stop();
    }
  });
});
