import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';

/**
 * The dashboard `npm run build` ships is React's production build, whatever NODE_ENV the shell
 * has. Vite takes NODE_ENV from the environment, so a terminal with NODE_ENV=development (or
 * Vitest's NODE_ENV=test, through `npx coffer` building the checkout) built an 820 KB development
 * dashboard, and the Playwright specs then tested that one.
 */
describe('the dashboard build', () => {
  const out = mkdtempSync(join(tmpdir(), 'coffer-dashboard-build-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const vite = packagePath('node_modules', 'vite', 'bin', 'vite.js');

  it.each(['development', 'test'])(
    'is the production build under NODE_ENV=%s',
    (nodeEnv) => {
      const dir = join(out, nodeEnv);
      const built = spawnSync(
        process.execPath,
        [vite, 'build', '--config', packagePath('renderer', 'vite.config.ts'), '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'],
        { cwd: packagePath(), encoding: 'utf8', env: { ...process.env, NODE_ENV: nodeEnv } },
      );
      expect(built.status, built.stderr).toBe(0);
      const scripts = readdirSync(join(dir, 'assets')).filter((file) => file.endsWith('.js'));
      expect(scripts.length).toBeGreaterThan(0);
      const bundle = scripts.map((file) => readFileSync(join(dir, 'assets', file), 'utf8')).join('\n');
      // React's production build says its errors by number; its development build makes stacks for its warnings.
      expect(bundle.includes('Minified React error'), "React's production build").toBe(true);
      expect(bundle.includes('react-stack-top-frame'), "React's development build").toBe(false);
    },
    120_000,
  );

  it('is swapped in whole: renderer/dist keeps a dashboard to serve while it is rebuilt', async () => {
    // `npx coffer` in the checkout rebuilds it (its `prepare`) while other Coffers serve from it.
    const index = packagePath('renderer', 'dist', 'index.html');
    const building = spawn(process.execPath, [packagePath('build', 'scripts', 'build-dashboard.mjs'), '--quiet'], {
      cwd: packagePath(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    building.stderr!.on('data', (chunk) => (said += chunk));
    const exited = new Promise<number | null>((resolve) => building.once('exit', resolve));
    let done = false;
    void exited.then(() => (done = true));
    let looks = 0;
    let missing = 0;
    while (!done) {
      looks += 1;
      if (!existsSync(index)) missing += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await exited, said).toBe(0);
    expect(looks).toBeGreaterThan(100);
    expect(missing).toBe(0);
    expect(readFileSync(index, 'utf8')).toMatch(/<script type="module"/);
    // Nothing of the build is left beside it.
    expect(readdirSync(packagePath('dist')).filter((name) => name.startsWith('dashboard-'))).toEqual([]);
  }, 120_000);
});
