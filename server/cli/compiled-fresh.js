// Whether a build (dist/app, the dashboard, the client's types) is at least as new as every source it
// is built from: `coffer` (bin.js) runs dist/app only then, and `npm start` (build/scripts/start.mjs)
// and `prepare` (build/scripts/prepare.mjs) build only when it is not, so that neither rewrites a
// build other `coffer` processes are loading (a swap mid-load left one without a module it imports).
// Plain JavaScript on purpose: it runs before anything is compiled; shipped with bin.js (an installed
// package has no sources, so its build is always the one to run).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const typeScript = (file) => file.endsWith('.ts');

/**
 * `compiled`: a file of the build; `sources`: the folders (searched however deep) and files it is
 * built from; `isSource`: which files of those folders count (by default TypeScript: data files are
 * read where they are). A source that is not there (an installed package ships none) says nothing.
 */
export function compiledIsFresh(compiled, sources, isSource = typeScript) {
  let built;
  try {
    built = statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
  for (const source of sources) {
    let stats;
    try {
      stats = statSync(source);
    } catch {
      continue;
    }
    if (!stats.isDirectory()) {
      if (stats.mtimeMs > built) return false;
      continue;
    }
    for (const file of readdirSync(source, { recursive: true })) {
      if (!isSource(String(file))) continue;
      // A file gone since the listing, or a link to nothing (an editor's lock file, `.#main.ts`): no source.
      const modified = statSync(join(source, String(file)), { throwIfNoEntry: false })?.mtimeMs;
      if (modified !== undefined && modified > built) return false;
    }
  }
  return true;
}
