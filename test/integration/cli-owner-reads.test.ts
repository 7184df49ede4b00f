import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { CLI, runCoffer, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import type { Deposits, FundsMoves } from '../../server/wire/answers/treasury.js';
import type { Dashboard } from '../../server/wire/answers/dashboard.js';
import type { SpendHistory } from '../../server/wire/answers/payments.js';
import type { Models, SearchResult } from '../../server/wire/answers/registry.js';
import type { PolicyResponse, PolicyWhatIf } from '../../server/wire/answers/policy.js';
import { writeLinkedConfig } from '../helpers/owner-api.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';

/**
 * What the dashboard shows the owner, from a terminal too: the treasury's deposits and the sim faucet,
 * the activity across agents and one agent's, the refusals, the registry's services and models, a
 * policy change tried on the past (what-if), and clearing terminals that ask to be linked. Real
 * processes: `coffer serve` on sim, each command as a terminal runs it, its answer held to the API's.
 */
describe("the dashboard's views and actions on the owner's CLI", () => {
  const dataDir = tempDataDir();
  /** A data dir where no Coffer runs: a terminal with no owner's connection file. */
  const elsewhere = tempDataDir();
  let serve: ServeProcess;
  let connection: { url: string; owner: string; ownerKey: string };
  const owner = (args: string[]) => runCoffer([...args, '--data-dir', dataDir]);
  /** The same view through the API, as the owner. */
  const api = async <T>(path: string): Promise<T> => {
    const answer = await fetch(`${connection.url}${path}${path.includes('?') ? '&' : '?'}owner=${connection.owner}`, {
      headers: { authorization: `Bearer ${connection.ownerKey}` },
    });
    expect(answer.status, path).toBe(200);
    return (await answer.json()) as T;
  };
  /** A linked terminal's config file for an agent the owner deployed. */
  const linkedConfig = async (agentId: string, deployed: { apiKey: string; agent: { walletAddress: string } }) =>
    writeLinkedConfig(dataDir, join(dataDir, `${agentId}.json`), agentId, deployed);
  /** A payment at a registry service's listed price (more is refused `price_above_registry`). */
  const pay = (agentKey: string, agentId: string, amount: string, service = 'demo-weather') =>
    fetch(`${connection.url}/v1/agents/${agentId}/pay?owner=${connection.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service, amount }),
    });

  beforeAll(async () => {
    serve = await spawnServe(dataDir);
    connection = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('coffer faucet mints test USDC on each rail; coffer deposits lists what came in, newest first, as the API does', async () => {
    const minted = await owner(['faucet', '5']);
    expect(minted.code, minted.stderr).toBe(0);
    expect(minted.stdout).toMatch(
      /^Minted 5\.00 test USDC into the treasury on Solana: it holds [\d.]+ USDC there \(transaction \w+\)\.$/m,
    );
    const onBase = await owner(['faucet', '2.5', '--rail', 'base']);
    expect(onBase.stdout).toMatch(
      /^Minted 2\.50 test USDC into the treasury on Base: it holds [\d.]+ USDC there \(transaction 0x[0-9a-f]{64}\)\.$/m,
    );
    // Refused by Coffer (exit 1, its code) or used wrongly (exit 2): nothing minted.
    const before = (await api<Deposits>('/v1/treasury/deposits')).deposits.length;
    const bad = await owner(['faucet', '0']);
    expect({ code: bad.code, said: bad.stderr }).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^coffer: "0" is not an amount: /m),
    });
    expect((await owner(['faucet', '1', '--rail', 'eth'])).code).toBe(2);
    expect((await owner(['faucet'])).code).toBe(2);

    const { deposits } = await api<Deposits>('/v1/treasury/deposits');
    expect(deposits).toHaveLength(before);
    const listed = await owner(['deposits']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(deposits.length);
    // Newest first, each its amount, rail, source and transaction: the 2.50 on Base, then the 5.00.
    expect(lines[0]).toMatch(new RegExp(`  2\\.50 USDC  on Base +from the sim faucet \\(test money\\)  ${deposits[0]!.txSignature}$`));
    expect(lines[1]).toMatch(new RegExp(`  5\\.00 USDC  on Solana +from the sim faucet \\(test money\\)  ${deposits[1]!.txSignature}$`));
    expect(JSON.parse((await owner(['deposits', '--json'])).stdout)).toEqual({ deposits });
  });

  it('coffer allocations lists the USDC moved between the treasury and agents, newest first, as the API does', async () => {
    const deployed = JSON.parse((await owner(['deploy', 'funded', '--fund', '1', '--json'])).stdout) as { apiKey: string };
    expect((await owner(['allocate', 'funded', '0.50', '--rail', 'base'])).code).toBe(0);
    expect((await owner(['return', 'funded', '0.25'])).code).toBe(0);
    // Refused for want of funds: nothing moved, nothing recorded.
    expect((await owner(['return', 'funded', '5'])).code).toBe(1);
    expect((await owner(['deploy', 'other', '--fund', '2', '--json'])).code).toBe(0);

    const mine = await api<FundsMoves>('/v1/treasury/allocations?agentId=funded');
    expect(mine.allocations.map((move) => [move.kind, move.agentId, move.amount, move.rail])).toEqual([
      ['return', 'funded', '0.25', 'sol'],
      ['allocation', 'funded', '0.50', 'base'],
      ['allocation', 'funded', '1.00', 'sol'],
    ]);
    for (const move of mine.allocations) {
      expect(move).toMatchObject({ currency: 'USDC', status: 'confirmed', errorCode: null, txSignature: expect.any(String) });
      expect(Date.parse(move.settledAt!)).toBeGreaterThanOrEqual(Date.parse(move.timestamp));
    }
    const all = await api<FundsMoves>('/v1/treasury/allocations');
    expect(all.allocations[0]).toMatchObject({ kind: 'allocation', agentId: 'other', amount: '2.00' });
    expect(all.allocations.slice(1, 4)).toEqual(mine.allocations);
    expect((await api<FundsMoves>('/v1/treasury/allocations?limit=1')).allocations).toEqual([all.allocations[0]]);

    const listed = await owner(['allocations', 'funded']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`  returned from funded  0\\.25 USDC  on Solana  confirmed  ${mine.allocations[0]!.txSignature}$`));
    expect(lines[1]).toMatch(new RegExp(`  allocated to funded   0\\.50 USDC  on Base    confirmed  ${mine.allocations[1]!.txSignature}$`));
    expect(JSON.parse((await owner(['allocations', 'funded', '--json'])).stdout)).toEqual(mine);
    expect(JSON.parse((await owner(['allocations', '--limit', '2', '--json'])).stdout)).toEqual({
      allocations: all.allocations.slice(0, 2),
    });
    // An agent that has none, one that does not exist, a wrong limit, two agents.
    expect((await owner(['deploy', 'dry', '--json'])).code).toBe(0);
    expect((await owner(['allocations', 'dry'])).stdout).toBe(
      'No USDC has moved between the treasury and dry yet (coffer allocate AGENT AMOUNT funds one).\n',
    );
    const missing = await owner(['allocations', 'fundedd']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no agent "fundedd".*\(agent_not_found\)/);
    expect((await owner(['allocations', '--limit', '0'])).code).toBe(2);
    expect((await owner(['allocations', 'funded', 'other'])).code).toBe(2);

    // The owner's alone; a misspelled filter is refused, not read as every agent's.
    const asAgent = await fetch(`${connection.url}/v1/treasury/allocations?agentId=funded&owner=${connection.owner}`, {
      headers: { authorization: `Bearer ${deployed.apiKey}` },
    });
    expect(asAgent.status).toBe(403);
    expect(((await asAgent.json()) as { code: string }).code).toBe('owner_only');
    const misspelled = await fetch(`${connection.url}/v1/treasury/allocations?agent=funded&owner=${connection.owner}`, {
      headers: { authorization: `Bearer ${connection.ownerKey}` },
    });
    expect(misspelled.status).toBe(400);
    expect(((await misspelled.json()) as { error: string }).error).toMatch(/unknown query parameter "agent"/);
  });

  it("coffer activity: the payments across agents, one agent's history, the refusals; a linked terminal reads its own", async () => {
    expect((await owner(['deploy', 'tried-before'])).code).toBe(0);
    const deployed = JSON.parse((await owner(['deploy', 'reader', '--fund', '1', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    expect((await pay(deployed.apiKey, 'reader', '0.01')).status).toBe(200);
    expect((await pay(deployed.apiKey, 'reader', '0.02', 'sms-send')).status).toBe(200);
    // Refused by its policy, after a tighter max.
    expect((await owner(['policy', 'reader', '--max', '0.005'])).code).toBe(0);
    expect(await (await pay(deployed.apiKey, 'reader', '0.01')).json()).toMatchObject({ code: 'max_per_payment_exceeded' });

    const across = await owner(['activity']);
    expect(across.code, across.stderr).toBe(0);
    // The rail beside the amount, as the refusals below say it.
    expect(across.stdout).toMatch(/^ {2}\S.* {2}reader {2}0\.02 USDC {2}on Solana {2}SMS sender +\(confirmed\)$/m);
    const { recentActivity, recentRefusals } = await api<Dashboard>('/v1/dashboard');
    expect(across.stdout.trimEnd().split('\n')).toHaveLength(recentActivity.length);
    expect(JSON.parse((await owner(['activity', '--json'])).stdout)).toEqual({ activity: recentActivity });

    const refusals = await owner(['activity', '--refusals']);
    expect(refusals.stdout).toMatch(
      / {2}reader {2}0\.01 USDC {2}on Solana {2}Coffer demo weather {2}max_per_payment_exceeded: 0\.01 USDC is over/,
    );
    expect(JSON.parse((await owner(['activity', 'reader', '--refusals', '--json'])).stdout)).toEqual({
      refusals: recentRefusals.filter((refusal) => refusal.agent === 'reader'),
    });
    // One agent's among the last 20 across agents: an agent that does not exist is said so, as for its history.
    const noRefusals = await owner(['activity', 'nobody', '--refusals']);
    expect({ code: noRefusals.code, said: noRefusals.stderr }).toMatchObject({
      code: 1,
      said: expect.stringMatching(/\(agent_not_found\)$/m),
    });
    expect((await owner(['activity', '--refusals', '--limit', '1'])).stdout.trimEnd().split('\n')).toHaveLength(1);
    expect((await owner(['activity', '--limit', '1'])).stdout).toMatch(
      /^ {2}\S.* {2}reader {2}0\.02 USDC {2}on Solana {2}SMS sender +\(confirmed\)\n$/,
    );

    // One agent's history, newest first, as many as asked.
    const one = await owner(['activity', 'reader', '--limit', '1']);
    expect(one.stdout).toMatch(/^ {2}\S.* {2}0\.02 USDC {2}on Solana {2}SMS sender {2}\(confirmed\)\n$/);
    const history = await api<SpendHistory>('/v1/agents/reader/spend-history?limit=20');
    expect(JSON.parse((await owner(['activity', 'reader', '--json'])).stdout)).toEqual(history);
    const unknown = await owner(['activity', 'nobody']);
    expect({ code: unknown.code, said: unknown.stderr }).toMatchObject({ code: 1, said: expect.stringMatching(/\(agent_not_found\)$/m) });
    for (const wrong of [
      ['activity', '--limit', '0', 'reader'],
      ['activity', '--limit', '501', 'reader'],
      ['activity', 'a', 'b'],
    ]) {
      expect((await owner(wrong)).code, wrong.join(' ')).toBe(2);
    }

    // A linked terminal: its agent's own payments, with its own key (no owner's connection file
    // where it runs); the refusals are the owner's.
    const config = await linkedConfig('reader', deployed);
    const noOwnerHere = { COFFER_HOME: elsewhere };
    for (const args of [['activity'], ['activity', 'reader']]) {
      const own = await runCoffer([...args, '--config', config], noOwnerHere);
      expect(own.code, own.stderr).toBe(0);
      expect(own.stdout.trimEnd().split('\n')).toHaveLength(2);
    }
    // Another agent named: the owner's to read. Where no Coffer's connection file is, said in those words (not "no Coffer runs", exit 3).
    const other = await runCoffer(['activity', 'tried-before', '--config', config], noOwnerHere);
    expect({ code: other.code, said: other.stderr }).toMatchObject({
      code: 1,
      said: expect.stringMatching(
        /the payments of tried-before: only the owner's key reaches it; this terminal is linked as reader, .*\(owner_only\)$/m,
      ),
    });
    // The owner's status asked for on that terminal: the same words (helper 177: exit 3, "no running Coffer").
    const ownerStatus = await runCoffer(['status', '--owner', '--config', config], noOwnerHere);
    expect({ code: ownerStatus.code, said: ownerStatus.stderr }).toMatchObject({
      code: 1,
      said: expect.stringMatching(
        /the owner's status: only the owner's key reaches it; this terminal is linked as reader, .*\(owner_only\)$/m,
      ),
    });
    const asOwner = await runCoffer(['activity', 'tried-before', '--config', config], { COFFER_HOME: dataDir });
    expect({ code: asOwner.code, said: asOwner.stdout }).toEqual({ code: 0, said: 'tried-before has made no payments yet.\n' });
    const refused = await runCoffer(['activity', '--refusals', '--config', config]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/the refusals are the owner's to read/);
    // Its status points to the rest.
    expect((await runCoffer(['status', '--config', config])).stdout).toContain(
      `\n  recent payments (${shellCommand(['activity', '--config', config])}: more):\n`,
    );
  }, 120_000);

  it('coffer services and coffer models: the registry as the dashboard lists it, for any terminal', async () => {
    // Only image models match: said, and where they are listed.
    expect((await owner(['services', 'flux'])).stdout).toBe('No service matches "flux"; 2 image models do: coffer models\n');
    // --limit counts the services shown (the image models the search finds first are not).
    const two = await owner(['services', '--limit', '2']);
    const total = (await api<SearchResult>('/v1/services/search?limit=100')).results.filter((s) => s.source !== 'model-registry').length;
    expect(two.stdout.split('\n').filter((line) => /^ {2}\S/.test(line))).toHaveLength(2);
    expect(two.stdout).toMatch(new RegExp(`^2 of ${total} services shown: --limit N for more$`, 'm'));
    const found = await owner(['services', 'weather']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(
      /^ {2}demo-weather {2}0\.01 USDC a call {2}Solana or Base {2}Coffer demo weather\n {6}GET http:\/\/\S+\/weather\?city=\{city\}$/m,
    );
    const search = await api<SearchResult>('/v1/services/search?q=weather');
    expect(JSON.parse((await owner(['services', 'weather', '--json'])).stdout)).toEqual(search);
    expect((await owner(['services', 'zzqxw'])).stdout).toBe('No service matches "zzqxw".\n');
    expect((await owner(['services', '--limit', '1000'])).code).toBe(2);

    const { models } = await api<Models>('/v1/models');
    const listed = await owner(['models']);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(models.length);
    for (const model of models) {
      const prices = Object.entries(model.pricing)
        .map(([resolution, price]) => `${resolution} ${price}`)
        .join(', ');
      expect(listed.stdout).toMatch(
        new RegExp(`^ {2}${model.id} +${prices.replaceAll('.', '\\.')} USDC +${model.provider} +${model.displayName}`, 'm'),
      );
    }
    // The registry is public: a terminal with no link and no data dir of its own reads the default port's.
    const bare = await runCoffer(['models', '--json'], {
      COFFER_PORT: new URL(connection.url).port,
      COFFER_HOME: elsewhere,
      COFFER_CONFIG: join(elsewhere, 'no-agent.json'),
    });
    expect(JSON.parse(bare.stdout)).toEqual({ models });
  });

  it('coffer policy --what-if tries a change on the last 30 days and saves nothing', async () => {
    const deployed = JSON.parse((await owner(['deploy', 'tried', '--fund', '1', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    expect((await pay(deployed.apiKey, 'tried', '0.01')).status).toBe(200);
    expect((await pay(deployed.apiKey, 'tried', '0.02', 'sms-send')).status).toBe(200);

    const tried = await owner(['policy', 'tried', '--max', '0.015', '--what-if']);
    expect(tried.code, tried.stderr).toBe(0);
    expect(tried.stdout).toMatch(/^What-if for tried's policy \(nothing was saved\): max per payment 0\.50 → 0\.015 USDC$/m);
    expect(tried.stdout).toMatch(
      /^ {2}Over the last 30 days \(2 payments\) this would have refused 1 \(0\.02 USDC\): 1 over the max per payment\.$/m,
    );
    // Each payment it would have refused with its rail: one policy judges both alike.
    expect(tried.stdout).toMatch(
      /^ {4}\S.* {2}0\.02 USDC on Solana {2}sms-send {2}0\.02 USDC is over this agent's max per payment of 0\.015 USDC$/m,
    );
    const asJson = JSON.parse((await owner(['policy', 'tried', '--max', '0.015', '--what-if', '--json'])).stdout) as PolicyWhatIf;
    expect(asJson).toMatchObject({ agentId: 'tried', payments: 2, wouldRefuse: { payments: 1, amount: '0.02' } });
    // Nothing saved: the policy is as it was.
    expect((await api<PolicyResponse>('/v1/agents/tried/policy')).policy.maxPerPayment).toBe('0.50');
    // Without a change to try: used wrongly.
    const nothing = await owner(['policy', 'tried', '--what-if']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/--what-if tries a change/);

    // The agent tries its own: what would wait is the owner's yes.
    const config = await linkedConfig('tried', deployed);
    const asked = await runCoffer(['policy', '--ask-above', '0.015', '--what-if', '--config', config]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/^ {2}1 of those it let through \(0\.02 USDC\) would have waited for the owner's yes/m);
    expect((await api<PolicyResponse>('/v1/agents/tried/policy')).policy.askAbove).toBeUndefined();
  });

  it("coffer images: an agent's image tasks, for the owner and for the agent itself", async () => {
    const deployed = JSON.parse((await owner(['deploy', 'painter', '--fund', '1', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    expect((await owner(['images', 'painter'])).stdout).toBe('painter has made no images yet.\n');
    const generated = await fetch(`${connection.url}/v1/agents/painter/generate?owner=${connection.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${deployed.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ modelId: 'sdxl', resolution: '1k', prompt: 'a lighthouse at dusk' }),
    });
    expect(generated.status).toBe(200);
    // The sim's drawn test image: made within moments.
    let tasks: { tasks: { status: string; resultUrl?: string | null }[] } = { tasks: [] };
    for (let tries = 0; tries < 100 && tasks.tasks[0]?.status !== 'success'; tries += 1) {
      tasks = await api('/v1/agents/painter/tasks');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(tasks.tasks[0]?.status).toBe('success');
    const listed = await owner(['images', 'painter']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^ {2}\\S.* {2}0\\.002 USDC {2}sdxl 1k {2}${tasks.tasks[0]!.resultUrl!.replace(/[.?]/g, '\\$&')}\n {6}"a lighthouse at dusk"\n$`,
      ),
    );
    expect(JSON.parse((await owner(['images', 'painter', '--json'])).stdout)).toEqual(tasks);
    const config = await linkedConfig('painter', deployed);
    const own = await runCoffer(['images', '--limit', '1', '--config', config], { COFFER_HOME: elsewhere });
    expect({ code: own.code, out: own.stdout }).toEqual({ code: 0, out: listed.stdout });
    // The owner names the agent; too many is used wrongly.
    expect((await owner(['images'])).code).toBe(2);
    expect((await owner(['images', 'painter', '--limit', '101'])).code).toBe(2);
  });

  it("coffer deny clears a terminal's link request by the id coffer approvals shows, or all of them with --links", async () => {
    const linking = () => {
      const child = spawn(
        process.execPath,
        [CLI, 'link', '--url', connection.url, '--config', join(dataDir, `never-${Math.random()}.json`)],
        {
          env: { ...process.env, COFFER_NO_BROWSER: '1', COFFER_CONFIG: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      onTestFinished(() => void child.kill());
      let said = '';
      child.stderr!.on('data', (chunk) => (said += chunk));
      const exited = new Promise<{ code: number | null; said: string }>((resolve) => child.once('exit', (code) => resolve({ code, said })));
      return exited;
    };
    const first = linking();
    const second = linking();
    const waiting = async () => (await api<{ sessions: { id: string }[] }>('/v1/link-sessions')).sessions;
    while ((await waiting()).length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const [one] = await waiting();

    const listed = await owner(['approvals']);
    expect(listed.stdout).toContain(`or clear it: ${shellCommand(['deny', one!.id, '--data-dir', dataDir])}\n`);
    // The command that links it takes the code the owner checked: said with it.
    const { code } = (await api<{ sessions: { id: string; code: string }[] }>('/v1/link-sessions')).sessions[0]!;
    expect(listed.stdout).toContain(
      `after checking the code: ${shellCommand(['approve', 'URL', '--code', code, '--data-dir', dataDir])}; or clear it`,
    );
    const cleared = await owner(['deny', one!.id]);
    expect(cleared.stdout).toBe('Cleared 1 link request: its terminal is told there is nothing to wait for.\n');
    expect((await waiting()).map((session) => session.id)).not.toContain(one!.id);
    // Refused in the same words, with its code, with --json or without.
    for (const args of [
      ['deny', one!.id],
      ['deny', one!.id, '--json'],
    ]) {
      const again = await owner(args);
      expect({ code: again.code, said: again.stderr }).toMatchObject({
        code: 1,
        said: expect.stringMatching(/no terminal waits to be linked.*\(link_not_found\)$/m),
      });
    }

    expect((await owner(['deny', '--links'])).stdout).toBe('Cleared 1 link request: its terminal is told there is nothing to wait for.\n');
    expect(await waiting()).toEqual([]);
    expect((await owner(['deny', '--links'])).stdout).toBe('No terminal was waiting to be linked.\n');
    expect((await owner(['deny', '--links', one!.id])).code).toBe(2);
    // Each terminal is told, and stops waiting.
    for (const ended of await Promise.all([first, second])) {
      expect(ended.code).toBe(1);
      expect(ended.said).toMatch(/\(link_not_found\)/);
    }
  });

  it("names a renamed agent in the owner's status, an agent's breaker in its own, and `resume-all` as `resume --all`", async () => {
    const deployed = JSON.parse((await owner(['deploy', 'named', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    await owner(['rename', 'named', 'Night shift']);
    expect((await owner(['status'])).stdout).toMatch(/^ {4}named "Night shift" +active/m);
    await owner(['policy', 'named', '--breaker', '4/10m']);
    const config = await linkedConfig('named', deployed);
    expect((await runCoffer(['status', '--config', config])).stdout).toMatch(/^ {2}breaker {2}stops after 4 refusals within 10 minutes$/m);
    const typo = await runCoffer(['resume-all']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^coffer: unknown command "resume-all"\. Did you mean "coffer resume --all"\?$/m);
    // Another word for a command: the command named, not the whole usage.
    for (const [word, command] of [
      ['history', 'activity'],
      ['payments', 'activity'],
      ['unpause', 'resume'],
      ['stop', 'kill'],
      ['fund', 'allocate'],
      ['withdraw', 'return'],
    ]) {
      const other = await runCoffer([word!]);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(new RegExp(`^coffer: unknown command "${word}"\\. Did you mean "coffer ${command}"\\?$`, 'm'));
    }
    // The command named after its options: the line as meant, and that command's usage (not all 200 lines of help).
    const optionFirst = await runCoffer(['--data-dir', dataDir, 'status']);
    expect(optionFirst.code).toBe(2);
    expect(optionFirst.stderr).toMatch(
      new RegExp(
        `^coffer: a command comes first, then its options\\. Did you mean "coffer status --data-dir ${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"\\?$`,
        'm',
      ),
    );
    expect(optionFirst.stderr).toMatch(/usage:\s+coffer status/);
    expect(optionFirst.stderr.split('\n').length).toBeLessThan(40);
    // No command at all: said, with where the commands are listed.
    const noCommand = await runCoffer(['--data-dir', dataDir]);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toBe(
      'coffer: a command comes first, then its options ("--data-dir" is an option): coffer <command> [options]; coffer help lists the commands\n',
    );
  });

  it("says when a budget starts afresh in the owner's time zone, naming it where the terminal's is another", async () => {
    const deployed = JSON.parse((await owner(['deploy', 'zoned', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    expect((await owner(['settings', '--time-zone', 'Asia/Tokyo'])).code).toBe(0);
    onTestFinished(async () => void (await owner(['settings', '--time-zone', 'machine'])));
    expect((await owner(['policy', 'zoned', '--budget', '1/day', '--expires', '2099-12-31T12:00:00Z'])).code).toBe(0);
    const answer = await api<PolicyResponse>('/v1/agents/zoned/policy');
    expect(answer.timeZone).toBe('Asia/Tokyo');
    // A day's budget starts afresh at midnight in Tokyo: 15:00 UTC, which a terminal in UTC showed bare.
    expect(new Date(answer.budgets![0]!.resetsAt!).getUTCHours()).toBe(15);
    const inUtc = await runCoffer(['policy', 'zoned', '--data-dir', dataDir], { TZ: 'UTC' });
    expect(inUtc.stdout).toMatch(
      /^ {2}budgets {3}1\.00 USDC a day: 0\.00 spent, 1\.00 left, starts afresh \S.*\b(12:00 AM|00:00)\b.* \(Asia\/Tokyo\)$/m,
    );
    expect(inUtc.stdout).toMatch(/^ {2}ends {6}\S.*\b(09:00 PM|21:00)\b.* \(Asia\/Tokyo\): every payment is refused after it$/m);
    const config = await linkedConfig('zoned', deployed);
    expect((await runCoffer(['status', '--config', config], { TZ: 'UTC' })).stdout).toMatch(/starts afresh .* \(Asia\/Tokyo\)$/m);
    // A terminal in the owner's zone reads the same moments with no zone named.
    const inTokyo = await runCoffer(['policy', 'zoned', '--data-dir', dataDir], { TZ: 'Asia/Tokyo' });
    expect(inTokyo.stdout).toMatch(/starts afresh \S.*\b(12:00 AM|00:00)\b[^(\n]*$/m);
    expect(inTokyo.stdout).not.toMatch(/Asia\/Tokyo/);
  });
});
