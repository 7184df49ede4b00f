import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../server/boot/package-files.js';

const require = createRequire(import.meta.url);

/** Where the Electron-ABI build of better-sqlite3's native module is kept, per Electron version and platform. */
export function electronBindingPath(electronVersion: string, platform = process.platform, arch = process.arch): string {
  return join(packageRoot(), 'build', '.electron-native', `${electronVersion}-${platform}-${arch}`, 'better_sqlite3.node');
}

/** The commands that build it, in order of preference: a prebuilt binary, else a compile against Electron's headers. */
export function buildCommands(electronVersion: string, arch = process.arch): { command: string; args: string[] }[] {
  return [
    {
      command: process.execPath,
      args: [require.resolve('prebuild-install/bin.js'), '--runtime', 'electron', '--target', electronVersion, '--arch', arch],
    },
    {
      command: process.platform === 'win32' ? 'npm.cmd' : 'npm',
      args: ['exec', '--yes', '--', 'node-gyp', 'rebuild', '--release', '--runtime=electron', `--target=${electronVersion}`, `--arch=${arch}`, '--dist-url=https://electronjs.org/headers'],
    },
  ];
}

/**
 * better-sqlite3 rebuilt for Electron's ABI, beside (not instead of) the Node build in node_modules
 * that `coffer serve` and the tests use. Built once per Electron version in a scratch copy of the
 * package; the database layer loads it through COFFER_SQLITE_BINDING.
 */
export function prepareElectronNatives(electronVersion: string): { path: string } | { reason: string } {
  const target = electronBindingPath(electronVersion);
  if (existsSync(target)) return { path: target };
  const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
  const scratch = mkdtempSync(join(tmpdir(), 'coffer-native-'));
  try {
    const copy = join(scratch, 'better-sqlite3');
    cpSync(packageDir, copy, { recursive: true, filter: (source) => !source.includes(`${join('build', 'Release')}`) });
    const failures: string[] = [];
    for (const step of buildCommands(electronVersion)) {
      const result = spawnSync(step.command, step.args, { cwd: copy, stdio: 'pipe', encoding: 'utf8', timeout: 10 * 60_000 });
      const built = join(copy, 'build', 'Release', 'better_sqlite3.node');
      if (result.status === 0 && existsSync(built)) {
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(built, target);
        return { path: target };
      }
      failures.push(((result.stderr || result.error?.message || '').trim().split('\n').pop() ?? 'failed').slice(0, 160));
    }
    return { reason: `better-sqlite3 could not be built for Electron ${electronVersion} (${failures.join('; ')})` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
