#!/usr/bin/env node
// Compiles Coffer's TypeScript (server/, electron/) to JavaScript in dist/app/, file for file (imports
// stay as they are). The desktop app, its MCP bridge (`--coffer-mcp`), `npm start` and the packaged
// app run this output: no compiler or loader hook runs at
// start. Plain JavaScript on purpose: it must run before anything is compiled. Type checking is
// `npm run typecheck`'s job; this only strips types (esbuild), in about a second.
import { build } from 'esbuild';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const outFlag = process.argv.indexOf('--out');
// `--out DIR` (tests) compiles elsewhere than dist/app, which a running `coffer` may be reading.
export const OUT = outFlag === -1 ? join(ROOT, 'dist', 'app') : resolve(ROOT, process.argv[outFlag + 1] ?? '');
const quiet = process.argv.includes('--quiet');

const sources = (dir) =>
  readdirSync(join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.endsWith('.test.ts'))
    .map((file) => join(ROOT, dir, file));

const started = Date.now();
// Built beside, then swapped in: a `coffer` running from the old output never finds it half-written.
const STAGING = `${OUT}.build-${process.pid}`;
rmSync(STAGING, { recursive: true, force: true });
const entryPoints = [...sources('server'), ...sources('electron')];
await build({
  entryPoints,
  outdir: STAGING,
  outbase: ROOT,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
const OLD = `${OUT}.old-${process.pid}`;
if (existsSync(OUT)) renameSync(OUT, OLD);
renameSync(STAGING, OUT);
rmSync(OLD, { recursive: true, force: true });
if (!quiet) console.log(`compiled ${entryPoints.length} files to ${relative(ROOT, OUT)}/ in ${Date.now() - started} ms`);
