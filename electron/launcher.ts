import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareElectronNatives } from '../build/scripts/electron-natives.js';
import { packagePath } from '../server/boot/package-files.js';

const require = createRequire(import.meta.url);
/** The desktop app runs compiled JavaScript (`npm run build`), never TypeScript through a loader. */
const MAIN = packagePath('dist', 'app', 'electron', 'main.js');
const COMPILE = packagePath('build', 'scripts', 'compile.mjs');

/** The Electron binary, or why there is none (not installed, and not downloadable from here). */
export function electronBinary(): { path: string } | { reason: string } {
  const tryPath = (): string | null => {
    try {
      const path = require('electron') as unknown as string;
      return typeof path === 'string' && existsSync(path) ? path : null;
    } catch {
      return null;
    }
  };
  const found = tryPath();
  if (found) return { path: found };
  // npm install skips Electron's download (package.json allowScripts): fetch it now, once.
  const installer = require.resolve('electron/install.js');
  const result = spawnSync(process.execPath, [installer], { stdio: 'pipe', encoding: 'utf8', timeout: 5 * 60_000 });
  const after = tryPath();
  if (after) return { path: after };
  const why = (result.stderr || result.stdout || result.error?.message || 'no output').trim().split('\n').find((line) => /error|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|timed out/i.test(line)) ?? 'download failed';
  return { reason: `Electron's binary is not installed and could not be downloaded (${why.trim().slice(0, 120)})` };
}

/** Why the tray app cannot run on this machine, or null when it can. */
export function whyNoDesktop(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | null {
  if (env.COFFER_HEADLESS) return 'COFFER_HEADLESS is set';
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display to show a tray on (DISPLAY is not set)';
  return null;
}

/**
 * `npm start`: the tray app when Electron can run here; otherwise the reason, in one line, for the
 * caller to start the same engine headless.
 */
export async function launchDesktop(flags: { 'data-dir'?: string; port?: string; network?: string } = {}): Promise<{ exitCode: number } | { headless: string }> {
  const noDesktop = whyNoDesktop();
  if (noDesktop) return { headless: noDesktop };
  const binary = electronBinary();
  if ('reason' in binary) return { headless: binary.reason };
  const electronVersion = (JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')) as { version: string }).version;
  const natives = prepareElectronNatives(electronVersion);
  if ('reason' in natives) return { headless: natives.reason };
  // The flags reach the app as the variables they override (flags win, as for `coffer serve`).
  const env = {
    ...process.env,
    COFFER_SQLITE_BINDING: natives.path,
    ...(flags['data-dir'] ? { COFFER_HOME: flags['data-dir'] } : {}),
    ...(flags.port ? { COFFER_PORT: flags.port } : {}),
    ...(flags.network ? { COFFER_NETWORK: flags.network } : {}),
  };
  if (!existsSync(MAIN) && existsSync(COMPILE)) spawnSync(process.execPath, [COMPILE, '--quiet'], { stdio: 'inherit' });
  const child = spawn(binary.path, [MAIN], { stdio: 'inherit', env });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ exitCode: code ?? 0 })));
}
