#!/usr/bin/env node
// Runs the unpacked desktop app (`npm run dist -- --dir`) in its smoke mode (COFFER_SMOKE=1: a
// throwaway data dir, port 0; it checks its tray and menu, the window signing in, "Stop all agents"
// from the menu and the MCP launch, then quits) and fails unless every check held and it exited 0
// within the time allowed. Before it runs, the app's fuses are read back (fuse-check.mjs). For CI on
// runners with a display (.github/workflows/desktop.yml).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fusesNotAsRequired } from './fuse-check.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(ROOT, 'dist', 'desktop');
const WITHIN_MS = 90_000;
const CHECKS = ['tray and menu', 'window signs in', '"Stop all agents" from the menu', 'MCP launch'];

export const unpackedBinaries = {
  linux: [join(OUT, 'linux-unpacked', 'coffer')],
  darwin: [
    join(OUT, 'mac-arm64', 'Coffer.app', 'Contents', 'MacOS', 'Coffer'),
    join(OUT, 'mac', 'Coffer.app', 'Contents', 'MacOS', 'Coffer'),
  ],
  win32: [join(OUT, 'win-unpacked', 'Coffer.exe')],
};

const binary = (unpackedBinaries[process.platform] ?? []).find((path) => existsSync(path));
if (!binary) {
  console.error(`smoke: no unpacked app for ${process.platform} under ${OUT}: run \`npm run dist -- --dir\` first`);
  process.exit(1);
}
// The fuses first: an app that can still be run as Node is not the app that ships.
const wrongFuses = await fusesNotAsRequired(binary);
if (wrongFuses.length > 0) {
  console.error(`smoke: the packaged app's fuses are not as required: ${wrongFuses.join('; ')}`);
  process.exit(1);
}
console.log('smoke: fuses: ok');
const started = Date.now();
const child = spawn(binary, process.argv.slice(2), { env: { ...process.env, COFFER_SMOKE: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
});
const timer = setTimeout(() => {
  console.error(`smoke: no exit within ${WITHIN_MS / 1000} s`);
  child.kill('SIGKILL');
}, WITHIN_MS);
child.once('exit', (code, signal) => {
  clearTimeout(timer);
  const missing = CHECKS.filter((check) => !output.includes(`smoke: ${check}: ok`));
  const seconds = Math.round((Date.now() - started) / 1000);
  if (code === 0 && missing.length === 0) {
    console.log(`smoke: every check held; exit 0 after ${seconds} s`);
    process.exit(0);
  }
  console.error(`smoke: failed (exit ${code ?? signal} after ${seconds} s${missing.length ? `; not ok: ${missing.join(', ')}` : ''})`);
  process.exit(1);
});
