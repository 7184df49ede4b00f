import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../server/package/package-files.js';

const require = createRequire(import.meta.url);

/** better-sqlite3's version: a build for one version is not reused for another. */
export const sqliteVersion = (): string =>
  (JSON.parse(readFileSync(require.resolve('better-sqlite3/package.json'), 'utf8')) as { version: string }).version;

/**
 * Where the Electron-ABI build of better-sqlite3's native module is kept: per Electron version,
 * better-sqlite3 version, platform and architecture.
 */
export function electronBindingPath(
  electronVersion: string,
  sqlite = sqliteVersion(),
  platform = process.platform,
  arch = process.arch,
): string {
  return join(
    packageRoot(),
    'build',
    '.electron-native',
    `electron-${electronVersion}-better-sqlite3-${sqlite}-${platform}-${arch}`,
    'better_sqlite3.node',
  );
}

/** The commands that build it, in order of preference: a prebuilt binary, else a compile against Electron's headers. */
export function buildCommands(
  electronVersion: string,
  arch = process.arch,
  platform = process.platform,
): { command: string; args: string[]; shell: boolean }[] {
  return [
    {
      command: process.execPath,
      args: [require.resolve('prebuild-install/bin.js'), '--runtime', 'electron', '--target', electronVersion, '--arch', arch],
      shell: false,
    },
    {
      // npm is a .cmd script on Windows, which only a shell can start (Node refuses .cmd without one).
      command: platform === 'win32' ? 'npm.cmd' : 'npm',
      args: [
        'exec',
        '--yes',
        '--',
        'node-gyp',
        'rebuild',
        '--release',
        '--runtime=electron',
        `--target=${electronVersion}`,
        `--arch=${arch}`,
        '--dist-url=https://electronjs.org/headers',
      ],
      shell: platform === 'win32',
    },
  ];
}

/** Runs a command, saying every half minute that it still runs; resolves with its exit code and last error line. */
function run(
  step: { command: string; args: string[]; shell: boolean },
  cwd: string,
  say: (line: string) => void,
  what: string,
): Promise<{ code: number | null; lastLine: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let errors = '';
    const child = spawn(step.command, step.args, { cwd, shell: step.shell, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
    const ticker = setInterval(() => say(`  … still ${what} (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    const timeout = setTimeout(() => child.kill(), 15 * 60_000);
    const done = (code: number | null, error?: Error) => {
      clearInterval(ticker);
      clearTimeout(timeout);
      resolve({ code, lastLine: (error?.message ?? errors.trim().split('\n').pop() ?? 'failed').slice(0, 160) });
    };
    child.once('error', (error) => done(null, error));
    child.once('exit', (code) => done(code));
  });
}

/**
 * better-sqlite3 rebuilt for Electron's ABI, beside (not instead of) the Node build in node_modules
 * that `coffer serve` and the tests use. Built once per Electron and better-sqlite3 version in a
 * scratch copy of the package; the database layer loads it through COFFER_SQLITE_BINDING. Says what
 * it does while it does it (it can take minutes).
 */
export async function prepareElectronNatives(
  electronVersion: string,
  say: (line: string) => void = () => undefined,
): Promise<{ path: string } | { reason: string }> {
  const target = electronBindingPath(electronVersion);
  if (existsSync(target)) return { path: target };
  say(`Building the database module for Electron ${electronVersion} (once; up to a few minutes)…`);
  const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
  const scratch = mkdtempSync(join(tmpdir(), 'coffer-native-'));
  try {
    const copy = join(scratch, 'better-sqlite3');
    cpSync(packageDir, copy, { recursive: true, filter: (source) => !source.includes(`${join('build', 'Release')}`) });
    const failures: string[] = [];
    for (const step of buildCommands(electronVersion)) {
      const result = await run(step, copy, say, 'building');
      const built = join(copy, 'build', 'Release', 'better_sqlite3.node');
      if (result.code === 0 && existsSync(built)) {
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(built, target);
        say('  done.');
        return { path: target };
      }
      failures.push(result.lastLine);
    }
    return { reason: `better-sqlite3 could not be built for Electron ${electronVersion} (${failures.join('; ')})` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
