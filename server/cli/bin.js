#!/usr/bin/env node
// The `coffer` command. `npm install` compiles the TypeScript sources to dist/app (npm run build),
// and the command runs that JavaScript: no compiler runs at start. When a source under server/ is
// newer than that build (a checkout being worked on), the sources run through tsx instead (slower to
// start, never stale).
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
    if (!/\.(ts|json)$/.test(file)) continue;
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
