#!/usr/bin/env node
// `npm run dist`: builds the dashboard and the compiled app, packages them with electron-builder
// (build/electron-builder.json; extra arguments are passed on, for example `-- --dir`), and says
// plainly when a download failed. Nothing is rebuilt for Electron (npmRebuild is off: the app loads
// Node-API builds only, see server/store/sqlite-driver.ts), so node_modules is left as it was.
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
