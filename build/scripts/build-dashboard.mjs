#!/usr/bin/env node
// Builds the dashboard (renderer/, Vite) into renderer/dist, which `coffer serve` serves at `/`.
// Built beside, then swapped in, as compile.mjs does for dist/app: Vite empties its outDir before it
// writes, so a build over renderer/dist left a running Coffer (a test's, a developer's) serving no
// dashboard for the seconds it took. `npx coffer` in a checkout rebuilds it (its `prepare`) while
// other Coffers of the same checkout run.
import { build } from 'vite';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHIPPED = join(ROOT, 'renderer', 'dist');
// Under dist/ (ignored by git, lint and format), on the same disk as renderer/dist: renamed, not copied.
const STAGING = join(ROOT, 'dist', `dashboard-build-${process.pid}`);
mkdirSync(join(ROOT, 'dist'), { recursive: true });
rmSync(STAGING, { recursive: true, force: true });
await build({
  configFile: join(ROOT, 'renderer', 'vite.config.ts'),
  build: { outDir: STAGING, emptyOutDir: true },
  logLevel: process.argv.includes('--quiet') ? 'warn' : 'info',
});
const OLD = join(ROOT, 'dist', `dashboard-old-${process.pid}`);
if (existsSync(SHIPPED)) renameSync(SHIPPED, OLD);
renameSync(STAGING, SHIPPED);
rmSync(OLD, { recursive: true, force: true });
