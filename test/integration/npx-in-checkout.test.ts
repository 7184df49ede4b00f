import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';

/**
 * The README's `npx coffer …` in the checkout, with an npm cache that has not seen it (a person's
 * first, the README walkthrough test's every time): npx installs the checkout into its cache, and npm
 * runs the checkout's `prepare` then. A full `npm run build` there swapped dist/app and renderer/dist
 * under every Coffer running from them (`npm start` in the other terminal; the other tests' `coffer`
 * commands: one loading its modules in the moment between the swap's two renames stopped with
 * ENOENT on dist/app/server/cli/commands, a CI failure). A build as new as its sources is left as
 * it is.
 */
describe('npx coffer in the checkout', () => {
  const cache = mkdtempSync(join(tmpdir(), 'coffer-npx-cache-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  const builds = {
    app: packagePath('dist', 'app'),
    appEntry: packagePath('dist', 'app', 'server', 'cli', 'main.js'),
    dashboard: packagePath('renderer', 'dist', 'index.html'),
    types: packagePath('dist', 'types', 'server', 'exports', 'client.d.ts'),
  };
  /** Which file or folder each build is now: a rebuild makes a new one (a new inode), a rewrite a new mtime. */
  const identity = () =>
    Object.fromEntries(Object.entries(builds).map(([name, path]) => [name, `${statSync(path).ino} ${statSync(path).mtimeMs}`]));

  it('leaves a build as new as its sources as it is, and runs it', () => {
    const before = identity();
    const run = spawnSync('npx', ['--yes', 'coffer', '--version'], {
      cwd: packagePath(),
      encoding: 'utf8',
      env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(packagePath('package.json'), 'utf8')).version);
    expect(identity()).toEqual(before);
  }, 120_000);
});
