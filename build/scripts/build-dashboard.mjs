#!/usr/bin/env node
// Builds the dashboard (renderer/, Vite) into renderer/dist, which `coffer serve` serves at `/`.
// Vite empties its outDir before it writes, so a build over renderer/dist left a running Coffer (a
// test's, a developer's) serving no dashboard for the second it took: `npm run build`, and `npx
// coffer` in a checkout whose sources are newer (its `prepare`), rebuild it while other Coffers of
// the same checkout run. So it is built beside and
// moved in file by file: the new assets first (their names carry their hash, so none is one the old
// page loads), then index.html, replaced in one rename (a folder cannot be), then the old assets go.
import { build } from 'vite';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHIPPED = join(ROOT, 'renderer', 'dist');
// Under dist/ (ignored by git, lint and format), on the same disk as renderer/dist: renamed, not copied.
const STAGING = join(ROOT, 'dist', `dashboard-build-${process.pid}`);
const PAGE = 'index.html';

/** Every file under a folder, as paths relative to it. */
const filesUnder = (dir) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => statSync(join(dir, file)).isFile());

mkdirSync(join(ROOT, 'dist'), { recursive: true });
rmSync(STAGING, { recursive: true, force: true });
// A build that fails (a source that does not compile) leaves renderer/dist as it was, and nothing
// beside it: its staging folder goes either way.
try {
  await build({
    configFile: join(ROOT, 'renderer', 'vite.config.ts'),
    build: { outDir: STAGING, emptyOutDir: true },
    logLevel: process.argv.includes('--quiet') ? 'warn' : 'info',
  });
  const built = filesUnder(STAGING);
  let before = [];
  try {
    before = filesUnder(SHIPPED);
  } catch {
    // no dashboard built yet
  }
  for (const file of [...built.filter((name) => name !== PAGE), PAGE]) {
    mkdirSync(dirname(join(SHIPPED, file)), { recursive: true });
    renameSync(join(STAGING, file), join(SHIPPED, file));
  }
  for (const file of before.filter((name) => !built.includes(name))) rmSync(join(SHIPPED, file), { force: true });
} finally {
  rmSync(STAGING, { recursive: true, force: true });
}
