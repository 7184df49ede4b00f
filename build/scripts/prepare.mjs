#!/usr/bin/env node
// `prepare`: npm runs it on `npm install`, on `npm pack`, and whenever npx installs this checkout
// into its cache, that is the first `npx coffer` run in it with an npm cache that has not seen it
// (the README's walkthrough). It runs `npm run build` where a build is older than its sources, and
// leaves a build as new as its sources as it is: rebuilt, dist/app was swapped under the Coffers
// running from it (`npm start` in another terminal, other tests' `coffer` commands), and a `coffer`
// loading its modules between the swap's two renames found none of them.
// Plain JavaScript on purpose: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledIsFresh } from '../../server/cli/compiled-fresh.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (...path) => join(ROOT, ...path);
// A dependency installed anew (the lock rewritten) is built into each of them.
const LOCK = at('package-lock.json');
const anyFile = () => true;

/** What `npm run build` makes, one file of each build, and what that build is made from. */
const fresh =
  compiledIsFresh(
    at('renderer', 'dist', 'index.html'),
    [at('renderer', 'src'), at('renderer', 'public'), at('renderer', 'index.html'), at('renderer', 'vite.config.ts'), LOCK],
    anyFile,
  ) &&
  compiledIsFresh(at('dist', 'app', 'server', 'cli', 'main.js'), [at('server'), at('electron'), LOCK]) &&
  compiledIsFresh(at('dist', 'types', 'server', 'exports', 'client.d.ts'), [at('server'), at('tsconfig.types.json'), LOCK]);

if (!fresh) {
  // npm names itself to the scripts it runs; `npm` alone is npm.cmd on Windows, run through a shell.
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(build.status ?? 1);
}
