import { isJsonObject, pool, sleep, type Answer, type Api } from './lib/http.js';
import { allocate, chainTransfer, deploy, ledgerVsChain, spendHistory, type LedgerPayment } from './lib/ledger.js';
import { micro, usdc } from './lib/money.js';
import { pastDeadline, Examples, Tally, type Probe } from './lib/report.js';
import { removeDir, tempDir } from './lib/cleanup.js';
import { reconciledLine, startServe, type Serve } from './lib/serve.js';

/**
 * Probe 2: SIGKILL mid-burst. K rounds on one data dir: fire a burst of payments, each with its own
 * Idempotency-Key, SIGKILL the server at a random moment, restart it, retry every payment whose
 * answer was lost (same key, same body), then check: each key moved money at most once, every 200
 * stays confirmed and on chain, ledger == chain for every wallet (all rounds' agents, the sink, the
 * treasury), nothing left pending once the restart settled.
 */

interface Shot {
  kind: 'pay' | 'allocate' | 'faucet';
  key: string;
  agentId: string;
  /** The agent's key for a payment; null for the owner's allocations and faucet mints. */
  apiKey: string | null;
  body: Record<string, unknown>;
  first?: Answer;
  retry?: Answer;
}

/** Sends the shot: a payment (agent key), an allocation or a faucet mint (owner key), each with its Idempotency-Key. */
async function fire(api: Api, shot: Shot): Promise<Answer> {
  const path =
    shot.kind === 'pay'
      ? `/v1/agents/${shot.agentId}/pay`
      : shot.kind === 'allocate'
        ? `/v1/agents/${shot.agentId}/allocate`
        : '/v1/treasury/faucet';
  return api.call('POST', path, {
    ...(shot.apiKey === null ? {} : { key: shot.apiKey }),
    body: shot.body,
    headers: { 'idempotency-key': shot.key },
    timeoutMs: 20_000,
  });
}

/** The id an answer names: the payment, allocation or deposit. */
function idOf(shot: Shot, answer: Answer | undefined): string | null {
  if (answer?.status !== 200 || !isJsonObject(answer.json)) return null;
  if (shot.kind === 'pay') return String(answer.json.paymentId);
  if (shot.kind === 'allocate') return String(answer.json.allocationId);
  return isJsonObject(answer.json.deposit) ? String(answer.json.deposit.id) : null;
}

