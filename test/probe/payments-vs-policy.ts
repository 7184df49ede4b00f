import { isJsonObject, pool } from './lib/http.js';
import { buildWorkload, randomPolicy, REGISTRY_IDS, roundTo, type PayerAgent } from './payments-workload.js';
import { allocate, chainTransfer, creditedTo, dashboard, deploy, ledgerVsChain, spendHistory, type LedgerPayment } from './lib/ledger.js';
import { micro, usdc } from './lib/money.js';
import { pastDeadline, Tally, Examples, type Probe } from './lib/report.js';
import { removeDir, tempDir } from './lib/cleanup.js';
import { policyViolations, selfTestPolicyCheck } from './lib/policy-check.js';
import { startServe, type Serve } from './lib/serve.js';

/**
 * Probe 1: randomized concurrent payments against random policies. Several agents with random
 * dailyBudget / maxPerPayment / cooldown / allowedServices (registry ids and recipient addresses),
 * funded by allocation, then thousands of payments fired concurrently (mixed services and amounts,
 * some over the limits, some replayed Idempotency-Keys and nonces), while some agents are stopped
 * mid-burst. Then, from the ledger as the API reports it and from the chain, count what the policy
 * should have refused but did not.
 */

export const paymentsVsPolicy: Probe = async (ctx) => {
  const { rng, quick } = ctx;
  const dir = tempDir('payments');
  let serve: Serve | undefined;
  const details: string[] = [];
  const findings: string[] = [];
  // The checker first: a ledger with one of each violation must be caught, or "0" means nothing.
  const missed = selfTestPolicyCheck();
  if (missed.length > 0) throw new Error(`the policy checker missed: ${missed.join(', ')}`);
  try {
    serve = await startServe(dir);
    const api = serve.api;
    const registry = new Map<string, string>();
    const listed = new Map<string, bigint>();
    for (const id of REGISTRY_IDS) {
      const service = await api.ok<{ payTo: string; pricePerCall: string | null; pricing: Record<string, string> }>(
        'GET',
        `/v1/services/${id}`,
        { key: null, owner: null },
      );
      registry.set(id, service.payTo);
      const prices = service.pricePerCall !== null ? [micro(service.pricePerCall)] : Object.values(service.pricing).map(micro);
      listed.set(
        id,
        prices.reduce((a, b) => (a > b ? a : b), 0n),
      );
    }
    const { usdcMint } = await api.ok<{ usdcMint: string }>('GET', '/v1/health', { key: null, owner: null });
    await api.ok('POST', '/v1/treasury/faucet', { body: { amount: '100.00' } });

    const wallets = new Map<string, string>();
    const allocated = new Map<string, bigint>();
    const sinkWallets: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sink = await deploy(api, `sink-${i}`, { dailyBudget: '1.00', maxPerPayment: '1.00' });
      wallets.set(sink.agentId, sink.walletAddress);
      allocated.set(sink.agentId, await allocate(api, sink.agentId, '0.10'));
      sinkWallets.push(sink.walletAddress);
    }
    const allowPool = ['demo-weather', 'demo-quotes', 'web-search', sinkWallets[0]!, sinkWallets[1]!];
    const payers: PayerAgent[] = [];
    const payerCount = quick ? 5 : 10;
    for (let i = 0; i < payerCount; i++) {
      const policy = randomPolicy(rng, allowPool);
      const agentId = `payer-${i}`;
      const agent = await deploy(api, agentId, {
        dailyBudget: usdc(policy.dailyBudget),
        maxPerPayment: usdc(policy.maxPerPayment),
        cooldownSeconds: policy.cooldownSeconds,
        allowedServices: policy.allowedServices,
      });
      const funding = roundTo((policy.dailyBudget * BigInt(rng.int(40, 160))) / 100n, 10_000n);
      wallets.set(agentId, agent.walletAddress);
      allocated.set(agentId, await allocate(api, agentId, usdc(funding < 10_000n ? 10_000n : funding)));
      payers.push({ ...agent, policy });
    }
    // What the server holds is what was asked.
    for (const payer of payers) {
      const read = await api.ok<{
        policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds: number; allowedServices: string[] };
      }>('GET', `/v1/agents/${payer.agentId}/policy`);
      if (micro(read.policy.dailyBudget) !== payer.policy.dailyBudget || micro(read.policy.maxPerPayment) !== payer.policy.maxPerPayment) {
        findings.push(`payments: policy of ${payer.agentId} reads back as ${JSON.stringify(read.policy)}`);
      }
    }

    // The workload, generated up front from the seed.
    const total = quick ? 1500 : 6000;
    const attempts = buildWorkload(rng, total, payers, sinkWallets, listed);

    // Some agents are stopped mid-burst: by the owner, or by themselves.
    const killCount = quick ? 1 : 2;
    const kills = rng
      .shuffle(payers)
      .slice(0, killCount)
      .map((payer, i) => ({
        payer,
        atSent: rng.int(Math.floor(total * 0.2), Math.floor(total * 0.8)),
        bySelf: i === 1,
        answeredAt: null as number | null,
        started: false,
      }));
    // And one agent's limits are lowered by the owner mid-burst: what lands after must obey the new ones.
    const tightenable = payers.filter((p) => !kills.some((k) => k.payer === p));
    const tightenPayer = tightenable.length > 0 ? rng.pick(tightenable) : null;
    const tighten = tightenPayer
      ? (() => {
          const newBudget =
            roundTo(tightenPayer.policy.dailyBudget / 2n, 1_000n) > 10_000n
              ? roundTo(tightenPayer.policy.dailyBudget / 2n, 1_000n)
              : 10_000n;
          const quarter = roundTo(newBudget / 4n, 1_000n) > 1_000n ? roundTo(newBudget / 4n, 1_000n) : 1_000n;
          return {
            payer: tightenPayer,
            atSent: rng.int(Math.floor(total * 0.1), Math.floor(total * 0.6)),
            dailyBudget: newBudget,
            maxPerPayment: tightenPayer.policy.maxPerPayment < quarter ? tightenPayer.policy.maxPerPayment : quarter,
            answeredAt: null as number | null,
            started: false,
          };
        })()
      : null;
    let sent = 0;
    const killTasks: Promise<void>[] = [];
    const concurrency = quick ? 12 : 24;
    const burstStarted = performance.now();
    await pool(attempts, concurrency, async (attempt) => {
      if (pastDeadline(ctx)) return;
      sent += 1;
      for (const kill of kills) {
        if (!kill.started && sent >= kill.atSent) {
          kill.started = true;
          killTasks.push(
            api.call('POST', `/v1/agents/${kill.payer.agentId}/kill`, kill.bySelf ? { key: kill.payer.apiKey } : {}).then((answer) => {
              if (answer.status === 200) kill.answeredAt = Date.now();
              else findings.push(`payments: stopping ${kill.payer.agentId} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
            }),
          );
        }
      }
      if (tighten && !tighten.started && sent >= tighten.atSent) {
        tighten.started = true;
        killTasks.push(
          api
            .call('POST', `/v1/agents/${tighten.payer.agentId}/policy`, {
              body: { dailyBudget: usdc(tighten.dailyBudget), maxPerPayment: usdc(tighten.maxPerPayment) },
            })
            .then((answer) => {
              if (answer.status === 200) tighten.answeredAt = Date.now();
              else findings.push(`payments: tightening ${tighten.payer.agentId} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
            }),
        );
      }
      const payer = payers.find((p) => p.agentId === attempt.agentId)!;
      attempt.sentAt = Date.now();
      attempt.answer = await api.call('POST', `/v1/agents/${attempt.agentId}/pay`, {
        key: attempt.byOwner ? api.ownerKey : payer.apiKey,
        body: attempt.body,
        headers: attempt.idempotencyKey === null ? {} : { 'idempotency-key': attempt.idempotencyKey },
      });
    });
    await Promise.all(killTasks);
    const burstMs = performance.now() - burstStarted;

    // What the answers say.
    const done = attempts.filter((a) => a.answer !== undefined);
    const codes = new Tally();
    const confirmedIds = new Set<string>();
    const refused = done.filter((a) => a.answer!.status >= 400 && a.answer!.status < 500);
    let serverErrors = 0;
    let transport = 0;
    const byKey = new Map<string, Set<string>>();
    for (const attempt of done) {
      const answer = attempt.answer!;
      if (answer.status === 200 && isJsonObject(answer.json)) {
        const id = String(answer.json.paymentId);
        confirmedIds.add(id);
        if (attempt.idempotencyKey !== null) {
          const set = byKey.get(`${attempt.agentId}|${attempt.idempotencyKey}`) ?? new Set<string>();
          set.add(id);
          byKey.set(`${attempt.agentId}|${attempt.idempotencyKey}`, set);
        }
      } else if (answer.status >= 400 && answer.status < 500) {
        codes.add(isJsonObject(answer.json) ? String(answer.json.code) : `${answer.status} (not JSON)`);
      } else if (answer.status >= 500) {
        serverErrors += 1;
        codes.add(`${answer.status} ${isJsonObject(answer.json) ? String(answer.json.code) : ''}`.trim());
      } else if (answer.status === 0) {
        transport += 1;
      }
    }

    // What the ledger says, checked against each policy.
    const histories = new Map<string, LedgerPayment[]>();
    const violations = new Tally();
    const examples = new Examples(4);
    const board = await dashboard(api);
    for (const agentId of wallets.keys()) {
      const { payments, full } = await spendHistory(api, agentId);
      histories.set(agentId, payments);
      const confirmed = payments.filter((p) => p.status === 'confirmed').length;
      const row = board.agents.find((a) => a.agentId === agentId);
      if (!full)
        findings.push(
          `payments: ${agentId} has 500 or more payments; spend-history shows only the newest 500, so the checks saw only those`,
        );
      if (row && row.lifetimePayments !== confirmed && full) {
        violations.add('views disagree');
        examples.add(`${agentId}: dashboard says ${row.lifetimePayments} confirmed payments, spend-history lists ${confirmed}`);
      }
    }
    const ledgerConfirmed = new Set<string>();
    for (const payer of payers) {
      const payments = histories.get(payer.agentId) ?? [];
      for (const p of payments) if (p.status === 'confirmed') ledgerConfirmed.add(p.id);
      const kill = kills.find((k) => k.payer.agentId === payer.agentId);
      const lowered =
        tighten?.payer === payer && tighten.answeredAt !== null
          ? { at: tighten.answeredAt, dailyBudget: tighten.dailyBudget, maxPerPayment: tighten.maxPerPayment }
          : null;
      for (const v of policyViolations(payer.agentId, payments, payer.policy, { registry, lowered, stoppedAt: kill?.answeredAt ?? null })) {
        violations.add(v.kind);
        examples.add(v.example);
      }
    }
    // Answers given after a stop was acknowledged.
    for (const attempt of done) {
      const kill = kills.find((k) => k.payer.agentId === attempt.agentId);
      if (kill?.answeredAt != null && attempt.sentAt! > kill.answeredAt && attempt.answer!.status === 200) {
        const id = isJsonObject(attempt.answer!.json) ? String(attempt.answer!.json.paymentId) : '?';
        // A replayed Idempotency-Key returns the first result, which may predate the stop.
        const first = histories.get(attempt.agentId)?.find((p) => p.id === id);
        if (!first || first.timestamp > kill.answeredAt) {
          violations.add('answered 200 after stop');
          examples.add(`${attempt.agentId}: request ${attempt.index} sent after the stop was answered 200 (${id})`);
        }
      }
    }
    for (const [key, ids] of byKey) {
      if (ids.size > 1) {
        violations.add('idempotency key paid twice');
        examples.add(`${key}: ${[...ids].join(', ')}`);
      }
    }
    // Answers against the ledger: every 200 is a confirmed row, every confirmed row was answered 200.
    for (const id of confirmedIds) {
      if (!ledgerConfirmed.has(id)) {
        violations.add('answer not in ledger');
        examples.add(`${id} was answered 200 but is not confirmed in spend-history`);
      }
    }
    if (transport === 0) {
      for (const id of ledgerConfirmed) {
        if (!confirmedIds.has(id)) {
          violations.add('ledger row never answered');
          examples.add(`${id} is confirmed in spend-history but no request was answered with it`);
        }
      }
    }
    // Each confirmed row against its transaction on chain; a nonce paid twice to one recipient.
    const confirmedRows = [...histories.entries()].flatMap(([agentId, ps]) =>
      ps.filter((p) => p.status === 'confirmed').map((p) => ({ agentId, p })),
    );
    const memos = new Map<string, string>();
    await pool(confirmedRows, 16, async ({ agentId, p }) => {
      const transfer = p.txSignature === null ? null : await chainTransfer(api, p.txSignature);
      const wallet = wallets.get(agentId);
      if (
        transfer === null ||
        !transfer.succeeded ||
        transfer.amount !== p.amount ||
        transfer.from !== wallet ||
        !(await creditedTo(transfer, p.recipient, usdcMint))
      ) {
        violations.add('ledger row not on chain');
        examples.add(
          `${agentId}: ${p.id} ${usdc(p.amount)} to ${p.recipient}; chain: ${transfer === null ? 'no transfer' : JSON.stringify({ ...transfer, amount: transfer.amount.toString() })}`,
        );
        return;
      }
      if (transfer.memo !== null && transfer.memo !== p.id) {
        const key = `${transfer.from}|${transfer.toTokenAccount}|${transfer.memo}`;
        if (memos.has(key)) {
          violations.add('nonce paid twice');
          examples.add(`${agentId}: nonce ${transfer.memo} paid by ${memos.get(key)} and ${p.id}`);
        }
        memos.set(key, p.id);
      }
    });
    const balances = await ledgerVsChain(api, { wallets, allocated, histories });
    for (const mismatch of balances.mismatches) {
      violations.add('balance != allocated - spent');
      examples.add(mismatch);
    }

    const line = `payments: ${done.length} sent, ${confirmedIds.size} confirmed, ${refused.length} refused, overspend violations: ${violations.total}`;
    details.push(
      `payments detail: violations ${violations.toString()} (checker self-test passed); ${balances.checked} wallets checked against the chain, ${confirmedRows.length} ledger rows against their transactions`,
    );
    details.push(`payments detail: refusals ${codes.toString(10)}; 5xx ${serverErrors}, transport errors ${transport}`);
    details.push(
      `payments detail: ${payers.length} agents (${kills.filter((k) => k.answeredAt !== null).length} stopped mid-burst, ${tighten?.answeredAt ? 1 : 0} with limits lowered mid-burst), 2 sinks, concurrency ${concurrency}, ${(done.length / (burstMs / 1000)).toFixed(0)} requests/s, ${(confirmedIds.size / (burstMs / 1000)).toFixed(0)} confirmed/s`,
    );
    for (const example of examples.items) findings.push(`payments: ${example}`);
    if (serverErrors > 0) findings.push(`payments: ${serverErrors} pay requests answered 5xx (${codes.toString(4)})`);
    if (!serve.alive()) findings.push('payments: the server died during the burst');
    return {
      line,
      details,
      findings,
      figures: [
        { name: 'overspend violations', value: violations.total, safety: true },
        { name: 'payments 5xx', value: serverErrors, safety: true },
        { name: 'payments server died', value: serve.alive() ? 0 : 1, safety: true },
      ],
    };
  } finally {
    await serve?.stop();
    removeDir(dir);
  }
};
