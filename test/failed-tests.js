// The names of the tests that failed, read from Vitest's and Playwright's JSON reports, so that a
// run's last lines say which failed: CI keeps only the tail of what a run prints, and a count alone
// ("2610 passed, 2 failed") cannot be reproduced or fixed. Each name is followed by its error's first
// line: a failure CI saw and this machine does not (a Secret Service gone, a timeout) must be told
// apart from the tail alone. Pure, so it is unit-tested.
import { relative } from 'node:path';

// eslint-disable-next-line no-control-regex -- the terminal's colour codes are what it takes out
const ANSI = /\u001b\[[0-9;]*m/g;
const LONGEST = 200;

/** The first line of an error's text with some words in it, without colours, cut to 200 characters. */
function firstLineOf(text) {
  const line = String(text ?? '')
    .replace(ANSI, '')
    .split('\n')
    .map((each) => each.trim())
    .find((each) => each !== '');
  if (line === undefined) return null;
  return line.length > LONGEST ? `${line.slice(0, LONGEST)}…` : line;
}

/** A failed test's name, with its error's first line indented below it where there is one. */
const withError = (name, message) => {
  const line = firstLineOf(message);
  return line === null ? name : `${name}\n    ${line}`;
};

/** Vitest's JSON report: each failed test as "file > describe > name" and its error; a file that failed outside its tests, with its first line. */
export function vitestFailures(report, root) {
  const failures = [];
  for (const file of report.testResults ?? []) {
    const name = typeof file.name === 'string' ? relative(root, file.name) : '(a file Vitest did not name)';
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) failures.push(withError(`${name} > ${test.fullName}`, test.failureMessages?.[0]));
    if (failedTests.length === 0 && file.status === 'failed') {
      failures.push(`${name}: ${firstLineOf(file.message) ?? 'failed outside its tests'}`);
    }
  }
  return failures;
}

/** Playwright's JSON report: each spec with a test that failed (not one that passed on a retry), as "file > title" and its last error. */
export function playwrightFailures(report) {
  const failures = [];
  // A top-level suite is a file (its title is the file's name); those below it are describe blocks.
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      const failed = (spec.tests ?? []).find((test) => test.status === 'unexpected');
      if (failed === undefined) continue;
      const lastError = [...(failed.results ?? [])].reverse().find((result) => result.error?.message)?.error.message;
      failures.push(withError(`${spec.file ?? suite.file} > ${[...titles, spec.title].join(' > ')}`, lastError));
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const file of report.suites ?? []) walk(file, []);
  return failures;
}
