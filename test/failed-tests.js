// The names of the tests that failed, read from Vitest's and Playwright's JSON reports, so that a
// run's last lines say which failed: CI keeps only the tail of what a run prints, and a count alone
// ("2610 passed, 2 failed") cannot be reproduced or fixed. Pure, so it is unit-tested.
import { relative } from 'node:path';

/** Vitest's JSON report: each failed test as "file > describe > name"; a file that failed outside its tests, with its first line. */
export function vitestFailures(report, root) {
  const failures = [];
  for (const file of report.testResults ?? []) {
    const name = typeof file.name === 'string' ? relative(root, file.name) : '(a file Vitest did not name)';
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) failures.push(`${name} > ${test.fullName}`);
    if (failedTests.length === 0 && file.status === 'failed') {
      const firstLine =
        String(file.message ?? '')
          .split('\n')
          .find((line) => line.trim() !== '') ?? 'failed outside its tests';
      failures.push(`${name}: ${firstLine.trim()}`);
    }
  }
  return failures;
}

/** Playwright's JSON report: each spec with a test that failed (not one that passed on a retry), as "file > title". */
export function playwrightFailures(report) {
  const failures = [];
  // A top-level suite is a file (its title is the file's name); those below it are describe blocks.
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      if ((spec.tests ?? []).some((test) => test.status === 'unexpected'))
        failures.push(`${spec.file ?? suite.file} > ${[...titles, spec.title].join(' > ')}`);
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const file of report.suites ?? []) walk(file, []);
  return failures;
}
