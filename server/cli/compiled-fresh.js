// Whether the compiled app (dist/app) is at least as new as every TypeScript source under some
// folders: `coffer` (bin.js) runs the build only then, and `npm start` (build/scripts/start.mjs)
// compiles only when it is not, so that it never rewrites a build other `coffer` processes are
// loading (a swap mid-load left one without a module it imports). Plain JavaScript on purpose: it
// runs before anything is compiled; shipped with bin.js (an installed package has no sources, so its
// build is always the one to run).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** `compiled`: a file of the build; `sources`: the folders whose .ts files it is built from. */
export function compiledIsFresh(compiled, sources) {
  let built;
  try {
    built = statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
  for (const folder of sources) {
    let files;
    try {
      files = readdirSync(folder, { recursive: true });
    } catch {
      continue;
    }
    for (const file of files) {
      // Only TypeScript is compiled (data files are read where they are).
      if (!String(file).endsWith('.ts')) continue;
      if (statSync(join(folder, String(file))).mtimeMs > built) return false;
    }
  }
  return true;
}
