#!/usr/bin/env node
// The `coffer` command. `npm install` compiles the TypeScript sources to dist/app (npm run build),
// and the command runs that JavaScript: no compiler runs at start. When a source under server/ is
// newer than that build (a checkout being worked on), the sources run through tsx instead (slower to
// start, never stale; tsx is a dev dependency, there with the sources). An installed package (npm
// pack, npm install -g) ships the build and no sources.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { compiledIsFresh } from './compiled-fresh.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const compiled = join(root, 'dist', 'app', 'server', 'cli', 'main.js');
if (compiledIsFresh(compiled, [join(root, 'server')])) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
}
