import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';

/**
 * Compiles the app into a folder of this test's own (below the package, so it finds its
 * node_modules and the files that are not code): never the shared dist/app, which `coffer`
 * commands run by other tests may be reading at the same moment.
 */
export function compileApp(label: string): { dir: string; remove(): void } {
  const dir = packagePath('dist', `test-${label}-${process.pid}`);
  const compiled = spawnSync(process.execPath, [packagePath('build', 'scripts', 'compile.mjs'), '--quiet', '--out', dir], {
    encoding: 'utf8',
  });
  expect(compiled.status, compiled.stderr).toBe(0);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
