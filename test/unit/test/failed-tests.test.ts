import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the test runner, without types
import { playwrightFailures, vitestFailures } from '../../failed-tests.js';

describe("a test run's failed tests, by name", () => {
  it("names each failed Vitest test by file and full name with its error's first line, and a file that failed outside its tests by its error's first line", () => {
    const report = {
      testResults: [
        {
          name: '/repo/test/unit/a.test.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'money stays exact', status: 'passed' },
            { fullName: 'pays once > under a race', status: 'failed' },
            {
              fullName: 'keeps keys > in the keychain',
              status: 'failed',
              failureMessages: [
                '\n\u001b[31mError: no keychain answered: no OS keychain answered, Platform secure storage failure\u001b[39m\n    at keychain (a.test.ts:1:1)',
              ],
            },
            { fullName: 'a long one', status: 'failed', failureMessages: [`AssertionError: ${'x'.repeat(400)}`] },
          ],
        },
        {
          name: '/repo/test/integration/b.test.ts',
          status: 'failed',
          message: '\nError: Cannot find module x\n  at y',
          assertionResults: [],
        },
        { name: '/repo/test/unit/c.test.ts', status: 'passed', assertionResults: [{ fullName: 'fine', status: 'passed' }] },
      ],
    };
    expect(vitestFailures(report, '/repo')).toEqual([
      'test/unit/a.test.ts > pays once > under a race',
      'test/unit/a.test.ts > keeps keys > in the keychain\n    Error: no keychain answered: no OS keychain answered, Platform secure storage failure',
      `test/unit/a.test.ts > a long one\n    AssertionError: ${'x'.repeat(184)}…`,
      'test/integration/b.test.ts: Error: Cannot find module x',
    ]);
    expect(vitestFailures({ testResults: [] }, '/repo')).toEqual([]);
  });

  it('names each Playwright spec that failed, under its describe blocks, and not one that passed on a retry', () => {
    const report = {
      suites: [
        {
          title: 'kill.spec.ts',
          file: 'kill.spec.ts',
          specs: [
            {
              title: 'stops one agent',
              file: 'kill.spec.ts',
              tests: [
                {
                  status: 'unexpected',
                  results: [{ error: { message: '\u001b[2mexpect(\u001b[22mlocator).toBeVisible()\n\nLocator: x' } }],
                },
              ],
            },
          ],
          suites: [
            {
              title: 'the brake',
              file: 'kill.spec.ts',
              specs: [
                { title: 'stops all', file: 'kill.spec.ts', tests: [{ status: 'unexpected' }] },
                { title: 'flaky one', file: 'kill.spec.ts', tests: [{ status: 'flaky' }] },
                { title: 'fine', file: 'kill.spec.ts', tests: [{ status: 'expected' }] },
              ],
            },
          ],
        },
      ],
    };
    expect(playwrightFailures(report)).toEqual([
      'kill.spec.ts > stops one agent\n    expect(locator).toBeVisible()',
      'kill.spec.ts > the brake > stops all',
    ]);
  });
});
