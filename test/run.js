#!/usr/bin/env node
// `npm test`: typecheck, lint, then Vitest. On Linux the suite runs inside its own D-Bus session with
// an unlocked gnome-keyring, so the keychain tests use a real Secret Service. Ends with the line
// "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const results = join(root, '.vitest-results.json');
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

for (const [name, args] of [
  ['typecheck', ['run', 'typecheck']],
  ['lint', ['run', 'lint']],
]) {
  if (run('npm', args) !== 0) {
    console.error(`npm test: ${name} failed`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

rmSync(results, { force: true });
const vitest = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)];
let status;
if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS && has('dbus-run-session') && has('gnome-keyring-daemon')) {
  const script = `echo -n coffer-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec npx ${vitest.map((a) => `'${a}'`).join(' ')}`;
  status = run('dbus-run-session', ['--', 'sh', '-c', script]);
} else {
  status = run('npx', vitest);
}

if (existsSync(results)) {
  const summary = JSON.parse(readFileSync(results, 'utf8'));
  rmSync(results, { force: true });
  console.log(`${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
} else {
  console.log('0 passed, 1 failed');
}
process.exit(status === 0 ? 0 : 1);
