import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';

describe('coffer serve', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the URL then a one-time login URL, writes connection.json 0600, stops gracefully and keeps state', async () => {
    const first = await spawnServe(dataDir);
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
    expect(health).toEqual({ ok: true, network: 'sim', version: expect.any(String), usdcMint: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) });

    const owner = `owner=${connection.owner}`;
    const auth = { authorization: `Bearer ${connection.ownerKey}` };
    const deposits = await json(fetch(`${first.url}/v1/treasury/deposits?${owner}`, { headers: auth }));
    expect(deposits.deposits).toHaveLength(1);
    expect(deposits.deposits[0]).toMatchObject({ amount: '1000.00', currency: 'USDC' });

    // The login URL trades its token for an HttpOnly, SameSite=Strict session cookie, once.
    const login = await fetch(first.loginUrl, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/coffer_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect((await fetch(first.loginUrl, { redirect: 'manual' })).status).toBe(410);
    const session = cookie.split(';')[0]!;
    const viaCookie = await fetch(`${first.url}/v1/dashboard?${owner}`, { headers: { cookie: session } });
    expect(viaCookie.status).toBe(200);
    // Cookie-authenticated writes need the CSRF header; the same write with it succeeds.
    const deploy = (headers: Record<string, string>) =>
      fetch(`${first.url}/v1/agents/deploy?${owner}`, {
        method: 'POST',
        headers: { cookie: session, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ agentId: 'kept', dailyBudget: '5', maxPerPayment: '1' }),
      });
    expect((await deploy({})).status).toBe(401);
    expect((await deploy({ 'x-requested-with': 'coffer' })).status).toBe(200);
    expect(
      (await fetch(`${first.url}/v1/agents/kept/allocate?${owner}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '3.5' }),
      })).status,
    ).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(file)).toBe(false);

    // Same data dir: same owner, same balances, no second starting deposit.
    const second = await spawnServe(dataDir);
    try {
      const again = JSON.parse(readFileSync(file, 'utf8'));
      expect(again.owner).toBe(connection.owner);
      expect(again.ownerKey).toBe(connection.ownerKey);
      const headers = { authorization: `Bearer ${again.ownerKey}` };
      const balance = await json(fetch(`${second.url}/v1/agents/kept/balance?${owner}`, { headers }));
      expect(balance.balance).toBe('3.50');
      const dashboard = await json(fetch(`${second.url}/v1/dashboard?${owner}`, { headers }));
      expect(dashboard.treasury.amount).toBe('996500000');
      const depositsAgain = await json(fetch(`${second.url}/v1/treasury/deposits?${owner}`, { headers }));
      expect(depositsAgain.deposits).toHaveLength(1);
    } finally {
      second.child.kill('SIGINT');
      expect((await second.exited).code).toBe(0);
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
});
