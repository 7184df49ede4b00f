import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileApp } from '../helpers/compiled-app.js';
import { tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';
import { ownerApi, readConnection } from '../helpers/owner-api.js';
import { packagePath } from '../../server/package/package-files.js';

/**
 * The desktop app and `npm start` run the compiled output (dist/app), not TypeScript: no compiler and
 * no loader hook runs where the owner lives (in a packaged app, tsx's esbuild could not even be
 * spawned from inside the archive). Here it runs under plain Node, with no loader registered.
 */
let APP = '';
let CLI = '';

describe('the compiled app', () => {
  let compiled: ReturnType<typeof compileApp>;
  beforeAll(() => {
    compiled = compileApp('compiled-app');
    APP = compiled.dir;
    CLI = join(APP, 'server', 'cli', 'main.js');
  });
  afterAll(() => compiled.remove());

  it('holds JavaScript for every source file of the server and the desktop app, and no TypeScript', () => {
    const files = readdirSync(APP, { recursive: true }).map(String);
    expect(files.filter((file) => file.endsWith('.ts'))).toEqual([]);
    for (const source of [
      'server/boot/open-coffer',
      'server/cli/main',
      'electron/main',
      'server/boot/desktop-launcher',
      // Their own entries: what-ifs replay on a worker thread (server/boot/policy-replays.ts), EVM
      // signatures are made on another (server/keys/evm-signing-thread.ts).
      'server/boot/policy-replay-worker',
      'server/keys/evm-signing-worker',
    ]) {
      expect(existsSync(join(APP, `${source}.js`)), source).toBe(true);
    }
    // Nothing in it asks for a compiler at run time.
    for (const file of files.filter((name) => name.endsWith('.js') || name.endsWith('.mjs'))) {
      expect(readFileSync(join(APP, file), 'utf8'), file).not.toMatch(/from ['"]tsx|['"]tsx\/esm|esbuild/);
    }
  });

  it('runs under plain Node: --version, and serve to health with the dashboard, a what-if and a Base payment on their workers', async () => {
    const version = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(packagePath('package.json'), 'utf8')).version);
    const dataDir = tempDataDir();
    const serve = await spawnServe(dataDir, {}, 'serve', CLI);
    try {
      expect((await json(fetch(`${serve.url}/v1/health`))).ok).toBe(true);
      const page = await fetch(`${serve.url}/`);
      expect(await page.text()).toMatch(/<div id="root">/);
      const search = await json(fetch(`${serve.url}/v1/services/search?q=weather`));
      expect(search.total).toBeGreaterThan(0);
      const { owner } = readConnection(dataDir);
      const post = (path: string, body: unknown) => ownerApi(dataDir).json('POST', path, body);
      const { apiKey: agentKey } = await post('/v1/agents/deploy', { agentId: 'tried', dailyBudget: '10', maxPerPayment: '1' });
      expect(await post('/v1/agents/tried/policy/what-if', { maxPerPayment: '0.5' })).toMatchObject({ agentId: 'tried', payments: 0 });
      await post('/v1/agents/tried/allocate', { amount: '2', rail: 'base' });
      const paid = await fetch(`${serve.url}/v1/agents/tried/pay?owner=${owner}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service: 'compiled-api', amount: '0.5', recipient: '0x52908400098527886E0F7030069857D2E4169EE7' }),
      });
      expect(await paid.json()).toMatchObject({ status: 'confirmed', rail: 'base' });
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
    // The workers started from the compiled JavaScript, with no loader: neither fell back to the serving thread.
    expect(serve.stderr.join('\n')).not.toMatch(/worker could not start|on the serving thread/);
  });
});
