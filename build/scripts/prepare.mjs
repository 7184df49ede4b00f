#!/usr/bin/env node
// `prepare`: npm runs it on `npm install`, on `npm pack`, and whenever npx installs this checkout
// into its cache, that is the first `npx coffer` run in it with an npm cache that has not seen it
// (the README's walkthrough). It runs `npm run build` where a build is older than its sources, and
// leaves a build as new as its sources as it is: rebuilt, dist/app was swapped under the Coffers
// running from it (`npm start` in another terminal, other tests' `coffer` commands), and a `coffer`
// loading its modules between the swap's two renames found none of them.
// Plain JavaScript on purpose: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledIsFresh } from '../../server/cli/compiled-fresh.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (...path) => join(ROOT, ...path);
// A dependency installed anew (the lock rewritten), or a change to how a build is made (its script,
// the compiler's settings), is built into each of them.
const MADE_WITH = [at('package-lock.json'), at('tsconfig.json')];
const COMPILE = at('build', 'scripts', 'compile.mjs');
const anyFile = () => true;
const DASHBOARD = at('renderer', 'dist', 'index.html');

/**
 * What `npm run build` makes, one file of each build (and the dashboard's assets, which its page
 * names), and what that build is made from. The dashboard imports from server/ (its wire types and
 * words) as well as renderer/.
 */
const fresh =
  compiledIsFresh(
    DASHBOARD,
    [
      at('renderer', 'src'),
      at('renderer', 'public'),
      at('renderer', 'index.html'),
      at('renderer', 'vite.config.ts'),
      at('renderer', 'tsconfig.json'),
      at('build', 'scripts', 'build-dashboard.mjs'),
      ...MADE_WITH,
    ],
    anyFile,
  ) &&
  compiledIsFresh(DASHBOARD, [at('server')]) &&
  pageAssetsThere(DASHBOARD) &&
  compiledIsFresh(at('dist', 'app', 'server', 'cli', 'main.js'), [at('server'), at('electron'), COMPILE, ...MADE_WITH]) &&
  compiledIsFresh(at('dist', 'app', 'electron', 'main.js'), [at('electron'), COMPILE, ...MADE_WITH]) &&
  compiledIsFresh(at('dist', 'types', 'server', 'exports', 'client.d.ts'), [at('server'), at('tsconfig.types.json'), ...MADE_WITH]);

/** Whether every script and style the dashboard's page names is there (a dashboard cut short is built again). */
function pageAssetsThere(page) {
  if (!existsSync(page)) return false;
  const named = [...readFileSync(page, 'utf8').matchAll(/(?:src|href)="\/?(assets\/[^"]+)"/g)].map((match) => match[1]);
  return named.every((asset) => existsSync(join(dirname(page), asset)));
}

if (!fresh) {
  // npm names itself to the scripts it runs; `npm` alone is npm.cmd on Windows, run through a shell.
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(build.status ?? 1);
}
