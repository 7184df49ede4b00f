#!/usr/bin/env node
// `npm start`: compiles the TypeScript where a source is newer than the build (compile.mjs, about a
// second), then runs `coffer start` with
// npm's arguments (`npm start -- --data-dir DIR`) in this same process. One process, so that the
// signal npm forwards to its child (SIGINT, SIGTERM), or a terminal's Ctrl-C, reaches the server or
// the desktop launcher itself; and it stops with the process that started it (stop-with-parent.ts):
// npm forwards to its shell only, and Debian's dash forks the command and dies of a SIGTERM alone.
// Plain JavaScript on purpose: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledIsFresh } from '../../server/cli/compiled-fresh.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const APP = join(ROOT, 'dist', 'app');

// Compiled only where a source is newer than the build: rewriting a build that is up to date would
// swap it under any other `coffer` loading it at that moment.
const fresh = compiledIsFresh(join(APP, 'server', 'cli', 'main.js'), [join(ROOT, 'server'), join(ROOT, 'electron')]);
if (!fresh) {
  const compiled = spawnSync(process.execPath, [join(ROOT, 'build', 'scripts', 'compile.mjs'), '--quiet'], { stdio: 'inherit' });
  if (compiled.status !== 0) process.exit(compiled.status ?? 1);
}

const { stopWithParent } = await import(pathToFileURL(join(APP, 'server', 'boot', 'stop-with-parent.js')).href);
stopWithParent();
// The command line `coffer start` reads (server/cli/main.ts takes its command from argv[2]).
const main = join(APP, 'server', 'cli', 'main.js');
process.argv = [process.argv[0], main, 'start', ...process.argv.slice(2)];
await import(pathToFileURL(main).href);
