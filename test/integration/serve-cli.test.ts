import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { spawn } from 'node:child_process';
import { CLI, json, spawnServe } from '../helpers/serve-process.js';
import { endedWithTest } from '../helpers/ended-with-test.js';

describe('coffer serve', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the URL then a one-time login URL, writes connection.json 0600, stops gracefully and keeps state', async () => {
    const first = endedWithTest(await spawnServe(dataDir));
    expect(first.lines[0]).toMatch(/^Coffer .* listening on http:\/\/127\.0\.0\.1:\d+ \(network: sim\)$/);
    expect(first.lines[1]).toMatch(/login/i);

    const file = join(dataDir, 'connection.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const connection = JSON.parse(readFileSync(file, 'utf8'));
    expect(connection).toEqual({
      url: first.url,
      owner: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
      ownerKey: expect.stringMatching(/^cof_own_[1-9A-HJ-NP-Za-km-z]{40,}$/),
      network: 'sim',
      pid: first.child.pid,
    });
    expect(statSync(join(dataDir, 'coffer.db')).mode & 0o777).toBe(0o600);

    const health = await json(fetch(`${first.url}/v1/health`));
    expect(health).toEqual({
      ok: true,
      network: 'sim',
      version: expect.any(String),
      usdcMint: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
      base: { network: 'sim', chainId: 790_526, usdc: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
    });

    const owner = `owner=${connection.owner}`;
    const auth = { authorization: `Bearer ${connection.ownerKey}` };
    // The banner also says where the treasury takes USDC on Base (a newcomer learnt it only from status).
    const { treasury } = await json(fetch(`${first.url}/v1/dashboard?${owner}`, { headers: auth }));
    await vi.waitFor(() => expect(first.lines.some((line) => line.startsWith('Connection file:'))).toBe(true));
    // A new sim treasury says the test money it starts with on each rail, and that it is no real money.
    expect(first.lines).toContain(`Treasury (owner): ${connection.owner} (new: 1000.00 test USDC)`);
    expect(first.lines).toContain(`Treasury on Base (sim, chain 790526): ${treasury.wallets.base} (new: 1000.00 test USDC)`);
    const deposits = await json(fetch(`${first.url}/v1/treasury/deposits?${owner}`, { headers: auth }));
    // The sim treasury's test money, on each rail.
    expect(deposits.deposits.map((deposit: { rail: string }) => deposit.rail).sort()).toEqual(['base', 'sol']);
    for (const deposit of deposits.deposits) expect(deposit).toMatchObject({ amount: '1000.00', currency: 'USDC', source: 'faucet' });

    // The login URL is the dashboard page (opening it spends nothing); the page trades its token for a
    // session token, once, and no cookie is ever set.
    const login = await fetch(first.loginUrl, { redirect: 'manual' });
    expect(login.status).toBe(200);
    expect(login.headers.get('set-cookie')).toBeNull();
    expect(login.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await login.text()).toMatch(/<div id="root">/);
    const signIn = () =>
      fetch(`${first.url}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ loginToken: new URL(first.loginUrl).searchParams.get('token') }),
      });
    const signedIn = await signIn();
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('set-cookie')).toBeNull();
    const { sessionToken } = await json(signedIn);
    expect(sessionToken).toMatch(/^cof_ses_/);
    const again = await signIn();
    expect(again.status).toBe(410);
    expect((await json(again)).code).toBe('link_used');
    const session = { authorization: `Bearer ${sessionToken}` };
    expect((await fetch(`${first.url}/v1/dashboard?${owner}`, { headers: session })).status).toBe(200);
    const deploy = await fetch(`${first.url}/v1/agents/deploy?${owner}`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'kept', dailyBudget: '5', maxPerPayment: '1' }),
    });
    expect(deploy.status).toBe(200);
    expect(
      (
        await fetch(`${first.url}/v1/agents/kept/allocate?${owner}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: '3.5' }),
        })
      ).status,
    ).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(file)).toBe(false);

    // Same data dir: same owner, same balances, no second starting deposit.
    const second = endedWithTest(await spawnServe(dataDir));
    try {
      // The browser that signed in stays signed in across the restart; the used link stays used.
      expect((await fetch(`${second.url}/v1/dashboard?${owner}`, { headers: session })).status).toBe(200);
      const again = JSON.parse(readFileSync(file, 'utf8'));
      expect(again.owner).toBe(connection.owner);
      expect(again.ownerKey).toBe(connection.ownerKey);
      const headers = { authorization: `Bearer ${again.ownerKey}` };
      const balance = await json(fetch(`${second.url}/v1/agents/kept/balance?${owner}`, { headers }));
      expect(balance.balance).toBe('3.50');
      const dashboard = await json(fetch(`${second.url}/v1/dashboard?${owner}`, { headers }));
      expect(dashboard.treasury.amount).toBe('996500000');
      const depositsAgain = await json(fetch(`${second.url}/v1/treasury/deposits?${owner}`, { headers }));
      expect(depositsAgain.deposits).toHaveLength(2);
      // Opened again, the treasury is neither new nor said to hold what it started with.
      await vi.waitFor(() => expect(second.lines.some((line) => line.startsWith('Connection file:'))).toBe(true));
      expect(second.lines).toContain(`Treasury (owner): ${connection.owner}`);
      expect(second.lines).toContain(`Treasury on Base (sim, chain 790526): ${treasury.wallets.base}`);
    } finally {
      second.child.kill('SIGINT');
      expect((await second.exited).code).toBe(0);
    }
  });

  it('a closed terminal (SIGHUP) stops it as gracefully as Ctrl-C: in-flight requests finish, the connection file goes, exit 0', async () => {
    const served = endedWithTest(await spawnServe(dataDir));
    served.child.kill('SIGHUP');
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr.join('')).toMatch(/SIGHUP: finishing in-flight requests, then stopping/);
    expect(existsSync(join(dataDir, 'connection.json'))).toBe(false);
  });

  it("stops at once though an agent waits on a request's decision (a long poll of up to 60 s): its wait holds no process up", async () => {
    const dir = tempDataDir();
    try {
      const served = endedWithTest(await spawnServe(dir));
      const { ownerKey, owner } = JSON.parse(readFileSync(join(dir, 'connection.json'), 'utf8'));
      const asOwner = { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' };
      const deployed = await json(
        fetch(`${served.url}/v1/agents/deploy?owner=${owner}`, {
          method: 'POST',
          headers: asOwner,
          body: JSON.stringify({ agentId: 'asker', dailyBudget: '5', maxPerPayment: '1' }),
        }),
      );
      const asAgent = { authorization: `Bearer ${deployed.apiKey}`, 'content-type': 'application/json' };
      // A loosening waits for the owner (202), and the agent waits on its decision.
      const asked = await fetch(`${served.url}/v1/agents/asker/policy?owner=${owner}`, {
        method: 'POST',
        headers: asAgent,
        body: JSON.stringify({ dailyBudget: '500' }),
      });
      expect(asked.status).toBe(202);
      const { approvalId } = await asked.json();
      const waiting = fetch(`${served.url}/v1/approvals/${approvalId}?owner=${owner}&wait=60`, { headers: asAgent }).then(
        (answer) => answer.json(),
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      served.child.kill('SIGTERM');
      // Its process ends with the server, well before the wait would: not 60 s on.
      const ended = await Promise.race([served.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000))]);
      expect(ended).toEqual({ code: 0, signal: null });
      // The wait is answered as Coffer stops, with the request as it stands (its connection not cut 15 s on).
      expect(await waiting).toMatchObject({ approvalId, status: 'pending' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a data dir of another network, with a clear message', async () => {
    const dir = tempDataDir();
    try {
      const sim = await spawnServe(dir);
      sim.child.kill('SIGTERM');
      await sim.exited;
      await expect(spawnServe(dir, { COFFER_NETWORK: 'devnet' })).rejects.toThrow(/holds a sim treasury/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops gracefully when the reader of its stdout goes away (coffer serve | head -1): quiet, status 141', async () => {
    const dir = tempDataDir();
    try {
      const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dir, '--port', '0'], {
        env: { ...process.env, COFFER_KEYSTORE: 'file' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ code, stderr }).toEqual({
        code: 141,
        stderr: expect.stringMatching(/finishing in-flight requests, then stopping\nstopped\n$/),
      });
      expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
      // Stopped as a signal stops it: the connection file is gone, the data dir opens again.
      expect(existsSync(join(dir, 'connection.json'))).toBe(false);
      const again = await spawnServe(dir);
      again.child.kill('SIGTERM');
      expect((await again.exited).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
