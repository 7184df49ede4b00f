#!/usr/bin/env node
// `npm run dist`: builds the dashboard and the compiled app, packages them with electron-builder
// (build/electron-builder.json; extra arguments are passed on, for example `-- --dir`), and then
// always restores the Node build of better-sqlite3 that electron-builder replaces in node_modules with
// Electron's, even when packaging fails: otherwise `coffer serve` and the tests stop working.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { explainFetchFailure } from './dist-failure.mjs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
// npm is a .cmd script on Windows, which Node starts only through a shell.
const npm = (...args) =>
  spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' })
    .status;

if (npm('run', 'build') !== 0) process.exit(1);
try {
  // Its output is passed on as it comes, except stack traces; a failure to fetch is then said plainly.
  let output = '';
  const status = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [require.resolve('electron-builder/cli.js'), '--config', 'build/electron-builder.json', ...process.argv.slice(2)],
      {
        cwd: ROOT,
        stdio: ['inherit', 'pipe', 'pipe'],
      },
    );
    const pass = (stream, to) =>
      createInterface({ input: stream }).on('line', (line) => {
        output += `${line}\n`;
        if (!/^\s+at /.test(line)) to.write(`${line}\n`);
      });
    pass(child.stdout, process.stdout);
    pass(child.stderr, process.stderr);
    child.once('exit', (code) => resolve(code ?? 1));
  });
  if (status !== 0) {
    const explained = explainFetchFailure(output);
    if (explained !== null) console.error(`\n${explained}`);
  }
  process.exitCode = status;
} finally {
  if (npm('rebuild', 'better-sqlite3') !== 0)
    console.error('npm run dist: could not restore the Node build of better-sqlite3: run `npm rebuild better-sqlite3`');
}
