import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';
import { userShellEnv } from '../helpers/user-shell.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';

/**
 * Issue 47: README's "Five minutes with Coffer", steps 3 to 10, run as a person runs them. Each `sh`
 * block is read from README.md and typed into one bash session (its variables and its background
 * job carry from block to block), in this checkout, with the user's PATH and a HOME of their own,
 * beside a running `coffer serve` whose data dir is that HOME's ~/.coffer (step 1's `npm start` is
 * npm-start-stop.test.ts's). Two changes to the text, of place and not of meaning: the demo API's
 * port 7403 becomes a free one (a test must not need a fixed port), and after step 4 the session
 * waits, as a person reading would, until the demo API listens.
 */

const root = packagePath();

/** The `sh` blocks of the README's walkthrough, in order. */
function walkthroughBlocks(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Five minutes with Coffer');
  const end = readme.indexOf('\n## ', start + 1);
  expect(start, 'the README has its walkthrough').toBeGreaterThan(0);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** One terminal: a bash session that blocks are typed into; each answers what it printed. */
function terminal(cwd: string, env: NodeJS.ProcessEnv) {
  // Its own process group: the demo API it starts in the background ends with it.
  const bash: ChildProcess = spawn('bash', ['--norc', '--noprofile'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  bash.stdout!.on('data', (chunk) => (stdout += chunk));
  bash.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => bash.once('exit', resolve));
  // A command that fails ends the session, as a copy-paste into `bash -e` would show it. Job control
  // on, as in a terminal: a background job is its own process group, so `kill %1` ends all of it
  // (npx, its shell and coffer), not npx alone.
  bash.stdin!.write('set -meo pipefail\n');
  let typed = 0;
  return {
    async type(block: string, ms = 120_000): Promise<{ out: string; err: string }> {
      const marker = `__block_${(typed += 1)}_done__`;
      const [outFrom, errFrom] = [stdout.length, stderr.length];
      bash.stdin!.write(`${block}\necho ${marker}\n`);
      for (let waited = 0; !stdout.includes(marker); waited += 100) {
        if (bash.exitCode !== null || waited > ms) {
          throw new Error(
            `block ${typed} did not finish (${bash.exitCode === null ? 'still running' : `exit ${bash.exitCode}`}):\n${block}\n${stdout.slice(outFrom)}\n${stderr.slice(errFrom)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return { out: stdout.slice(outFrom, stdout.indexOf(marker)), err: stderr.slice(errFrom) };
    },
    async close() {
      if (bash.exitCode === null) {
        try {
          process.kill(-bash.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      await exited;
    },
  };
}

describe.skipIf(process.platform === 'win32')("the README's walkthrough, as printed", () => {
  const home = mkdtempSync(join(tmpdir(), 'coffer-readme-'));
  const dataDir = join(home, '.coffer');
  let serve: ServeProcess;
  let shell: ReturnType<typeof terminal>;

  beforeAll(async () => {
    mkdirSync(dataDir, { mode: 0o700 });
    serve = await spawnServe(dataDir);
    shell = terminal(root, { ...userShellEnv(home), npm_config_offline: 'true', npm_config_update_notifier: 'false' });
  });
  afterAll(async () => {
    await shell?.close();
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    rmSync(home, { recursive: true, force: true });
  });

  it('deploys, pays through MCP and curl, waits for a yes, stops and resumes: each block runs and says what the README says', async () => {
    const blocks = walkthroughBlocks();
    expect(blocks).toHaveLength(8);
    const port = String(await freePort());
    const [deploy, demoApi, mcp, curl, onBase, askFirst, brake, stop] = blocks.map((block) =>
      block.replaceAll('127.0.0.1:7403', `127.0.0.1:${port}`).replace('npx coffer demo-api &', `npx coffer demo-api --port ${port} &`),
    );

    // 3. The deploy answer, the agent's key and the connection file.
    expect((await shell.type(deploy!)).out.trim()).toBe('"funded"');

    // 4. The demo API, in the background; a person reads on while it starts.
    await shell.type(demoApi!);
    for (let tries = 0; ; tries += 1) {
      const answer = await fetch(`http://127.0.0.1:${port}/weather?city=Lisbon`).catch(() => null);
      if (answer?.status === 402) break;
      if (tries > 300) throw new Error('the demo API did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // 5. The MCP Inspector as the host: fetch_paid answers the weather, paid.
    const viaMcp = (await shell.type(mcp!)).out;
    expect(viaMcp).toMatch(/"protocol": "coffer"/);
    expect(viaMcp).toMatch(/"status": "confirmed"/);
    expect(viaMcp).toMatch(/Lisbon/);

    // 6. By hand: the 402, the payment, the call again with the receipt.
    const byHand = (await shell.type(curl!)).out;
    expect(byHand).toMatch(/"code":"payment_required"/);
    expect(byHand).toMatch(/"paid":\{"amount":"0.01"/);

    // 7. On Base: the owner funds the agent's Base account, the agent pays an EVM address.
    const [funded, paidOnBase] = (await shell.type(onBase!)).out.trim().split('\n');
    expect(JSON.parse(funded!)).toEqual({ rail: 'base', amount: '1.00', balance: '1.00' });
    expect(JSON.parse(paidOnBase!)).toEqual({
      rail: 'base',
      amount: '0.01',
      status: 'confirmed',
      txSignature: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    // 8. Above 0.005 the payment waits; coffer approvals lists it; coffer approve pays it once.
    const asked = (await shell.type(askFirst!)).out;
    const approvalId = /^(apr_\S+) {2}researcher: Pay 0\.01 USDC on Solana to demo-weather/m.exec(asked)?.[1];
    expect(approvalId, asked).toBeDefined();
    expect(asked).toMatch(new RegExp(`^Approved ${approvalId}: Pay 0\\.01 USDC on Solana to demo-weather.*: paid \\(payment pay_`, 'm'));

    // 9. The brake: stopped, refused, all stopped, all resumed.
    const braked = (await shell.type(brake!)).out;
    expect(braked).toMatch(/^Stopped researcher/m);
    expect(braked).toMatch(/"code":"agent_suspended"/);
    expect(braked).toMatch(/^Resumed 1 agent: researcher/m);

    // Three payments of 0.01 from the 2.00 it was funded with, each once.
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string; ownerKey: string };
    const balance = await fetch(`${serve.url}/v1/agents/researcher/balance?owner=${owner}`, {
      headers: { authorization: `Bearer ${ownerKey}` },
    });
    // And one of 0.01 on Base, from the 1.00 moved there.
    expect(((await balance.json()) as { balances: object }).balances).toEqual({ sol: '1.97', base: '0.99' });

    // 10. The demo API stopped, the deploy answer (with the agent's key) gone.
    const workDir = (await shell.type('echo "$W"')).out.trim();
    expect(existsSync(workDir)).toBe(true);
    await shell.type(stop!);
    expect(existsSync(workDir)).toBe(false);
    for (
      let tries = 0;
      await fetch(`http://127.0.0.1:${port}/weather`).then(
        () => true,
        () => false,
      );
      tries += 1
    ) {
      if (tries > 100) throw new Error('the demo API still answers after kill %1');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 300_000);
});
