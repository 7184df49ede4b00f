import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
});
