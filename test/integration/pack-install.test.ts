import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AsyncEntry, findCredentialsAsync } from '@napi-rs/keyring';
import { KEYCHAIN_SERVICE } from '../../server/keys/secret-backend.js';
import { json, spawnServe } from '../helpers/serve-process.js';
import { packagePath } from '../../server/boot/package-files.js';

/**
 * The package as a user installs it: `npm pack`, then `npm install -g` of the tarball into a
 * temporary prefix (from the registry, as on a machine with only Node), then the installed `coffer`.
 * Packed without its scripts: the build `npm test` made is what ships (a rebuild here would rewrite
 * dist/ under the other test files running beside this one).
 */
describe('npm pack, npm install -g, coffer', () => {
  const work = mkdtempSync(join(tmpdir(), 'coffer-pack-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const version = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

  it('installs with only Node and runs from compiled JavaScript: --version, serve to health with its keys in the OS keychain, the dashboard, the MCP config naming the installed coffer', async () => {
    const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: packagePath(), encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = join(work, `coffer-${version}.tgz`);
    expect(existsSync(tarball)).toBe(true);

    const prefix = join(work, 'prefix');
    const installed = spawnSync('npm', ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund'], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    });
    expect(installed.status, installed.stderr).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'coffer');
    const bin = join(prefix, 'bin', 'coffer');

    // What shipped: the build, the dashboard, the catalog; no TypeScript, no dev dependencies.
    expect(existsSync(join(pkg, 'dist', 'app', 'server', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'renderer', 'dist', 'index.html'))).toBe(true);
    expect(readdirSync(join(pkg, 'server'), { recursive: true }).filter((file) => String(file).endsWith('.ts'))).toEqual([]);
    for (const dev of ['typescript', 'tsx', 'vite', 'electron', 'vitest', 'react'])
      expect(existsSync(join(pkg, 'node_modules', dev)), dev).toBe(false);

    const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe(version);

    // The keychain binding came from the registry with the package (it was in no node_modules before,
    // and nothing was compiled): the installed serve keeps its keys in the real Secret Service.
    const dataDir = join(work, 'data');
    const path = `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`;
    const serve = await spawnServe(dataDir, { PATH: path, COFFER_KEYSTORE: 'keychain' }, 'serve', bin);
    const stored = async () => (await findCredentialsAsync(KEYCHAIN_SERVICE)).map((c) => c.account);
    const wallets: string[] = [];
    try {
      await vi.waitFor(() => expect(serve.lines).toContain(`Data dir: ${dataDir}; keys in the OS keychain`), { timeout: 10_000 });
      expect((await fetch(`${serve.url}/v1/health`)).status).toBe(200);
      const page = await fetch(`${serve.url}/`);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toMatch(/<div id="root">/);
      const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
      wallets.push(owner);
      const deployed = await json(
        fetch(`${serve.url}/v1/agents/deploy?owner=${owner}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agentId: 'installed', dailyBudget: '1', maxPerPayment: '0.1' }),
        }),
      );
      // The installed `coffer` is on PATH: the MCP config names it, not a path into this install.
      expect(deployed.mcpConfig).toMatchObject({ command: 'coffer', args: ['mcp'] });
      wallets.push(deployed.agent.walletAddress);
      expect(await stored()).toEqual(
        expect.arrayContaining([`wallet:${owner}`, `owner-key:${owner}`, `wallet:${deployed.agent.walletAddress}`]),
      );
      expect(existsSync(join(dataDir, 'keys'))).toBe(false);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      // Leave the test keyring as it was: only this install's entries, which name its wallets.
      for (const account of await stored())
        if (wallets.some((wallet) => account.endsWith(wallet))) await new AsyncEntry(KEYCHAIN_SERVICE, account).deletePassword();
    }
  }, 600_000);
});
