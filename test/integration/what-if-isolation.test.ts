import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployAgent, fundedAgent, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { seedHistory } from '../bench/seed-history.js';
import { startPolicyReplays } from '../../server/boot/policy-replays.js';
import { replayHistory } from '../../server/core/policy/replay.js';
import { WHAT_IFS_A_MINUTE } from '../../server/core/policy/what-if-limits.js';
import { limitsOnly } from '../../server/wire/policy/policy.js';
import { budgetOf } from '../../server/wire/policy/budget.js';
import type { PolicyReplayRequest } from '../../server/core/ports/policy-replays.js';

/**
 * Issue 47: one agent's key must not slow every agent's payments. The what-if replays an agent's
 * history (tens of milliseconds for tens of thousands of payments); run on the thread that serves
 * /v1, a few of them at a time held every other agent's /pay behind them. Now they replay on a worker
 * of their own (server/boot/policy-replays.ts), an agent's key may ask a few at once and a few a
 * minute, and the owner's go first.
 */
/**
 * A history whose replay takes a good hundred milliseconds here: a payment beside it takes a few, and
 * must be answered first even on a busy machine. (At 40,000 payments, tens of milliseconds, a payment
 * slowed by the whole suite's load on two cores was once answered after a replay: a race, not a wait.)
 */
const HISTORY = 160_000;
/** A change whose replay judges every payment against every budget: the replay's full cost. */
const TRIED = {
  maxPerPayment: '0.03',
  budgets: [
    { amount: '5', window: 'hour' },
    { amount: '50', window: '24h' },
    { amount: '600', window: '30d' },
    { amount: '700', window: 'month' },
  ],
} as const;
const WEATHER = { service: 'demo-weather', amount: '0.01' };
/** The history's oldest payments leave the 30 days as the test runs: a replay judges nearly all of it. */
const judgedNearlyAll = (payments: number) => expect(payments).toBeGreaterThan(HISTORY * 0.99);

