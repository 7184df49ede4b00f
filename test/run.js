#!/usr/bin/env node
// `npm test` (every area) and `npm run test:integration` / `test:e2e` (one area):
//   node test/run.js [unit] [integration] [e2e] [-- further Vitest arguments, e.g. a file or -t NAME]
// The whole run checks the system's packages, typechecks, lints, builds the dashboard, then runs
// Vitest (unit and integration) and Playwright (the dashboard in Debian's Chromium). On Linux the
// integration tests run inside a D-Bus session of their own with an unlocked gnome-keyring, so the
// keychain tests use a real Secret Service (keyring-session.js). Ends with the names of the tests
// that failed, if any, each with its error's first line, then the line "N passed, N failed"; with
// COFFER_TEST_SUMMARY set, the counts and the names are also written there as JSON (for .ci/run's
// total).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { ensurePrerequisites } from './prerequisites.js';
import { runInKeyringSession } from './keyring-session.js';
import { playwrightFailures, vitestFailures } from './failed-tests.js';

const AREAS = ['unit', 'integration', 'e2e'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitestResults = join(root, '.vitest-results.json');
const playwrightResults = join(root, '.playwright-results.json');
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const run = (command, args, env = process.env) => spawnSync(command, args, { cwd: root, stdio: 'inherit', env }).status ?? 1;
const failures = [];
const finish = (passed, failed) => {
  if (process.env.COFFER_TEST_SUMMARY) writeFileSync(process.env.COFFER_TEST_SUMMARY, JSON.stringify({ passed, failed, failures }));
  if (failures.length > 0) console.log(`Failed:\n${failures.map((name) => `  ${name}`).join('\n')}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
};

const args = process.argv.slice(2).filter((arg) => arg !== '--');
const named = args.filter((arg) => AREAS.includes(arg));
const vitestArgs = args.filter((arg) => !AREAS.includes(arg));
const areas = named.length > 0 ? named : AREAS;
const everything = named.length === 0;

// The system's part first: a missing package is installed (root, CI) or named with its command, at once.
const missingPrerequisite = ensurePrerequisites();
if (missingPrerequisite !== null) {
  console.error(missingPrerequisite);
  failures.push('the system packages npm test needs (see above)');
  finish(0, 1);
}

const steps = everything ? ['typecheck', 'lint', 'build'] : areas.some((area) => area !== 'unit') ? ['build'] : [];
for (const step of steps) {
  if (run('npm', ['run', step]) !== 0) {
    console.error(`npm test: ${step} failed`);
    failures.push(`npm run ${step} (see above)`);
    finish(0, 1);
  }
}

let passed = 0;
let failed = 0;

// Vitest: the unit and integration projects of vitest.config.ts.
const projects = areas.filter((area) => area !== 'e2e');
if (projects.length > 0) {
  rmSync(vitestResults, { force: true });
  const vitest = [
    'vitest',
    'run',
    ...projects.flatMap((project) => ['--project', project]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestResults}`,
    ...vitestArgs,
  ];
  let status;
  let keyringEnded = null;
  const needsKeyring = projects.includes('integration');
  if (
    needsKeyring &&
    process.platform === 'linux' &&
    !process.env.DBUS_SESSION_BUS_ADDRESS &&
    has('dbus-run-session') &&
    has('gnome-keyring-daemon')
  ) {
    // A keyring of its own (keyring-session.js), whose daemon's end during the run is said.
    ({ status, ended: keyringEnded } = runInKeyringSession(['npx', ...vitest], run));
  } else {
    status = run('npx', vitest);
  }
  if (existsSync(vitestResults)) {
    const summary = JSON.parse(readFileSync(vitestResults, 'utf8'));
    rmSync(vitestResults, { force: true });
    passed += summary.numPassedTests;
    failed += summary.numFailedTests;
    failures.push(...vitestFailures(summary, root));
    if (status !== 0 && summary.numFailedTests === 0) {
      // An error outside any test (a crashed worker, an unhandled rejection) fails the run too.
      failed += Math.max(1, summary.numTotalTests - summary.numPassedTests - summary.numPendingTests);
      failures.push('Vitest: errors outside the tests (see above)');
      console.log('npm test: Vitest reported errors outside the tests (see above)');
    }
  } else {
    failed += 1;
    failures.push('Vitest: no report (it crashed; see above)');
  }
  // Named among the failures it would explain (every keychain test after it), else only said.
  if (keyringEnded !== null) {
    console.log(`npm test: ${keyringEnded}`);
    if (failed > 0) failures.push(keyringEnded);
  }
}

// Playwright, unless Vitest arguments narrowed a whole run to some files.
if (areas.includes('e2e') && !(everything && vitestArgs.length > 0)) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    console.error(`npm test: no Chromium at ${chromium} for the dashboard tests (apt-get install chromium, or set CHROMIUM_PATH)`);
    failed += 1;
    failures.push(`Playwright: no Chromium at ${chromium}`);
  } else {
    rmSync(playwrightResults, { force: true });
    const e2e = run('npx', ['playwright', 'test', '-c', 'test/e2e', '--reporter=list,json', ...(everything ? [] : vitestArgs)], {
      ...process.env,
      PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightResults,
    });
    if (existsSync(playwrightResults)) {
      const report = JSON.parse(readFileSync(playwrightResults, 'utf8'));
      const { stats } = report;
      rmSync(playwrightResults, { force: true });
      passed += stats.expected + stats.flaky;
      failed += stats.unexpected;
      failures.push(...playwrightFailures(report).map((name) => `test/e2e/${name}`));
      if (e2e !== 0 && stats.unexpected === 0) {
        failed += 1;
        failures.push('Playwright: errors outside the tests (see above)');
      }
    } else {
      failed += 1;
      failures.push('Playwright: no report (it crashed; see above)');
    }
  }
}
finish(passed, failed);
