#!/usr/bin/env node
// Runs a TypeScript file of this repo (benchmarks, scripts) the way bin.js runs the CLI.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const file = process.argv[2];
if (!file) {
  console.error('usage: run-ts.js <file.ts> [args...]');
  process.exit(2);
}
// The script sees itself as argv[1], as if run directly (its arguments follow from argv[2]).
process.argv.splice(1, 2, resolve(file));
await import(pathToFileURL(resolve(file)).href);