describe("an agent's what-ifs beside another agent's payments", () => {
  const dataDir = tempDataDir();
  let t: TestCoffer;
  let busy: { apiKey: string };
  let payer: { apiKey: string };

  beforeAll(async () => {
    const first = await startCoffer({ dataDir });
    busy = await deployAgent(first, 'busy', { dailyBudget: '1000', maxPerPayment: '1' });
    payer = await fundedAgent(first, 'payer', '5.00');
    await first.stop();
    seedHistory(dataDir, 'busy', HISTORY);
    t = await startCoffer({ dataDir });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const whatIf = (agentId: string, key: string) => t.api('POST', t.withOwner(`/v1/agents/${agentId}/policy/what-if`), { key, body: TRIED });

  it("answers another agent's payment before the what-ifs one agent asks all at once", async () => {
    // Each path used once first, so neither side's first use (code compiled, the worker started) counts.
    judgedNearlyAll((await whatIf('busy', t.ownerKey)).body.payments);
    expect((await payUsdc(t, 'payer', payer.apiKey, WEATHER)).status).toBe(200);

    const answered: string[] = [];
    const asked = Array.from({ length: 8 }, () =>
      whatIf('busy', busy.apiKey).then((response) => {
        answered.push(`what-if ${response.status}`);
        return response;
      }),
    );
    const paid = payUsdc(t, 'payer', payer.apiKey, WEATHER).then((response) => {
      answered.push('pay');
      return response;
    });
    const [payment, ...whatIfs] = await Promise.all([paid, ...asked]);
    expect(payment.status).toBe(200);
    const replayed = whatIfs.filter((response) => response.status === 200);
    expect(replayed.length).toBeGreaterThan(0);
    for (const response of replayed) judgedNearlyAll(response.body.payments);
    // The payment waited behind none of the replays: answered before the first of them.
    expect(answered.indexOf('pay'), answered.join(', ')).toBeLessThan(answered.indexOf('what-if 200'));
  });

  it("refuses an agent's what-ifs past two at once with slow_down, never the owner's", async () => {
    const agents = Array.from({ length: 6 }, () => whatIf('busy', busy.apiKey));
    const owners = Array.from({ length: 3 }, () => whatIf('busy', t.ownerKey));
    const [fromAgent, fromOwner] = [await Promise.all(agents), await Promise.all(owners)];
    for (const response of fromOwner) judgedNearlyAll(response.body.payments);
    const refused = fromAgent.filter((response) => response.status !== 200);
    // Six asked at once, each a replay of a hundred milliseconds or more: never more than two run.
    expect(refused.length).toBeGreaterThanOrEqual(4);
    for (const response of refused) {
      expectError(response, 429, 'slow_down', /already has 2 what-ifs running/);
      expect(response.headers.get('retry-after')).toBe('1');
    }
    // Refusals count for nothing: once answered, the key asks again.
    judgedNearlyAll((await whatIf('busy', busy.apiKey)).body.payments);
  });

  it(`refuses an agent's what-if past ${WHAT_IFS_A_MINUTE} a minute, with when to ask again; other keys are not held by it`, async () => {
    const other = await deployAgent(t, 'quiet');
    for (let i = 0; i < WHAT_IFS_A_MINUTE; i += 1) expect((await whatIf('quiet', other.apiKey)).status).toBe(200);
    const refused = await whatIf('quiet', other.apiKey);
    expectError(refused, 429, 'slow_down', new RegExp(`asked ${WHAT_IFS_A_MINUTE} what-ifs in the last minute`));
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await whatIf('quiet', t.ownerKey)).status).toBe(200);
    expect((await whatIf('payer', payer.apiKey)).status).toBe(200);
  });

  const request = (agentId: string): PolicyReplayRequest => {
    const now = Date.now();
    return {
      owner: t.owner,
      agentId,
      policy: { ...limitsOnly(1_000_000_000n, 30_000n), budgets: TRIED.budgets.map(budgetOf) },
      since: now - 62 * 86_400_000,
      judgedFrom: now - 30 * 86_400_000,
      timeZone: 'UTC',
    };
  };

  it("replays on the worker what the core's replay finds over the serving connection, the owner's ahead of agents' waiting", async () => {
    const replays = t.coffer.engine.ctx.policyReplays!;
    const asked = request('busy');
    expect(await replays.replay(asked, 'agent')).toEqual(replayHistory(t.coffer.engine.ctx.store, asked));

    const finished: string[] = [];
    const agents = Array.from({ length: 4 }, (_, i) => replays.replay(asked, 'agent').then(() => finished.push(`agent ${i}`)));
    const owner = replays.replay(asked, 'owner').then(() => finished.push('owner'));
    await Promise.all([...agents, owner]);
    // One replay runs at a time; the owner's waited behind the one running when it was asked, at most.
    expect(finished.indexOf('owner'), finished.join(', ')).toBeLessThanOrEqual(1);
  });

  it.runIf(process.platform === 'linux')('replays below the serving thread: where both want a core, payments get it', async () => {
    await whatIf('busy', t.ownerKey);
    // Each thread's nice (the 19th field of its stat): this process serves /v1 on its main thread.
    const niceOf = (thread: string) => Number(readFileSync(`/proc/self/task/${thread}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const serving = niceOf(String(process.pid));
    expect(readdirSync('/proc/self/task').map(niceOf)).toContain(Math.min(19, serving + 10));
  });

  it('replays on the serving thread, and says so once, where its worker cannot start', async () => {
    const logged: string[] = [];
    const asked = request('busy');
    const replays = startPolicyReplays(join(dataDir, 'no-such-ledger.db'), t.coffer.engine.ctx.store, (line) => logged.push(line));
    try {
      expect(await replays.replay(asked, 'agent')).toEqual(replayHistory(t.coffer.engine.ctx.store, asked));
      await replays.replay(asked, 'owner');
      expect(logged).toEqual([expect.stringMatching(/^what-ifs replay on the serving thread: their worker could not start/)]);
    } finally {
      await replays.close();
    }
  });
});
