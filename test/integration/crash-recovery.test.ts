import { openConnection } from '../../server/store/sqlite-driver.js';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deployAgent, manualClock, micro, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';
import { pay } from '../helpers/pay.js';
import { acrossRestart } from '../helpers/restart.js';
import { expectError } from '../helpers/expect-error.js';
import { json, spawnServe } from '../helpers/serve-process.js';

describe('SIGKILL in the middle of a payment burst', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('leaves no payment pending after a restart, and ledger and chain agree', async () => {
    const first = await spawnServe(dataDir);
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const call = (url: string, method: string, path: string, body?: unknown, key = ownerKey) =>
      fetch(`${url}${path}${path.includes('?') ? '&' : '?'}owner=${owner}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const deployed = await json(
      call(first.url, 'POST', '/v1/agents/deploy', { agentId: 'crashy', dailyBudget: '1000', maxPerPayment: '1' }),
    );
    expect((await call(first.url, 'POST', '/v1/agents/crashy/allocate', { amount: '50' })).status).toBe(200);
    // (600 payments of 0.01 fit in 50 USDC and in the daily budget: nothing is refused by policy.)

    // Fire a burst and kill the server while payments are in flight.
    const confirmedBeforeKill: string[] = [];
    let answered = 0;
    const BURST = 600;
    const burst = Array.from({ length: BURST }, (_, i) =>
      call(
        first.url,
        'POST',
        '/v1/agents/crashy/pay',
        { service: 'demo-weather', amount: '0.01', description: `burst ${i}` },
        deployed.apiKey,
      )
        .then(async (response) => {
          answered += 1;
          // Kill from inside the 40th answer, while the rest are still in flight.
          if (answered === 40) first.child.kill('SIGKILL');
          if (response.status === 200) confirmedBeforeKill.push((await json(response)).paymentId);
        })
        .catch(() => undefined),
    );
    await Promise.all(burst);
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(answered).toBeLessThan(BURST); // the kill really landed mid-burst

    // What the crash left behind: the ledger of a process that died mid-flight.
    const inspect = () => openConnection(join(dataDir, 'coffer.db'), { readonly: true });
    let db = inspect();
    const pendingAtCrash = db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'pending'").pluck().get() as number;
    db.close();

    const second = await spawnServe(dataDir);
    try {
      console.log(`crash left ${pendingAtCrash} pending payment(s); ${confirmedBeforeKill.length} had been answered 200`);
      if (pendingAtCrash > 0)
        expect(await waitForLine(second.lines, /Reconciled/)).toMatch(
          /^Reconciled the moves of money the last run left pending \(payments, allocations, returns, test mints\): \d+ confirmed, \d+ failed, \d+ still pending$/,
        );
      db = inspect();
      expect(db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'pending'").pluck().get()).toBe(0);
      // Every payment answered 200 before the kill is confirmed: a 200 is never taken back.
      const statusOf = db.prepare('SELECT status FROM payments WHERE id = ?').pluck();
      for (const id of confirmedBeforeKill) expect(statusOf.get(id)).toBe('confirmed');
      const allocated = BigInt(db.prepare("SELECT SUM(amount) FROM allocations WHERE status = 'confirmed'").pluck().get() as number);
      const paid = BigInt(
        (db.prepare("SELECT COALESCE(SUM(amount), 0) FROM payments WHERE status = 'confirmed'").pluck().get() as number) ?? 0,
      );
      const confirmedCount = db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'confirmed'").pluck().get() as number;
      db.close();
      expect(confirmedCount).toBeGreaterThanOrEqual(confirmedBeforeKill.length);

      const balance = await json(call(second.url, 'GET', '/v1/agents/crashy/balance'));
      expect(micro(balance.balance)).toBe(allocated - paid);
      const dashboard = await json(call(second.url, 'GET', '/v1/dashboard'));
      expect(dashboard.agents[0].lifetimePayments).toBe(confirmedCount);

      // And the restarted server keeps paying.
      expect(
        (await call(second.url, 'POST', '/v1/agents/crashy/pay', { service: 'demo-weather', amount: '0.01' }, deployed.apiKey)).status,
      ).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    }
  });
});

async function waitForLine(lines: string[], pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const line = lines.find((l) => pattern.test(l));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return '';
}

/**
 * The process dies right after the chain moved money, before the ledger heard of it: every way the
 * engine settles a row fails once the transfer has landed, as if the process were killed there.
 * After a restart the ledger must explain every micro-USDC on chain.
 */
describe('a crash between the chain and the ledger', () => {
  function dieAfterLanding(t: TestCoffer): () => void {
    // The transfer lands (on the embedded chain, in the commit that would also settle its row); the
    // settlement is what the process dies before writing.
    const store = t.coffer.engine.ctx.store;
    const settle = store.settleTransfer;
    store.settleTransfer = () => {
      throw new Error('killed right after the chain moved the money');
    };
    return () => {
      store.settleTransfer = settle;
    };
  }

  /** The treasury on chain equals what the ledger says came in, minus what it sent to agents. */
  function treasuryExplained(t: TestCoffer) {
    const sum = (sql: string) => BigInt((t.coffer.db.prepare(sql).safeIntegers(true).pluck().get(t.owner) as bigint | null) ?? 0n);
    const deposited = sum("SELECT SUM(amount) FROM deposits WHERE owner = ? AND status = 'confirmed' AND rail = 'sol'");
    const allocated = sum("SELECT SUM(amount) FROM allocations WHERE owner = ? AND status = 'confirmed' AND rail = 'sol'");
    return { ledger: deposited - allocated };
  }

  it('a faucet mint that landed is recorded as its deposit after the restart', async () => {
    await acrossRestart(
      async (t) => {
        const restore = dieAfterLanding(t);
        const minted = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '42' } });
        expect(minted.status).toBeGreaterThanOrEqual(500);
        restore();
      },
      async (t) => {
        expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(micro('1042'));
        expect(treasuryExplained(t).ledger).toBe(micro('1042'));
        const deposits = (await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits;
        const onSolana = deposits.filter((d: { rail: string }) => d.rail === 'sol');
        expect(onSolana.map((d: { amount: string }) => d.amount)).toEqual(['42.00', '1000.00']);
      },
    );
  });

  it('an image generation whose payment landed is carried out after the restart: never paid for and lost', async () => {
    await acrossRestart(
      async (t) => {
        const agent = await deployAgent(t, 'painter');
        await t.api('POST', t.withOwner('/v1/agents/painter/allocate'), { body: { amount: '1' } });
        const restore = dieAfterLanding(t);
        const generate = await t.api('POST', t.withOwner('/v1/agents/painter/generate'), {
          key: agent.apiKey,
          body: { prompt: 'a harbour at night', modelId: 'sdxl', resolution: '1k' },
        });
        expect(generate.status).toBeGreaterThanOrEqual(500);
        restore();
      },
      async (t) => {
        await t.coffer.engine.settleTasks();
        const charged = t.coffer.db
          .prepare("SELECT id FROM payments WHERE agent_id = 'painter' AND service_id = 'image-generate' AND status = 'confirmed'")
          .pluck()
          .all() as string[];
        expect(charged).toHaveLength(1);
        const tasks = (await t.api('GET', t.withOwner('/v1/agents/painter/tasks'))).body.tasks;
        expect(tasks).toEqual([expect.objectContaining({ paymentId: charged[0], prompt: 'a harbour at night', status: 'success' })]);
        expect((await t.api('GET', t.withOwner('/v1/agents/painter/balance'))).body.balance).toBe('0.998');
      },
    );
  });

  it("a payment's confirmation is written in the commit that lands it; when that write fails the chain's record stands and a restart confirms it", async () => {
    await acrossRestart(
      async (t) => {
        const agent = await deployAgent(t, 'settled-in-the-landing');
        await t.api('POST', t.withOwner('/v1/agents/settled-in-the-landing/allocate'), { body: { amount: '2' } });
        const payOnce = () =>
          pay(t, 'settled-in-the-landing', agent.apiKey, { service: 'demo-weather', amount: '0.01' }, { 'idempotency-key': 'landing' });
        const sims = () => t.coffer.db.prepare('SELECT COUNT(*) FROM sim_transactions').pluck().get() as number;

        // Landed and confirmed together: the transaction's row and the confirmation appear in one write.
        const before = sims();
        const paid = await payOnce();
        expect(paid.status).toBe(200);
        expect(paid.body.status).toBe('confirmed');
        expect(sims()).toBe(before + 1);

        // The confirmation's own write fails inside the landing commit: the transfer is kept anyway.
        const store = t.coffer.engine.ctx.store;
        const settle = store.settleTransfer.bind(store);
        store.settleTransfer = () => {
          throw new Error('disk said no');
        };
        const second = await pay(t, 'settled-in-the-landing', agent.apiKey, {
          service: 'demo-weather',
          amount: '0.005',
          nonce: 'second-402',
        });
        store.settleTransfer = settle;
        expect(second.status).toBe(500);
        expect(sims()).toBe(before + 2);
        const pending = t.coffer.db.prepare("SELECT id FROM payments WHERE status = 'pending'").pluck().all() as string[];
        expect(pending).toHaveLength(1);
        return { wallet: agent.walletAddress, pending: pending[0] };
      },
      async (t, { wallet, pending }) => {
        expect(t.coffer.db.prepare('SELECT status FROM payments WHERE id = ?').pluck().get(pending)).toBe('confirmed');
        expect((await t.api('GET', t.withOwner('/v1/agents/settled-in-the-landing/balance'))).body.balance).toBe('1.985');
        expect(await t.coffer.chain.usdcBalance(wallet)).toBe(micro('1.985'));
      },
    );
  });

  it('a return to the treasury that landed is confirmed after the restart, as a return', async () => {
    await acrossRestart(
      async (t) => {
        const agent = await deployAgent(t, 'returning-in-a-crash');
        await t.api('POST', t.withOwner('/v1/agents/returning-in-a-crash/allocate'), { body: { amount: '4' } });
        const restore = dieAfterLanding(t);
        expect(
          (await t.api('POST', t.withOwner('/v1/agents/returning-in-a-crash/return'), { body: { amount: '1.5' } })).status,
        ).toBeGreaterThanOrEqual(500);
        restore();
        return agent.walletAddress;
      },
      async (t, wallet) => {
        expect(t.coffer.db.prepare("SELECT status FROM allocations WHERE direction = 'to_treasury'").pluck().all()).toEqual(['confirmed']);
        expect(t.coffer.db.prepare("SELECT COUNT(*) FROM audit_log WHERE action = 'return.confirmed'").pluck().get()).toBe(1);
        expect(await t.coffer.chain.usdcBalance(wallet)).toBe(micro('2.5'));
        expect((await t.api('GET', t.withOwner('/v1/agents/returning-in-a-crash/balance'))).body.balance).toBe('2.50');
      },
    );
  });

  it('an allocation that landed is confirmed after the restart, and its retry under the same key answers it', async () => {
    const allocate = (t: TestCoffer) =>
      t.api('POST', t.withOwner('/v1/agents/funded-in-a-crash/allocate'), {
        body: { amount: '3' },
        headers: { 'idempotency-key': 'crash-fund' },
      });
    await acrossRestart(
      async (t) => {
        await deployAgent(t, 'funded-in-a-crash');
        const restore = dieAfterLanding(t);
        expect((await allocate(t)).status).toBeGreaterThanOrEqual(500);
        restore();
      },
      async (t) => {
        const retried = await allocate(t);
        expect(retried.status).toBe(200);
        expect((await t.api('GET', t.withOwner('/v1/agents/funded-in-a-crash/balance'))).body.balance).toBe('3.00');
        expect(await t.coffer.chain.usdcBalance(t.owner)).toBe(micro('997'));
        expect(treasuryExplained(t).ledger).toBe(micro('997'));
      },
    );
  });
});

describe('a deploy with funds whose answer was lost', () => {
  const deploy = (t: TestCoffer, body: Record<string, unknown>, key?: string) =>
    t.api('POST', t.withOwner('/v1/agents/deploy'), { body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const asked = { agentId: 'lost-answer', dailyBudget: '5', maxPerPayment: '1', fund: '1.5', fundRail: 'base' };

  it('is retried under its Idempotency-Key: the agent funded once, a key that works, the first one dead', async () => {
    await acrossRestart(
      async (t) => {
        // The process dies after the agent is written, before its allocation is: the Base rail's
        // transfer is never signed, and whatever the first attempt answered never reached the caller.
        const base = t.coffer.engine.ctx.base!;
        const prepare = base.prepareTransfer;
        base.prepareTransfer = () => Promise.reject(new Error('killed while the allocation was being signed'));
        const first = await deploy(t, asked, 'deploy-once');
        base.prepareTransfer = prepare;
        expect(first.status).toBe(200);
        return {
          firstKey: first.body.apiKey as string,
          treasuryBase: (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.balances.base,
        };
      },
      async (t, { firstKey, treasuryBase }) => {
        expectError(await deploy(t, asked), 409, 'agent_exists');
        expectError(await deploy(t, { ...asked, fund: '2' }, 'deploy-once'), 409, 'idempotency_key_reused');
        const retried = await deploy(t, asked, 'deploy-once');
        expect(retried.status).toBe(200);
        expect(retried.body.funding.status).toBe('funded');
        expect(retried.body.apiKey).not.toBe(firstKey);
        const again = await deploy(t, asked, 'deploy-once');
        expect(again.body.funding.allocation.allocationId).toBe(retried.body.funding.allocation.allocationId);
        const balance = (key: string) => t.api('GET', t.withOwner('/v1/agents/lost-answer/balance'), { key });
        expect((await balance(firstKey)).status).toBe(401);
        expect((await balance(retried.body.apiKey)).status).toBe(401);
        expect((await balance(again.body.apiKey)).body.balances).toEqual({ sol: '0.00', base: '1.50' });
        const moves = (await t.api('GET', t.withOwner('/v1/treasury/allocations?agentId=lost-answer'))).body.allocations;
        expect(moves.map((m: { amount: string; rail: string; status: string }) => [m.amount, m.rail, m.status])).toEqual([
          ['1.50', 'base', 'confirmed'],
        ]);
        const treasuryNow = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.balances.base;
        expect(micro(treasuryBase) - micro(treasuryNow)).toBe(micro('1.5'));
      },
    );
  });
});

describe('a deploy asked again under its Idempotency-Key more than a day later', () => {
  it('is refused as a second deploy of the id: the key in use is never revoked by an old replay', async () => {
    const clock = manualClock();
    const t = await startCoffer({ clock });
    try {
      const body = { agentId: 'long-ago', dailyBudget: '5', maxPerPayment: '1' };
      const deploy = () => t.api('POST', t.withOwner('/v1/agents/deploy'), { body, headers: { 'idempotency-key': 'once-a-day' } });
      const first = await deploy();
      expect(first.status).toBe(200);
      clock.advance(24 * 60 * 60 * 1000 - 1_000);
      const withinTheDay = await deploy();
      expect(withinTheDay.status).toBe(200);
      clock.advance(2_000);
      expectError(await deploy(), 409, 'agent_exists');
      const balance = await t.api('GET', t.withOwner('/v1/agents/long-ago/balance'), { key: withinTheDay.body.apiKey });
      expect(balance.status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
