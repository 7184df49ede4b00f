#!/usr/bin/env node
// The `coffer` command. `npm install` compiles the TypeScript sources to dist/app (npm run build),
// and the command runs that JavaScript: no compiler runs at start. When a source under server/ is
// newer than that build (a checkout being worked on), the sources run through tsx instead (slower to
// start, never stale; tsx is a dev dependency, there with the sources). An installed package (npm
// pack, npm install -g) ships the build and no sources.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../../', import.meta.url));
const compiled = join(root, 'dist', 'app', 'server', 'cli', 'main.js');

function compiledIsFresh() {
  let built;
  try {
    built = statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
  const server = join(root, 'server');
  for (const file of readdirSync(server, { recursive: true })) {
    // Only TypeScript is compiled (data files are read where they are). An installed package ships
    // no sources at all, so its build is always the one to run.
    if (!file.endsWith('.ts')) continue;
    if (statSync(join(server, file)).mtimeMs > built) return false;
  }
  return true;
}

if (compiledIsFresh()) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
}
