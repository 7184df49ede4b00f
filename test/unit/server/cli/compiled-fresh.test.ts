import { mkdtempSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compiledIsFresh } from '../../../../server/cli/compiled-fresh.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A build and a source folder, the build written at `builtAt` (s), each source at its own time. */
function checkout(builtAt: number, sources: Record<string, number>) {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-fresh-'));
  made.push(dir);
  const built = join(dir, 'main.js');
  writeFileSync(built, '');
  utimesSync(built, builtAt, builtAt);
  const src = join(dir, 'server');
  for (const [name, at] of Object.entries(sources)) {
    const file = join(src, name);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '');
    utimesSync(file, at, at);
  }
  return { built, src, dir };
}

describe('whether the build is as new as its sources', () => {
  it('is, where no TypeScript source is newer; a newer data file does not count', () => {
    const { built, src } = checkout(2_000, { 'a.ts': 1_000, 'deep/b.ts': 2_000, 'data.json': 3_000 });
    expect(compiledIsFresh(built, [src])).toBe(true);
  });

  it('is not, where a source in any folder, however deep, is newer, or where there is no build', () => {
    const { built, src, dir } = checkout(2_000, { 'a.ts': 1_000, 'deep/b.ts': 2_001 });
    expect(compiledIsFresh(built, [src])).toBe(false);
    expect(compiledIsFresh(join(dir, 'none.js'), [src])).toBe(false);
    // A folder that is not there (an installed package ships no sources) says nothing against it.
    const fresh = checkout(2_000, { 'a.ts': 1_000 });
    expect(compiledIsFresh(fresh.built, [fresh.src, join(fresh.dir, 'electron')])).toBe(true);
  });

  it('counts a file named as a source, and the files a folder holds where the caller says which count', () => {
    const { built, src, dir } = checkout(2_000, { 'a.ts': 1_000, 'styles.css': 3_000 });
    expect(compiledIsFresh(built, [src], () => true)).toBe(false);
    expect(compiledIsFresh(built, [src], (file) => file.endsWith('.tsx'))).toBe(true);
    const lock = join(dir, 'package-lock.json');
    writeFileSync(lock, '');
    utimesSync(lock, 2_001, 2_001);
    expect(compiledIsFresh(built, [src, lock])).toBe(false);
    utimesSync(lock, 1_999, 1_999);
    expect(compiledIsFresh(built, [src, lock])).toBe(true);
  });

  it('takes a link to nothing (an editor lock file) for no source, rather than stopping', () => {
    const { built, src } = checkout(2_000, { 'a.ts': 1_000 });
    symlinkSync(join(src, 'gone.ts'), join(src, '.#a.ts'));
    expect(compiledIsFresh(built, [src])).toBe(true);
  });
});
