import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { tempDataDir } from '../helpers/coffer.js';
import { CLI, runCoffer, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { unsettledEvmOffer } from '../fixtures/x402-evm-peers.js';
import { readConnection, writeLinkedConfig } from '../helpers/owner-api.js';
import type { DashboardTreasury } from '../../server/wire/answers/dashboard.js';
import type { AgentRow } from '../../server/wire/answers/agents.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';

/**
 * Issue 47, point 1: the owner runs the treasury from a terminal, as the dashboard does: deploy (with
 * funding), allocate, return, rename, archive, what waits and its answer, and an owner status; every
 * command of a running Coffer's data dir (--data-dir), every read with --json, exit codes that mean
 * something (0 done, 1 refused by Coffer with its code, 2 used wrongly). Real processes throughout:
 * `coffer serve`, and each command as a terminal runs it.
 */
describe("the owner's CLI", () => {
  const dataDir = tempDataDir();
  const elsewhere = tempDataDir();
  let serve: ServeProcess;
  const owner = (args: string[]) => runCoffer([...args, '--data-dir', dataDir]);
  /** The treasury's id, from the connection file. */
  const treasuryId = () => (JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string }).owner;

  beforeAll(async () => {
    serve = await spawnServe(dataDir);
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('deploys a funded agent, moves money both ways, renames and archives it, each said in words or as JSON', async () => {
    const deployed = await owner(['deploy', 'researcher2', '--fund', '2']);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(
      /^Deployed researcher2 \(wallets: \w+ on Solana, 0x[0-9a-fA-F]{40} on Base\): 5\.00 USDC in any 24 hours, at most 0\.50 a payment\.$/m,
    );
    expect(deployed.stdout).toMatch(/^Funded with 2\.00 USDC on Solana \(transaction \w+\)\.$/m);
    expect(deployed.stdout).toMatch(/^Its API key, shown this once: cof_agt_\w+$/m);
    expect(deployed.stdout).toMatch(/"researcher2": \{\s*"command"/);

    const json = await owner(['deploy', 'scripted', '--daily', '0.25', '--json']);
    const answer = JSON.parse(json.stdout) as { agent: { agentId: string }; policy: { dailyBudget: string; maxPerPayment: string } };
    // The max left out fits the budget given, as a linked terminal's agent starts.
    expect(answer.policy).toMatchObject({ dailyBudget: '0.25', maxPerPayment: '0.25' });

    expect((await owner(['allocate', 'researcher2', '1.5'])).stdout).toMatch(
      /^Allocated 1\.50 USDC to researcher2: its wallet on Solana holds 3\.50 USDC/,
    );
    expect((await owner(['return', 'researcher2', '0.5'])).stdout).toMatch(
      /^Returned 0\.50 USDC from researcher2 to the treasury: its wallet on Solana holds 3\.00 USDC/,
    );
    // The same on Base: the treasury's account there to the agent's, and back.
    expect((await owner(['allocate', 'researcher2', '2', '--rail', 'base'])).stdout).toMatch(
      /^Allocated 2\.00 USDC to researcher2: its wallet on Base holds 2\.00 USDC \(transaction 0x[0-9a-f]{64}\)/,
    );
    expect((await owner(['return', 'researcher2', '--rail', 'base'])).stdout).toMatch(
      /^Returned 2\.00 USDC from researcher2 to the treasury: its wallet on Base holds 0\.00 USDC/,
    );
    const badRail = await owner(['allocate', 'researcher2', '1', '--rail', 'eth']);
    expect(badRail.code).toBe(2);
    expect(badRail.stderr).toMatch(/--rail is sol or base/);
    expect((await owner(['rename', 'researcher2', 'Research two'])).stdout).toBe('Renamed researcher2: "Research two".\n');

    // A leaked key, replaced from the terminal as from the dashboard: the old one stops at once.
    const oldKey = /^Its API key, shown this once: (cof_agt_\w+)$/m.exec(deployed.stdout)![1]!;
    const balanceWith = (key: string) =>
      fetch(`${serve.url}/v1/agents/researcher2/balance?owner=${treasuryId()}`, { headers: { authorization: `Bearer ${key}` } });
    expect((await balanceWith(oldKey)).status).toBe(200);
    const replaced = await owner(['key', 'researcher2']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toMatch(/^Issued researcher2 a new API key; every older one stopped working\.$/m);
    const newKey = /^Its API key, shown this once: (cof_agt_\w+)$/m.exec(replaced.stdout)![1]!;
    expect(replaced.stdout).toMatch(/"researcher2": \{\s*"command"/);
    // Typed as printed, it asks this Coffer (its --data-dir named), not ~/.coffer's.
    expect(replaced.stdout).toContain(
      `needs the new key: ${shellCommand(['key', 'researcher2', '--config', 'FILE', '--data-dir', dataDir])} writes it there`,
    );
    expect((await balanceWith(oldKey)).status).toBe(401);
    expect((await balanceWith(newKey)).status).toBe(200);

    const status = await owner(['status', '--json']);
    const agents = (JSON.parse(status.stdout) as { agents: { agentId: string; displayName: string; balance: string }[] }).agents;
    expect(agents.find((agent) => agent.agentId === 'researcher2')).toMatchObject({ displayName: 'Research two', balance: '3.00' });

    // Archiving takes an empty wallet: refused with the server's code (exit 1), naming what it holds on
    // each rail and the commands that return it; then done.
    expect((await owner(['allocate', 'researcher2', '1', '--rail', 'base'])).code).toBe(0);
    const refused = await owner(['archive', 'researcher2']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^coffer: agent "researcher2" still holds 3\.00 USDC on Solana and 1\.00 USDC on Base: return it to the treasury first \(agent_has_funds\)$/m,
    );
    // The server's HTTP door is not the CLI's: its own commands follow.
    expect(refused.stderr).not.toContain('/v1/');
    // Each command as typed in a shell, this data dir named: pasted elsewhere, it asks the same Coffer.
    const typed = (...words: string[]) => shellCommand([...words, '--data-dir', dataDir]);
    expect(refused.stderr).toContain(
      `\nReturn it first: ${typed('return', 'researcher2')} and ${typed('return', 'researcher2', '--rail', 'base')}, then ${typed('archive', 'researcher2')}\n`,
    );
    expect((await owner(['return', 'researcher2', '--rail', 'base'])).code).toBe(0);
    expect((await owner(['return', 'researcher2'])).code).toBe(0);
    expect((await owner(['archive', 'researcher2'])).stdout).toMatch(/^Archived researcher2: stopped for good/);
    // Its policy reads as an archived agent's, and is not changed any more.
    expect((await owner(['policy', 'researcher2'])).stdout).toMatch(
      /^Policy of researcher2, archived .+: kept as it was; it pays nothing any more\n/,
    );
    const changed = await owner(['policy', 'researcher2', '--daily', '50']);
    expect({ code: changed.code, said: changed.stderr }).toMatchObject({
      code: 1,
      said: expect.stringMatching(/is archived.*\(agent_archived\)$/m),
    });
    // A stop of it says it is stopped for good, not that the owner may resume it.
    const killed = await owner(['kill', 'researcher2']);
    expect(killed.code, killed.stderr).toBe(0);
    expect(killed.stdout).toMatch(/^researcher2 was archived .+: it is stopped for good, and there was nothing to stop\.$/m);
  }, 120_000);

  it('the status names what an archived agent still holds (sent after the archive), with the command that returns it', async () => {
    expect((await owner(['deploy', 'stranded', '--fund', '0.25'])).code).toBe(0);
    // USDC in its wallet after the archive (sent from outside, or an archive from before the rule that
    // it be empty): written here as such an archive.
    const ledger = openConnection(join(dataDir, 'coffer.db'));
    try {
      ledger.prepare("UPDATE agents SET archived_at = ?, status = 'suspended' WHERE agent_id = 'stranded'").run(Date.now());
    } finally {
      ledger.close();
    }
    expect((await owner(['status'])).stdout).toContain(
      `\n  archived stranded still holds 0.25 USDC on Solana: ${shellCommand(['return', 'stranded', '--data-dir', dataDir])}\n`,
    );
    const json = JSON.parse((await owner(['status', '--json'])).stdout) as { archivedAgents: { agentId: string; balance: string }[] };
    expect(json.archivedAgents.find((agent) => agent.agentId === 'stranded')).toMatchObject({ balance: '0.25' });
    expect((await owner(['return', 'stranded'])).code).toBe(0);
    expect((await owner(['status'])).stdout).not.toMatch(/archived stranded still holds/);
  });

  it('kill and resume say when they changed nothing: stopped already, or not stopped', async () => {
    await owner(['deploy', 'steady']);
    expect((await owner(['resume', 'steady'])).stdout).toBe('steady was not stopped: it may pay, within its policy.\n');
    expect((await owner(['kill', 'steady'])).stdout).toBe('Stopped steady: its payments are refused until the owner resumes it.\n');
    expect((await owner(['kill', 'steady'])).stdout).toBe(
      'steady was stopped already: its payments are refused until the owner resumes it.\n',
    );
    expect((await owner(['resume', 'steady'])).stdout).toBe('Resumed steady: it may pay again, within its policy.\n');
  });

  it("the owner's loosening is asked about as the dashboard asks; without a terminal it needs --yes, and nothing changes until then", async () => {
    await owner(['deploy', 'loose', '--daily', '5', '--max', '0.5', '--breaker', '5/10m']);
    const policyOf = async () => JSON.parse((await owner(['policy', 'loose', '--json'])).stdout).policy;
    const before = await policyOf();
    // A tenfold raise, a daily budget above the treasury, the breaker removed: each said, nothing saved.
    const refused = await owner(['policy', 'loose', '--daily', '5000', '--max', '5', '--breaker', 'none']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^coffer: This loosens loose's policy: Daily budget 5\.00 → 5,000\.00 USDC: 1,000× the current budget\. /,
    );
    expect(refused.stderr).toMatch(/ Max per payment 0\.50 → 5\.00 USDC: 10× the current limit\. /);
    expect(refused.stderr).toMatch(/ A daily budget of 5,000\.00 USDC is more than the treasury holds \([\d,.]+ USDC\)\. /);
    // One daily budget counts both rails: the treasury's figure is what it holds on both (1,000 test
    // USDC each at the start, less what the agents were given), not its Solana wallet's alone.
    const held = /more than the treasury holds \(([\d,.]+) USDC\)/.exec(refused.stderr)![1]!.replace(/,/g, '');
    expect(Number(held)).toBeGreaterThan(1000);
    expect(refused.stderr).toMatch(/ Breaker: stops after 5 refusals within 10 minutes → removed\. /);
    expect(refused.stderr).toMatch(/Nothing was changed: run it again with --yes to save it \(loosening_needs_yes\)\n$/);
    // --json too: a script is refused alike, not saved.
    const scripted = await owner(['policy', 'loose', '--daily', '5000', '--json']);
    expect({ code: scripted.code, out: scripted.stdout }).toEqual({ code: 1, out: '' });
    expect(scripted.stderr).toMatch(/\(loosening_needs_yes\)\n$/);
    expect(await policyOf()).toEqual(before);
    // An end moved a day later is named as the days typed, not as the next midnights.
    expect((await owner(['policy', 'loose', '--expires', '2099-12-30'])).code).toBe(0);
    const later = await owner(['policy', 'loose', '--expires', '2099-12-31']);
    expect(later.code).toBe(1);
    expect(later.stderr).toMatch(/ End: the end of 2099-12-30 → the end of 2099-12-31 \(later\)\. /);
    // A modest raise or a tightening is not asked about.
    expect((await owner(['policy', 'loose', '--daily', '6', '--max', '0.4'])).code).toBe(0);
    // With --yes, saved.
    const saved = await owner(['policy', 'loose', '--daily', '5000', '--breaker', 'none', '--yes']);
    expect(saved.stderr).toBe('');
    expect(saved.stdout).toMatch(/^Changed loose's policy: daily budget 6\.00 → 5000\.00 USDC/);
    expect(await policyOf()).toMatchObject({ dailyBudget: '5000.00', maxPerPayment: '0.40' });
    expect((await policyOf()).breaker).toBeUndefined();
  });

  it('archiving while a payment is pending says what it waits for, and suggests no return with nothing free to return', async () => {
    const deployed = JSON.parse((await owner(['deploy', 'pending-one', '--daily', '1', '--json'])).stdout) as { apiKey: string };
    expect((await owner(['allocate', 'pending-one', '0.01', '--rail', 'base'])).code).toBe(0);
    const health = (await (await fetch(`${serve.url}/v1/health`)).json()) as { base: { chainId: number; usdc: string } };
    const { offer } = unsettledEvmOffer({ chainId: health.base.chainId, usdc: health.base.usdc, amount: 10_000n });
    const paid = await fetch(`${serve.url}/v1/agents/pending-one/x402?owner=${treasuryId()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${deployed.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(offer),
    });
    expect(((await paid.json()) as { status: string }).status).toBe('pending');
    // Its whole 0.01 on Base is promised to the payment: nothing to return, so no `coffer return` to try.
    const refused = await owner(['archive', 'pending-one']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /has 0\.01 USDC on Base promised to payments still pending: archive it once they settle or fail \(agent_has_funds\)$/m,
    );
    expect(refused.stderr).not.toMatch(/Return it first/);
  });

  it('approving a held x402 purchase says it is bought when the agent asks the seller again, nothing paid yet', async () => {
    const deployed = JSON.parse((await owner(['deploy', 'x402-asker', '--daily', '1', '--json'])).stdout) as { apiKey: string };
    expect((await owner(['allocate', 'x402-asker', '0.05', '--rail', 'base'])).code).toBe(0);
    await owner(['policy', 'x402-asker', '--ask-above', '0.005']);
    const health = (await (await fetch(`${serve.url}/v1/health`)).json()) as { base: { chainId: number; usdc: string } };
    const { offer } = unsettledEvmOffer({ chainId: health.base.chainId, usdc: health.base.usdc, amount: 10_000n });
    const asked = await fetch(`${serve.url}/v1/agents/x402-asker/x402?owner=${treasuryId()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${deployed.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(offer),
    });
    expect(asked.status).toBe(202);
    const { approvalId } = (await asked.json()) as { approvalId: string };
    const approved = await owner(['approve', approvalId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(
      new RegExp(
        `^Approved ${approvalId}: Pay 0\\.01 USDC on Base .*; nothing is paid yet: the agent buys it when it asks the seller again, before .+\\.$`,
        'm',
      ),
    );
    expect(approved.stdout).not.toMatch(/carried out/);
  });

  it('coffer key --config: this terminal acts as an agent already deployed, and the terminal it replaces is told why', async () => {
    const deployed = JSON.parse((await owner(['deploy', 'moved', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    const before = writeLinkedConfig(dataDir, join(dataDir, 'moved-old.json'), 'moved', deployed);
    const here = join(dataDir, 'moved-here', 'agent.json');
    const keyed = await owner(['key', 'moved', '--config', here]);
    expect(keyed.code, keyed.stderr).toBe(0);
    // Not the file the agent's commands read by default: the words say how to name it to them.
    expect(keyed.stdout).toContain(
      `Its key is in ${here} (0600): commands act as moved with --config ${here}, or with COFFER_CONFIG=${here}.\n`,
    );
    expect(keyed.stdout).not.toMatch(/shown this once/);
    const status = await runCoffer(['status', '--config', here]);
    expect(status.code, status.stderr).toBe(0);
    // The file the agent's commands read by default (COFFER_CONFIG here): this terminal acts as it now.
    const again = await runCoffer(['key', 'moved', '--config', here, '--data-dir', dataDir], { COFFER_CONFIG: here });
    expect(again.stdout).toContain(`This terminal acts as moved now: its key is in ${here} (0600).\n`);
    // As JSON the key is printed nowhere either, as deploy --config keeps it (helper 171): where it is instead.
    const asJson = await runCoffer(['key', 'moved', '--config', here, '--data-dir', dataDir, '--json'], { COFFER_CONFIG: here });
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual({ agentId: 'moved', config: here });
    expect(asJson.stdout).not.toContain('cof_agt_');
    expect(status.stdout).toMatch(/^Agent moved at /m);
    // The terminal that held the old key hears why it stopped.
    const old = await runCoffer(['status', '--config', before]);
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(/this API key of agent "moved" was replaced by a new one at \S+: the owner has it/);
    // Another agent's config file is not replaced without --force (its key would be lost for good).
    const other = await owner(['key', 'researcher2', '--config', here]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/already holds a linked agent/);
    expect((await runCoffer(['status', '--config', here])).code).toBe(0);
  });

  it('coffer deploy --config: this terminal acts as the new agent at once, its key never printed', async () => {
    const here = join(dataDir, 'fresh-here', 'agent.json');
    const deployed = await owner(['deploy', 'fresh', '--config', here]);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/^Deployed fresh \(wallets: \w+ on Solana, 0x[0-9a-fA-F]{40} on Base\)/);
    // Deployed without --fund: how to fund it is said.
    expect(deployed.stdout).toContain(
      `Its wallets are empty: ${shellCommand(['allocate', 'fresh', 'AMOUNT', '--data-dir', dataDir])} funds it (--rail base on Base).\n`,
    );
    expect(deployed.stdout).toContain(
      `Its key is in ${here} (0600): commands act as fresh with --config ${here}, or with COFFER_CONFIG=${here}.\n`,
    );
    expect(deployed.stdout).not.toMatch(/shown this once|cof_agt_/);
    const status = await runCoffer(['status', '--config', here]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Agent fresh at /m);
    // A file holding another agent is not replaced without --force, and nothing is deployed.
    const refused = await owner(['deploy', 'crowded', '--config', here]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds a linked agent/);
    const agents = JSON.parse((await owner(['status', '--owner', '--json'])).stdout) as { agents: { agentId: string }[] };
    expect(agents.agents.map((agent) => agent.agentId)).not.toContain('crowded');
    // With --force it is: the file acts as the new agent.
    const forced = await owner(['deploy', 'crowded', '--config', here, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await runCoffer(['status', '--config', here])).stdout).toMatch(/^Agent crowded at /m);
    // A folder is no config file, --force or not: refused before the agent exists.
    const folder = await owner(['deploy', 'foldered', '--config', join(dataDir, 'fresh-here'), '--force']);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toMatch(/is a folder/);
    const listed = JSON.parse((await owner(['status', '--owner', '--json'])).stdout) as { agents: { agentId: string }[] };
    expect(listed.agents.map((agent) => agent.agentId)).not.toContain('foldered');
    // --json with --config: the answer without the key (kept in the file), and where it is.
    const quiet = join(dataDir, 'fresh-here', 'quiet.json');
    const json = await owner(['deploy', 'quiet', '--config', quiet, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(/cof_agt_/);
    expect(JSON.parse(json.stdout)).toMatchObject({ agent: { agentId: 'quiet' }, config: quiet });
    expect((await runCoffer(['status', '--config', quiet])).stdout).toMatch(/^Agent quiet at /m);
  });

  it('deploy takes every flag coffer policy takes: the agent starts under the whole policy, in one step', async () => {
    const guarded = await owner([
      'deploy',
      'guarded',
      '--budget',
      '50/month',
      '--count',
      '30/hour:demo-weather',
      '--expires',
      '2099-12-31T00:00:00Z',
      '--warn-at',
      '50,90',
      '--breaker',
      '5/10m',
      '--breaker',
      '50%/15m',
      '--ask-above',
      '0.05',
      '--ask-new-recipient',
      'yes',
      '--cooldown',
      '30',
      '--max',
      '0.10',
      '--json',
    ]);
    expect(guarded.code, guarded.stderr).toBe(0);
    expect(JSON.parse(guarded.stdout).policy).toMatchObject({
      dailyBudget: '5.00',
      maxPerPayment: '0.10',
      cooldownSeconds: 30,
      budgets: [
        { amount: '50.00', window: 'month' },
        { count: 30, window: 'hour', service: 'demo-weather' },
      ],
      expiresAt: '2099-12-31T00:00:00.000Z',
      warnAt: [50, 90],
      breaker: { refusals: { count: 5, minutes: 10 }, spending: { percent: 50, minutes: 15 } },
      askAbove: '0.05',
      askNewRecipient: true,
    });
    // Said in words too: what the agent starts under beyond its two limits.
    const words = await owner(['deploy', 'guarded-words', '--budget', '50/month', '--ask-above', '0.25']);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toMatch(
      /^Deployed guarded-words \(wallets: \w+ on Solana, 0x[0-9a-fA-F]{40} on Base\): 5\.00 USDC in any 24 hours, at most 0\.50 a payment\.$/m,
    );
    expect(words.stdout).toMatch(
      /^Policy of guarded-words\n {2}daily {5}5\.00 USDC in any 24 hours: 0\.00 spent\n(?: {2}.+\n)* {2}budgets {3}50\.00 USDC a month: .+\n(?: {2}.+\n)* {2}asks {6}the owner before payments above 0\.25 USDC\n/m,
    );
    // A bad one is said with its flag, before any Coffer is asked, and nothing is deployed.
    const bad = await owner(['deploy', 'half-guarded', '--breaker', '5']);
    expect({ code: bad.code, said: bad.stderr }).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^coffer: --breaker 5: write N\/TIME/m),
    });
    expect((await owner(['policy', 'half-guarded'])).stderr).toMatch(/\(agent_not_found\)$/m);
  });

  it('coffer pay says when the payment it made stopped the agent (its spending breaker), on stderr', async () => {
    const deployed = JSON.parse(
      (await owner(['deploy', 'brake', '--daily', '0.04', '--breaker', '50%/15m', '--fund', '1', '--json'])).stdout,
    ) as { apiKey: string; agent: { walletAddress: string } };
    const config = writeLinkedConfig(dataDir, join(dataDir, 'brake.json'), 'brake', deployed);
    const first = await runCoffer(['pay', 'demo-weather', '0.01', '--config', config]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    const tripping = await runCoffer(['pay', 'demo-weather', '0.01', '--receipt', '--config', config]);
    expect(tripping.code, tripping.stderr).toBe(0);
    // stdout stays the receipt alone, for a script; what happened to the agent goes to stderr.
    expect(tripping.stdout).toMatch(/^\S+\n$/);
    expect(tripping.stderr).toBe(
      'After this payment, its breaker tripped: 0.02 USDC spent within 15 minutes, 50 % or more of its daily budget of 0.04 USDC: ' +
        'agent "brake" is stopped, every payment refused until the owner resumes it.\n',
    );
    expect((await runCoffer(['pay', 'demo-weather', '0.01', '--config', config])).stderr).toMatch(/\(agent_suspended\)$/m);
  });

  it('says what is wrong with a command (exit 2), what Coffer refused (exit 1), and that no Coffer answers (exit 3)', async () => {
    const noAgent = await owner(['deploy']);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toMatch(/coffer deploy needs the new agent's id/);
    expect((await owner(['allocate', 'researcher2'])).code).toBe(2);
    const notAmount = await owner(['allocate', 'researcher2', 'abc']);
    expect({ code: notAmount.code, said: notAmount.stderr }).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^coffer: "abc" is not an amount: .*such as 0\.01$/m),
    });
    // Typed the other way round (an amount where the agent goes): told how the command takes them.
    const swapped = await owner(['allocate', '5', 'researcher2']);
    expect(swapped.stderr).toMatch(/^coffer: "researcher2" is not an amount: .*coffer allocate takes the agent first, then the amount$/m);
    // A flag's bad value is said with the flag, before any Coffer is asked (exit 2): not as the API's field.
    for (const [args, said] of [
      [['--max', '0'], /^coffer: --max 0: the amount must be a positive decimal of USDC/m],
      [['--daily', '-1'], /^coffer: --daily -1: the amount must be/m],
      [['--fund', 'abc'], /^coffer: --fund abc: the amount must be/m],
      [['--allow', 'any', '--allow', 'demo-weather'], /^coffer: --allow any allows every service: it goes alone/m],
    ] as const) {
      const bad = await owner(['deploy', 'badly', ...args]);
      expect({ code: bad.code, said: bad.stderr }).toMatchObject({ code: 2, said: expect.stringMatching(said) });
    }
    // An id Coffer would refuse is a usage error too, said with the rule.
    const badId = await owner(['deploy', 'Bad Name!']);
    expect({ code: badId.code, said: badId.stderr }).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^coffer: "Bad Name!" is not an agent id: /m),
    });
    // What only Coffer can judge (the registry) names the flag too, and where to look from here.
    const typo = await owner(['deploy', 'badly', '--allow', 'demo-wether']);
    expect({ code: typo.code, said: typo.stderr }).toMatchObject({
      code: 1,
      said: expect.stringMatching(
        /^coffer: --allow: "demo-wether" is neither a registry service id \(did you mean "demo-weather"\?\) nor an address .*coffer services.*\(invalid_policy\)$/m,
      ),
    });
    // Nothing was deployed.
    expect((await owner(['policy', 'badly'])).stderr).toMatch(/\(agent_not_found\)$/m);
    // Spaces around a flag's amount are read as policy reads them, on every flag.
    const spaced = await owner(['deploy', 'spaced', '--daily', '5 ', '--max', ' 1', '--fund', ' 0.5', '--json']);
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(JSON.parse(spaced.stdout)).toMatchObject({
      policy: { dailyBudget: '5.00', maxPerPayment: '1.00' },
      funding: { status: 'funded' },
    });
    // --allow any deploys an agent that may pay any service.
    const open = await owner(['deploy', 'open-minded', '--allow', 'any', '--json']);
    expect(open.code, open.stderr).toBe(0);
    expect(JSON.parse(open.stdout).policy.allowedServices).toEqual([]);
    const budgetTypo = await owner(['policy', 'open-minded', '--budget', '1/day:demo-wether']);
    expect(budgetTypo.stderr).toMatch(
      /^coffer: --budget: "demo-wether" is not a registry service \(did you mean "demo-weather"\?\), so no payment is that service's; name a registry service id, or scope it to the recipient's address \(invalid_policy\)$/m,
    );
    const unknown = await owner(['allocate', 'nobody', '1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/\(agent_not_found\)$/m);
    // Another data dir, where no Coffer runs: said so, nothing guessed; a script tells it from a refusal.
    const none = await runCoffer(['status', '--data-dir', elsewhere]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/no running Coffer found in .*\(coffer_unreachable\)$/m);
    // A connection file left by a Coffer that is gone (killed): nothing answers at its address.
    const gone = mkdtempSync(join(tmpdir(), 'coffer-gone-'));
    try {
      const closed = createServer().listen(0, '127.0.0.1');
      await new Promise((resolve) => closed.once('listening', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      writeFileSync(join(gone, 'connection.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, owner: 'o', ownerKey: 'cof_own_x' }));
      const silent = await runCoffer(['status', '--data-dir', gone]);
      expect(silent.code).toBe(3);
      expect(silent.stderr).toMatch(/Coffer is not answering at .*\(coffer_unreachable\)$/m);
    } finally {
      rmSync(gone, { recursive: true, force: true });
    }
  });

  it('status as the owner: the treasury and each agent on each rail, the gas on Base, and what waits', async () => {
    await owner(['deploy', 'watcher']);
    expect((await owner(['allocate', 'watcher', '0.75', '--rail', 'base'])).code).toBe(0);
    const status = await owner(['status']);
    expect(status.code, status.stderr).toBe(0);
    const { treasury, agents } = JSON.parse((await owner(['status', '--json'])).stdout) as {
      treasury: DashboardTreasury;
      agents: AgentRow[];
    };
    // The agents' rows carry each rail's balance, as the dashboard's do: the table prints them.
    expect(agents.find((agent) => agent.agentId === 'watcher')?.balances).toEqual({ sol: '0.00', base: '0.75' });
    expect(status.stdout).toMatch(/^Coffer at http:\/\/127\.0\.0\.1:\d+, on the embedded sim chain/m);
    // Each rail on a line of its own: what the treasury holds there and its address there, aligned.
    const solana = `${treasury.balances.sol} USDC on Solana`;
    const base = `${treasury.balances.base} USDC on Base`;
    const width = Math.max(solana.length, base.length);
    expect(status.stdout).toContain(
      `  treasury  ${solana.padEnd(width)}  (${treasury.wallets.sol})\n            ${base.padEnd(width)}  (${treasury.wallets.base})\n`,
    );
    expect(status.stdout).toMatch(/^ {12}gas on Base: [\d.,]+ test ETH, about [\d,]+ moves at today's fee$/m);
    expect(status.stdout).toMatch(/^ {4}watcher +active +0\.00 USDC on Solana +0\.75 USDC on Base +0\.00 of 5\.00 in 24 h/m);
    expect(status.stdout).toMatch(/nothing waits for you/);
  });

  it("a held payment: the agent's terminal names the command that decides it; coffer approve pays it once", async () => {
    const asker = JSON.parse((await owner(['deploy', 'asker', '--fund', '1', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    const set = await owner(['policy', 'asker', '--ask-above', '0.005']);
    expect(set.code).toBe(0);
    // Said alike to the owner and to the agent's own terminal: the owner is who it asks.
    expect(set.stdout).toMatch(/^ {2}asks {6}the owner before payments above 0\.005 USDC$/m);
    const config = writeLinkedConfig(dataDir, join(dataDir, 'asker.json'), 'asker', asker);

    // The agent pays; its payment waits for the owner, and its terminal says how the owner decides.
    const paying = spawn(process.execPath, [CLI, 'pay', 'demo-weather', '0.01', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    // A held pay waits until its approval expires: a failed step below must not leave it running.
    onTestFinished(() => void paying.kill());
    let paid = '';
    paying.stdout!.on('data', (chunk) => (paid += chunk));
    const exited = new Promise<number | null>((resolve) => paying.once('exit', (exitCode) => resolve(exitCode)));
    const held = await new Promise<string>((resolve) => createInterface({ input: paying.stderr! }).once('line', resolve));
    const approvalId = /request (apr_[\w-]+)/.exec(held)?.[1];
    if (approvalId === undefined) throw new Error(`the pay did not wait for the owner: ${held}`);
    expect(held).toContain(`${shellCommand(['approve', approvalId])} (or ${shellCommand(['deny', approvalId])})`);

    const waiting = await owner(['approvals']);
    expect(waiting.stdout).toMatch(new RegExp(`^${approvalId} {2}asker: Pay 0\\.01 USDC on Solana to demo-weather`, 'm'));
    expect(waiting.stdout).toMatch(/why: 0\.01 USDC is above 0\.005 USDC/);
    // What it buys, as the agent said it.
    expect(waiting.stdout).toMatch(new RegExp(`^${approvalId} .*\n {2}for: coffer pay\n {2}why: `, 'm'));
    // Where its budgets stand before and after it, as the dashboard's card says (it counts once held).
    expect(waiting.stdout).toMatch(/\n {2}budget: 5\.00 USDC in any 24 hours \(daily budget\): 0\.00 → 0\.01 of 5\.00 USDC\n/);

    const approved = await owner(['approve', approvalId]);
    expect(approved.code, approved.stderr).toBe(0);
    // Said paid, with the payment, as the dashboard says it (helper 192: "carried out").
    expect(approved.stdout).toMatch(
      new RegExp(
        `^Approved ${approvalId}: Pay 0\\.01 USDC on Solana to demo-weather.*: paid \\(payment pay_[\\w-]+, (confirmed|pending on chain)\\)\\.$`,
        'm',
      ),
    );
    expect(await exited).toBe(0);
    expect(paid).toMatch(/^Paid 0\.01 USDC/);
    // Once: a second yes is refused, and nothing waits any more.
    const again = await owner(['approve', approvalId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/\(approval_decided\)$/m);
    expect((await owner(['approvals'])).stdout).toBe('Nothing waits for you.\n');
  });

  it('coffer deny: a held payment is never paid', async () => {
    const agentKey = /cof_agt_\w+/.exec((await owner(['deploy', 'denied', '--fund', '1'])).stdout)![0];
    await owner(['policy', 'denied', '--ask-above', '0.005']);
    const { readOwnerConnection } = await import('../../server/cli/owner-connection.js');
    const connection = readOwnerConnection(dataDir);
    const held = await fetch(`${connection.url}/v1/agents/denied/pay?owner=${connection.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'demo-weather', amount: '0.01' }),
    });
    expect(held.status).toBe(202);
    const { approvalId } = (await held.json()) as { approvalId: string };
    // Sent with no description: no empty "for:" line (helpers 177, 183).
    // Its words starting on line 2: that line is what it is for (helper 187).
    const worded = await fetch(`${connection.url}/v1/agents/denied/pay?owner=${connection.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'demo-weather', amount: '0.01', description: '\n  a forecast for Lisbon' }),
    });
    const wordedId = ((await worded.json()) as { approvalId: string }).approvalId;
    const asked = (await owner(['approvals'])).stdout;
    expect(asked).toMatch(new RegExp(`^${approvalId} {2}denied: Pay 0\\.01 USDC on Solana to demo-weather.*\n {2}why: `, 'm'));
    expect(asked).toMatch(new RegExp(`^${wordedId} .*\n {2}for: a forecast for Lisbon\n`, 'm'));
    await owner(['deny', wordedId]);
    const denied = await owner(['deny', approvalId]);
    expect(denied.stdout).toBe(`Denied ${approvalId}: Pay 0.01 USDC on Solana to demo-weather (93ug…Dnrx); nothing was carried out.\n`);
    const listed = JSON.parse((await owner(['approvals', '--all', '--json'])).stdout) as {
      approvals: { approvalId: string; status: string }[];
    };
    expect(listed.approvals.find((approval) => approval.approvalId === approvalId)?.status).toBe('denied');
    // The agent's history says why its payment failed.
    expect((await owner(['activity', 'denied'])).stdout).toMatch(
      / {2}0\.01 USDC {2}on Solana {2}Coffer demo weather {2}\(failed: denied by the owner\)$/m,
    );

    // Stopping an agent with a payment waiting says the stop withdrew it: nothing of it will be paid.
    const waiting = await fetch(`${connection.url}/v1/agents/denied/pay?owner=${connection.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'demo-weather', amount: '0.01', nonce: 'second' }),
    });
    expect(waiting.status).toBe(202);
    expect((await owner(['kill', 'denied'])).stdout).toBe(
      'Stopped denied: its payments are refused until the owner resumes it.\nWithdrew what it had asked you: 1 held payment (never paid).\n',
    );
  });

  it('coffer approve of a payment that can no longer be made says so on stderr, exit 1 (helper 177: it was on stdout)', async () => {
    const agentKey = /cof_agt_\w+/.exec((await owner(['deploy', 'emptied', '--fund', '1'])).stdout)![0];
    await owner(['policy', 'emptied', '--ask-above', '0.005']);
    const { readOwnerConnection } = await import('../../server/cli/owner-connection.js');
    const connection = readOwnerConnection(dataDir);
    const hold = async (nonce: string) => {
      const held = await fetch(`${connection.url}/v1/agents/emptied/pay?owner=${connection.owner}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service: 'demo-weather', amount: '0.01', nonce }),
      });
      expect(held.status).toBe(202);
      return ((await held.json()) as { approvalId: string }).approvalId;
    };
    const approvalId = await hold('first');
    const asJsonId = await hold('second');
    // Its wallet emptied while the payments wait: the yes cannot be carried out.
    expect((await owner(['return', 'emptied'])).code).toBe(0);
    const approved = await owner(['approve', approvalId]);
    expect({ code: approved.code, stdout: approved.stdout }).toEqual({ code: 1, stdout: '' });
    expect(approved.stderr).toMatch(
      new RegExp(`^coffer: approved ${approvalId}, but it could not be carried out: .*\\(insufficient_funds\\)\n$`),
    );
    // With --json too: the answer on stdout, and the failure's exit status (helper 178: it exited 0).
    const asJson = await owner(['approve', asJsonId, '--json']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ approvalId: asJsonId, status: 'failed', errorCode: 'insufficient_funds' });
    // Asked again, it says what became of it in words (helper 180: "this request is already failed").
    const again = await owner(['approve', approvalId]);
    expect(again.stderr).toBe('coffer: this request already failed (approval_decided)\n');
  });

  it('links a terminal by the URL its `coffer link` printed, once its code is typed; what the link prints runs as printed', async () => {
    const config = join(dataDir, 'linked', 'agent.json');
    const linking = spawn(process.execPath, [CLI, 'link', '--config', config, '--data-dir', dataDir], {
      env: { ...process.env, COFFER_NO_BROWSER: '1', COFFER_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    linking.stdout!.on('data', (chunk) => (printed += chunk));
    const exited = new Promise<number | null>((resolve) => linking.once('exit', (exitCode) => resolve(exitCode)));
    while (!/the code: +\S+/.test(printed)) await new Promise((resolve) => setTimeout(resolve, 50));
    const linkUrl = /(http:\/\/\S+\/link\?token=\S+)/.exec(printed)![1]!;
    const code = /the code: +(\S+)/.exec(printed)![1]!;

    const listed = await owner(['approvals']);
    expect(listed.stdout).toContain(`code ${code}`);
    // Without the code, nothing is linked: the request's code is said, to compare with the terminal's.
    const unchecked = await owner(['approve', linkUrl]);
    // Said on stderr, as a command that wants another word (helper 177: it was on stdout).
    expect({ code: unchecked.code, stdout: unchecked.stdout }).toEqual({ code: 2, stdout: '' });
    expect(unchecked.stderr).toContain(`code is ${code}: compare it with the code its terminal shows`);
    // A usage error as every exit 2 is: the command's usage follows (helper 178).
    expect(unchecked.stderr).toMatch(/\n\nusage:\n/);
    // The command that denies it, typed as it runs, this very link named.
    const deny = shellCommand(['deny', linkUrl, '--data-dir', dataDir]);
    expect(unchecked.stderr).toContain(`not the same: ${deny}\n`);
    const wrong = await owner(['approve', linkUrl, '--code', 'WRONG-CODE']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`nothing was linked; ${deny} if you did not start it (link_code_mismatch)\n`);
    // An agent that exists already is not linked by a link (it makes a new one): said how it is.
    await owner(['deploy', 'existing-laptop']);
    const existing = await owner(['approve', linkUrl, '--code', code, '--agent', 'existing-laptop']);
    expect(existing.code).toBe(1);
    expect(existing.stderr).toContain(
      `coffer: an agent "existing-laptop" already exists for this owner: a link makes a new agent; to have that terminal act as this one, coffer key existing-laptop --config FILE writes a new key to its config FILE (the agent's older keys stop working) (agent_exists)`,
    );
    const linked = await owner(['approve', linkUrl, '--code', code, '--agent', 'linked-laptop', '--fund', '1']);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout).toMatch(
      new RegExp(`^Linked the terminal that showed code ${code} as agent linked-laptop, funded with 1\\.00 USDC`),
    );

    expect(await exited).toBe(0);
    // Issue 47, point 2: the next steps carry the --config they were given, and the last words say
    // what the owner's approval did (funded it), not that the owner has yet to.
    expect(printed).toMatch(new RegExp(`status --config ${config.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    const mcp = JSON.parse(/(\{"mcpServers".*\})/.exec(printed)![1]!) as { mcpServers: { coffer: { args: string[] } } };
    expect(mcp.mcpServers.coffer.args.slice(-3)).toEqual(['mcp', '--config', config]);
    // Both rails where Base is open (the approval funds Solana; the Base account is there all the same).
    expect(printed).toMatch(/^Its wallet holds 1\.00 USDC on Solana and 0\.00 USDC on Base\.$/m);
    expect(printed).not.toMatch(/until then payments are refused/);
    const status = await runCoffer(['status', '--config', config]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Agent linked-laptop at /);
  });

  it("a day typed is the day shown: coffer policy and the agent's coffer status say the end and what waits for the owner", async () => {
    const dayBot = JSON.parse((await owner(['deploy', 'day-bot', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string };
    };
    // Issue 47, point 3: "--expires 2026-12-31" was shown as "ends Jan 1, 2027, 12:00 AM".
    const set = await owner(['policy', 'day-bot', '--expires', '2099-12-31', '--ask-above', '0.05']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^ {2}ends {6}at the end of 2099-12-31: every payment is refused after it$/m);
    const read = JSON.parse((await runCoffer(['status', '--data-dir', dataDir, '--json'])).stdout) as { agents: { agentId: string }[] };
    expect(read.agents.map((agent) => agent.agentId)).toContain('day-bot');

    const config = writeLinkedConfig(dataDir, join(dataDir, 'day-bot.json'), 'day-bot', dayBot);
    const connection = readConnection(dataDir);
    const status = await runCoffer(['status', '--config', config]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^ {2}ends {5}at the end of 2099-12-31: every payment is refused after it$/m);
    expect(status.stdout).toMatch(/^ {2}asks {5}the owner before payments above 0\.05 USDC$/m);

    // A later end is a loosening: it waits for the owner, who reads both ends as days, as typed.
    const asked = await fetch(`${connection.url}/v1/agents/day-bot/policy?owner=${connection.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dayBot.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresAt: '2100-06-30' }),
    });
    expect(asked.status).toBe(202);
    const { approvalId } = (await asked.json()) as { approvalId: string };
    const waiting = await owner(['approvals']);
    expect(waiting.stdout).toContain(`${approvalId}  day-bot: Change its policy: end: the end of 2099-12-31 → the end of 2100-06-30\n`);
    // Tried on the agent's last 30 days as the dashboard's card tries it (helper 192: the CLI showed none).
    expect(waiting.stdout).toContain(`  what-if: The agent made no payments in the last 30 days: nothing to try this change on.\n`);
    const denied = await owner(['deny', approvalId]);
    // What it would have changed, from what it was: as `coffer approvals` showed it.
    expect(denied.stdout).toBe(
      `Denied ${approvalId}: Change its policy: end: the end of 2099-12-31 → the end of 2100-06-30; nothing was carried out.\n`,
    );
  });
});

/** A data dir run with COFFER_BASE_RPC=off: its wallets keep their Base accounts, whose balances no one can read. */
describe("the owner's and an agent's status with the Base rail off", () => {
  const dataDir = tempDataDir();
  let serve: ServeProcess;
  const owner = (args: string[]) => runCoffer([...args, '--data-dir', dataDir]);

  beforeAll(async () => {
    serve = await spawnServe(dataDir, { COFFER_BASE_RPC: 'off' });
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("says nothing of Base to the owner where the rail is off; an agent's status says unknown and why", async () => {
    // Only the server's banner says the rail is off, and where that is set.
    await vi.waitFor(() => expect(serve.lines).toContain('Base rail: off (COFFER_BASE_RPC)'));
    const deployed = JSON.parse((await owner(['deploy', 'solana-only', '--fund', '1', '--json'])).stdout) as {
      apiKey: string;
      agent: { walletAddress: string; wallets: { base: string } };
    };
    const status = await owner(['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^ {2}treasury {2}[\d.]+ USDC on Solana {2}\(\w+\)$/m);
    expect(status.stdout).not.toMatch(/Base/);
    expect(status.stdout).toMatch(/^ {4}solana-only +active +1\.00 USDC on Solana +0\.00 of 5\.00 in 24 h/m);

    const config = writeLinkedConfig(dataDir, join(dataDir, 'solana-only.json'), 'solana-only', deployed);
    const agent = await runCoffer(['status', '--config', config]);
    expect(agent.code, agent.stderr).toBe(0);
    // Its Base account is filed, but offered nowhere: USDC sent there would reach no rail this Coffer reads.
    expect(agent.stdout).toContain(`  balance  1.00 USDC on Solana  (${deployed.agent.walletAddress})\n  spent`);
    expect(agent.stdout).not.toContain(deployed.agent.wallets.base);
    expect(agent.stdout).not.toMatch(/Base/);
  });

  it('deploy names no Base account, nor how to fund one, where the rail is off', async () => {
    const said = await owner(['deploy', 'solana-words']);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toMatch(/^Deployed solana-words \(wallet \w+\): /);
    expect(said.stdout).toContain(
      `Its wallet is empty: ${shellCommand(['allocate', 'solana-words', 'AMOUNT', '--data-dir', dataDir])} funds it.\n`,
    );
    expect(said.stdout).not.toMatch(/Base|0x[0-9a-fA-F]{40}/);
  });
});