export const killRestart: Probe = async (ctx) => {
  const { rng, quick } = ctx;
  const rounds = quick ? 3 : 10;
  const agentsPerRound = 3;
  const burst = quick ? 90 : 200;
  const dir = tempDir('kill');
  let serve: Serve | undefined;
  const findings: string[] = [];
  const examples = new Examples(4);
  const wallets = new Map<string, string>();
  const allocated = new Map<string, bigint>();
  const histories = new Map<string, LedgerPayment[]>();
  const everMismatched = new Set<string>();
  const retryCodes = new Tally();
  const kindCounts = new Tally();
  let kills = 0;
  let fired = 0;
  let lost = 0;
  let lostAnswers = 0;
  let inFlight = 0;
  let refusedConnection = 0;
  let doubled = 0;
  let leftPending = 0;
  let erroredRetries = 0;
  let recovered = 0;
  let repaid = 0;
  let replayMismatch = 0;
  let roundsDone = 0;
  const restartMs: number[] = [];
  const reconciled = { confirmed: 0, failed: 0, stillPending: 0 };
  try {
    serve = await startServe(dir);
    const initialDeposits = new Set(
      (await serve.api.ok<{ deposits: { id: string }[] }>('GET', '/v1/treasury/deposits')).deposits.map((d) => d.id),
    );
    const answeredDeposits = new Set<string>();
    const unexplained = new Set<string>();
    const sink = await deploy(serve.api, 'ksink', { dailyBudget: '1.00', maxPerPayment: '1.00' });
    wallets.set('ksink', sink.walletAddress);
    allocated.set('ksink', await allocate(serve.api, 'ksink', '0.10'));

    for (let round = 0; round < rounds; round++) {
      if (pastDeadline(ctx)) break;
      const api = serve.api;
      const agents: { agentId: string; apiKey: string }[] = [];
      for (let i = 0; i < agentsPerRound; i++) {
        const agentId = `k${round}-${i}`;
        const agent = await deploy(api, agentId, { dailyBudget: '1000.00', maxPerPayment: '1.00' });
        wallets.set(agentId, agent.walletAddress);
        allocated.set(agentId, await allocate(api, agentId, '5.00'));
        agents.push(agent);
      }
      const shots: Shot[] = Array.from({ length: burst }, (_, i) => {
        const agent = rng.pick(agents);
        const key = `r${round}-${i}-${rng.int(0, 1e9)}`;
        const kind = rng.weighted([
          [85, 'pay'],
          [12, 'allocate'],
          [3, 'faucet'],
        ] as const);
        if (kind === 'allocate')
          return { kind, key, agentId: agent.agentId, apiKey: null, body: { amount: usdc(BigInt(rng.int(1, 5) * 10_000)) } };
        if (kind === 'faucet') return { kind, key, agentId: '', apiKey: null, body: { amount: '1.00' } };
        const toSink = rng.chance(0.4);
        return {
          kind,
          key,
          agentId: agent.agentId,
          apiKey: agent.apiKey,
          body: {
            // A registry service under its listed price is paid with a seller's nonce, as payingFetch pays
            // (without one it is refused, price_below_registry, first time and retry alike: nothing to probe).
            ...(toSink
              ? { service: 'kill-sink', recipient: sink.walletAddress }
              : { service: rng.pick(['demo-weather', 'demo-quotes']), nonce: `kill-${key}` }),
            amount: usdc(BigInt(rng.int(1, 10) * 1_000)),
            currency: 'USDC',
            description: key,
          },
        };
      });

      // Fire, and SIGKILL once a random number of answers are in (0: as soon as it starts).
      const killAfter = rng.int(0, Math.floor(burst * 0.9));
      const extraDelay = rng.int(0, 15);
      let answered = 0;
      let killing: Promise<void> | null = null;
      const victim = serve;
      const kill = () => {
        killing ??= sleep(extraDelay).then(() => victim.kill());
        return killing;
      };
      if (killAfter === 0) void kill();
      await pool(shots, 8, async (shot) => {
        // Sent even once the server is dead: the caller cannot know, and learns it from the error.
        shot.first = await fire(api, shot);
        answered += 1;
        if (answered >= killAfter) void kill();
      });
      await kill();
      kills += 1;
      fired += shots.length;
      for (const shot of shots) kindCounts.add(shot.kind);
      inFlight += shots.filter((s) => s.first?.status === 0 && s.first.error !== 'ECONNREFUSED').length;
      refusedConnection += shots.filter((s) => s.first?.error === 'ECONNREFUSED').length;

      // Restart on the same data dir; pending payments settle before the first request is served.
      const restartStarted = performance.now();
      serve = await startServe(dir);
      const health = await serve.api.call('GET', '/v1/health', { key: null, owner: null });
      restartMs.push(performance.now() - restartStarted);
      if (health.status !== 200) findings.push(`kill: after round ${round} the restarted server answered /v1/health with ${health.status}`);
      const report = reconciledLine(serve);
      if (report) {
        reconciled.confirmed += report.confirmed;
        reconciled.failed += report.failed;
        reconciled.stillPending += report.stillPending;
      }
      const api2 = serve.api;

      // Retry every payment whose answer was lost, with the same key and body.
      const lostShots = shots.filter((s) => s.first === undefined || s.first.status === 0 || s.first.status === 503);
      lostAnswers += lostShots.length;
      await pool(lostShots, 8, async (shot) => {
        for (let attempt = 0; attempt < 3; attempt++) {
          shot.retry = await fire(api2, shot);
          if (shot.retry.status !== 0 && shot.retry.status !== 503) break;
          await sleep(200);
        }
      });
      // Replays of answered payments must give the first answer again.
      for (const shot of rng.shuffle(shots.filter((s) => s.first !== undefined && s.first.status !== 0)).slice(0, 10)) {
        const again = await fire(api2, shot);
        const same =
          again.status === shot.first!.status &&
          (again.status === 200
            ? idOf(shot, again) === idOf(shot, shot.first)
            : !isJsonObject(again.json) || !isJsonObject(shot.first!.json) || again.json.code === shot.first!.json.code);
        if (!same) {
          replayMismatch += 1;
          examples.add(
            `round ${round}: key ${shot.key} first answered ${shot.first!.status} ${shot.first!.text.slice(0, 80)}, replay ${again.status} ${again.text.slice(0, 80)}`,
          );
        }
      }

      // Let the ledger settle: nothing may stay pending.
      let pendingNow = 0;
      for (let wait = 0; wait < 20; wait++) {
        pendingNow = 0;
        for (const agent of agents) {
          const { payments } = await spendHistory(api2, agent.agentId);
          histories.set(agent.agentId, payments);
          pendingNow += payments.filter((p) => p.status === 'pending').length;
        }
        if (pendingNow === 0) break;
        await sleep(250);
      }
      leftPending += pendingNow;
      if (pendingNow > 0) examples.add(`round ${round}: ${pendingNow} payment(s) still pending after the restart settled`);

      // Per key: at most one payment, every 200 confirmed and on chain, failed rows never on chain.
      const rows = new Map<string, LedgerPayment[]>();
      for (const agent of agents) {
        for (const p of histories.get(agent.agentId) ?? []) {
          const list = rows.get(p.description) ?? [];
          list.push(p);
          rows.set(p.description, list);
        }
      }
      for (const shot of shots.filter((s) => s.kind !== 'pay')) {
        const ids = new Set([idOf(shot, shot.first), idOf(shot, shot.retry)].filter((id): id is string => id !== null));
        if (ids.size > 1) {
          doubled += ids.size - 1;
          examples.add(`round ${round}: ${shot.kind} key ${shot.key} was answered with ${[...ids].join(' and ')}`);
        }
        const [id] = [...ids];
        if (id !== undefined && shot.kind === 'allocate')
          allocated.set(shot.agentId, (allocated.get(shot.agentId) ?? 0n) + micro(String(shot.body.amount)));
        if (id !== undefined && shot.kind === 'faucet') answeredDeposits.add(id);
        if (shot.retry !== undefined) {
          if (shot.retry.status === 200) recovered += 1;
          else {
            retryCodes.add(
              `${shot.kind} ${shot.retry.status || shot.retry.error}${isJsonObject(shot.retry.json) ? ` ${String(shot.retry.json.code)}` : ''}`,
            );
            if (id === undefined) erroredRetries += 1;
          }
        }
      }
      // Every faucet deposit the ledger lists was answered to someone, and every answered one is listed.
      const listed = (await api2.ok<{ deposits: { id: string; source?: string }[] }>('GET', '/v1/treasury/deposits')).deposits;
      for (const id of answeredDeposits) {
        if (!listed.some((d) => d.id === id)) {
          lost += 1;
          examples.add(`round ${round}: faucet deposit ${id} was answered 200 but is not in the deposits`);
        }
      }
      for (const deposit of listed) {
        if (!answeredDeposits.has(deposit.id) && !initialDeposits.has(deposit.id) && !unexplained.has(deposit.id)) {
          unexplained.add(deposit.id);
          lost += 1;
          examples.add(
            `round ${round}: deposit ${deposit.id} is in the ledger but no faucet call was answered with it (its caller was told it failed, or never heard)`,
          );
        }
      }
      for (const shot of shots.filter((s) => s.kind === 'pay')) {
        const mine = rows.get(shot.key) ?? [];
        const moved = mine.filter((p) => p.status === 'confirmed' || p.status === 'pending');
        if (moved.length > 1) {
          doubled += moved.length - 1;
          examples.add(
            `round ${round}: key ${shot.key} has ${moved.length} payments that moved money (${mine.map((p) => `${p.id} ${p.status}`).join(', ')})`,
          );
        } else if (mine.length > 1) {
          // A first attempt that never reached the chain, paid again on retry: fine while the failed one never lands.
          repaid += 1;
        }
        for (const answer of [shot.first, shot.retry]) {
          const id = idOf(shot, answer);
          if (id !== null && !mine.some((p) => p.id === id && p.status === 'confirmed')) {
            lost += 1;
            examples.add(
              `round ${round}: key ${shot.key} was answered 200 (${id}) but the ledger has ${mine.map((p) => `${p.id} ${p.status}`).join(', ') || 'nothing'}`,
            );
          }
        }
        if (shot.retry !== undefined) {
          if (shot.retry.status === 200) recovered += 1;
          else {
            const why = isJsonObject(shot.retry.json) ? /failed \((\w+)\)/.exec(String(shot.retry.json.error))?.[1] : undefined;
            retryCodes.add(
              isJsonObject(shot.retry.json)
                ? `${shot.retry.status} ${String(shot.retry.json.code)}${why ? ` (${why})` : ''}`
                : `${shot.retry.status || shot.retry.error}`,
            );
            if (moved.length === 0) erroredRetries += 1;
          }
        }
      }
      // Each row against the chain: a confirmed row's transfer landed; a failed row's did not.
      const allRows = [...rows.values()].flat();
      await pool(allRows, 16, async (p) => {
        if (p.txSignature === null) return;
        const transfer = await chainTransfer(api2, p.txSignature);
        const landed = transfer !== null && transfer.succeeded;
        if (p.status === 'confirmed' && (!landed || transfer.amount !== p.amount)) {
          lost += 1;
          examples.add(`round ${round}: ${p.id} is confirmed but its transaction ${landed ? 'moved another amount' : 'is not on chain'}`);
        }
        if (p.status === 'failed' && landed) {
          // Money moved under a row the ledger calls failed: paid twice if the key was paid again, else lost.
          const again = (rows.get(p.description) ?? []).some((q) => q.id !== p.id && q.status === 'confirmed');
          if (again) doubled += 1;
          else lost += 1;
          examples.add(
            `round ${round}: ${p.id} is failed in the ledger but its transaction landed (${usdc(transfer.amount)} moved)${again ? ' and the key was paid again' : ''}`,
          );
        }
      });
      // Ledger == chain, for every wallet of every round so far (older ones must stay right too).
      for (const agentId of wallets.keys())
        if (!histories.has(agentId) || !agentId.startsWith(`k${round}-`))
          histories.set(agentId, (await spendHistory(api2, agentId)).payments);
      const balances = await ledgerVsChain(api2, { wallets, allocated, histories });
      for (const mismatch of balances.mismatches) {
        const who = mismatch.split(':')[0]!;
        if (!everMismatched.has(who)) examples.add(`round ${round}: ${mismatch}`);
        everMismatched.add(who);
      }
      roundsDone += 1;
      ctx.log(`round ${round}: killed after ${answered} answers, ${lostShots.length} lost, restart ${restartMs.at(-1)!.toFixed(0)} ms`);
    }
    const graceful = await serve.stop();
    if (graceful.code !== 0) findings.push(`kill: SIGTERM after the last round exited with ${graceful.code ?? graceful.signal}`);
    serve = undefined;

    const line = `kills: ${kills}, lost payments: ${lost}, doubled payments: ${doubled}, ledger != chain: ${everMismatched.size}, retries answered with an error although nothing moved: ${erroredRetries}`;
    const avg = restartMs.reduce((a, b) => a + b, 0) / Math.max(1, restartMs.length);
    const details = [
      `kill detail: ${roundsDone}/${rounds} rounds, ${fired} requests fired (${kindCounts.toString(3)}), ${lostAnswers} answers lost (${inFlight} reset by the kill, ${refusedConnection} refused connection after it), retried: ${recovered} answered 200, ${lostAnswers - recovered} not (${retryCodes.toString(6)})`,
      `kill detail: keys with a failed first attempt paid again on retry: ${repaid}; left pending after restart: ${leftPending}, replays answered differently: ${replayMismatch}, reconciled at start: ${reconciled.confirmed} confirmed, ${reconciled.failed} failed, ${reconciled.stillPending} still pending; restart to first answer avg ${avg.toFixed(0)} ms, max ${Math.max(0, ...restartMs).toFixed(0)} ms`,
    ];
    for (const example of examples.items) findings.push(`kill: ${example}`);
    if (erroredRetries > 0) {
      findings.push(
        `kill: ${erroredRetries} payment(s) lost to a SIGKILL cannot be retried with their Idempotency-Key: the retry answers ${retryCodes.toString(3)} although no money moved, so the caller must use a new key (repeat: --only kill --seed <seed>)`,
      );
    }
    return {
      line,
      details,
      findings,
      figures: [
        { name: 'lost payments', value: lost, safety: true },
        { name: 'doubled payments', value: doubled, safety: true },
        { name: 'ledger != chain', value: everMismatched.size, safety: true },
        { name: 'left pending after restart', value: leftPending, safety: true },
        { name: 'replays answered differently', value: replayMismatch, safety: true },
        { name: 'retries answered with an error although nothing moved', value: erroredRetries, safety: false },
      ],
      ...(roundsDone === 0 ? { error: 'no round completed' } : {}),
    };
  } finally {
    await serve?.stop();
    removeDir(dir);
  }
};
