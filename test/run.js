#!/usr/bin/env node
// `npm test`: typecheck, lint, then Vitest. On Linux the suite runs inside its own D-Bus session with
// an unlocked gnome-keyring, so the keychain tests use a real Secret Service. Ends with the line
// "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const results = join(root, '.vitest-results.json');
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const run = (command, args, env = process.env) => spawnSync(command, args, { cwd: root, stdio: 'inherit', env }).status ?? 1;

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
  // A keyring of its own, in a temporary XDG_DATA_HOME: created fresh and unlocked with a known
  // password, so the tests never prompt and never touch the user's keyring.
  const keyringHome = mkdtempSync(join(tmpdir(), 'coffer-keyring-'));
  const script = `echo -n coffer-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec npx ${vitest.map((a) => `'${a}'`).join(' ')}`;
  status = run('dbus-run-session', ['--', 'sh', '-c', script], { ...process.env, XDG_DATA_HOME: keyringHome });
  rmSync(keyringHome, { recursive: true, force: true });
} else {
  status = run('npx', vitest);
}

if (existsSync(results)) {
  const summary = JSON.parse(readFileSync(results, 'utf8'));
  rmSync(results, { force: true });
  let failed = summary.numFailedTests;
  if (status !== 0 && failed === 0) {
    // An error outside any test (a crashed worker, an unhandled rejection) fails the run too.
    failed = Math.max(1, summary.numTotalTests - summary.numPassedTests - summary.numPendingTests);
    console.log('npm test: Vitest reported errors outside the tests (see above)');
  }
  console.log(`${summary.numPassedTests} passed, ${failed} failed`);
} else {
  console.log('0 passed, 1 failed');
}
process.exit(status === 0 ? 0 : 1);
