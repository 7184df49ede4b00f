import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { packagePath, packageRoot } from '../package/package-files.js';
import { forwardStopToElectron, type SignalSource } from './electron-stop.js';

const require = createRequire(import.meta.url);
/** The desktop app runs compiled JavaScript (`npm run build`), never TypeScript through a loader. */
const MAIN = packagePath('dist', 'app', 'electron', 'main.js');
const COMPILE = packagePath('build', 'scripts', 'compile.mjs');
/** A failed download of Electron is remembered here: it is not tried again at every start. */
export const FAILED_DOWNLOAD_FILE = packagePath('build', '.electron-native', 'download-failed.json');
export const RETRY_DOWNLOAD_AFTER_MS = 24 * 60 * 60 * 1000;
/** What the desktop app writes once it runs (electron/desktop.ts): the launcher's sign that it started. */
const RUNNING = /running in the tray; dashboard at /;

export type Say = (line: string) => void;

/** Why the tray app cannot run on this machine, or null when it can. */
export function whyNoDesktop(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | null {
  if (env.COFFER_HEADLESS) return 'COFFER_HEADLESS is set';
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display to show a tray on (DISPLAY is not set)';
  return null;
}

/** A download that failed less than a day ago, said in one line; null when it may be tried (again). */
export function recentDownloadFailure(file: string, now: number): string | null {
  if (!existsSync(file)) return null;
  try {
    const { at, reason } = JSON.parse(readFileSync(file, 'utf8')) as { at: number; reason: string };
    if (now - at >= RETRY_DOWNLOAD_AFTER_MS) return null;
    const hours = Math.max(1, Math.round((now - at) / 3_600_000));
    return `Electron's download failed ${hours} h ago (${reason}); it is tried again a day later, or now if you delete ${file}`;
  } catch {
    return null;
  }
}

function rememberDownloadFailure(file: string, reason: string, now: number): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ at: now, reason }));
}

/**
 * Why Electron stopped before Coffer ran, and what to do, in one line; null when it stopped on
 * purpose (an exit code of 0 or 1: another Coffer was running, or the app already said why in a dialog).
 */
export function whyElectronStopped(code: number | null, signal: NodeJS.Signals | null, platform = process.platform): string | null {
  if (signal === null && (code === 0 || code === 1)) return null;
  const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
  if (platform === 'linux') {
    // Ubuntu 24.04's AppArmor forbids the user namespaces Chromium's sandbox uses (electron#42510).
    return (
      `Electron stopped before Coffer started (${how}). On Ubuntu 24.04 and later, AppArmor blocks its sandbox: ` +
      'allow it with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or install the .deb package'
    );
  }
  return `Electron stopped before Coffer started (${how}); the desktop log is in the data dir (logs/desktop.log)`;
}

/** Electron's binary, fetched on first use (npm install leaves it out), saying so while it downloads. */
async function electronBinary(say: Say, now: number): Promise<{ path: string } | { reason: string }> {
  let installer: string;
  try {
    installer = require.resolve('electron/install.js');
  } catch {
    return { reason: 'the electron package is not installed (run npm install)' };
  }
  const installed = (): string | null => {
    try {
      const path = require('electron') as unknown as string;
      return typeof path === 'string' && existsSync(path) ? path : null;
    } catch {
      return null;
    }
  };
  const found = installed();
  if (found) return { path: found };
  const failedBefore = recentDownloadFailure(FAILED_DOWNLOAD_FILE, now);
  if (failedBefore) return { reason: failedBefore };
  const version = (JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')) as { version: string }).version;
  say(`Fetching Electron ${version} for the desktop app (about 100 MB, once)…`);
  const started = Date.now();
  const output = await new Promise<string>((resolve) => {
    let text = '';
    const child = spawn(process.execPath, [installer], { stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => (text = (text + chunk.toString()).slice(-4000));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const ticker = setInterval(() => say(`  … still fetching (${Math.round((Date.now() - started) / 1000)} s)`), 15_000);
    const timeout = setTimeout(() => child.kill(), 10 * 60_000);
    const done = (extra = '') => {
      clearInterval(ticker);
      clearTimeout(timeout);
      resolve(text + extra);
    };
    child.once('error', (error) => done(error.message));
    child.once('exit', () => done());
  });
  const after = installed();
  if (after) {
    rmSync(FAILED_DOWNLOAD_FILE, { force: true });
    say('  done.');
    return { path: after };
  }
  const why =
    output
      .trim()
      .split('\n')
      .find((line) => /error|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|timed out/i.test(line))
      ?.trim()
      .slice(0, 120) ?? 'download failed';
  rememberDownloadFailure(FAILED_DOWNLOAD_FILE, why, now);
  return { reason: `Electron's binary is not installed and could not be downloaded (${why})` };
}

/**
 * Runs Electron on Coffer's folder (so the app is named Coffer and starts at package.json's main),
 * passing its output through; resolves when Electron exits, or, if it stops before the app ran, with
 * why (the caller then starts headless instead). A signal to stop the launcher meanwhile is Electron's
 * to quit on (electron-stop.ts): the launcher waits for it, and never falls back to headless then.
 */
export function runElectron(
  binary: string,
  env: NodeJS.ProcessEnv,
  spawnElectron: (binary: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess = defaultSpawn,
  signals: SignalSource = process,
): Promise<{ exitCode: number } | { headless: string }> {
  return new Promise((resolve) => {
    const child = spawnElectron(binary, [packageRoot()], env);
    const stop = forwardStopToElectron(child, signals);
    let running = false;
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      if (!running) {
        seen = (seen + chunk.toString()).slice(-2000);
        running = RUNNING.test(seen);
      }
    });
    child.once('error', (error) => {
      stop.release();
      resolve({ headless: `Electron could not be started (${error.message})` });
    });
    child.once('exit', (code, signal) => {
      stop.release();
      const why = running || stop.asked() ? null : whyElectronStopped(code, signal);
      resolve(why === null ? { exitCode: code ?? 1 } : { headless: why });
    });
  });
}

const defaultSpawn = (binary: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawn(binary, args, { stdio: ['inherit', 'inherit', 'pipe'], env });

/**
 * `npm start`: the tray app when Electron can run here; otherwise the reason, in one line, for the
 * caller to start the same engine headless. Says what it does while it fetches or builds (minutes).
 */
export async function launchDesktop(
  flags: { 'data-dir'?: string; port?: string; network?: string } = {},
  say: Say = (line) => process.stderr.write(`${line}\n`),
): Promise<{ exitCode: number } | { headless: string }> {
  const noDesktop = whyNoDesktop();
  if (noDesktop) return { headless: noDesktop };
  const binary = await electronBinary(say, Date.now());
  if ('reason' in binary) return { headless: binary.reason };
  if (!existsSync(MAIN) && existsSync(COMPILE)) {
    const compiled = await new Promise<number | null>((resolve) =>
      spawn(process.execPath, [COMPILE, '--quiet'], { stdio: 'inherit' }).once('exit', resolve),
    );
    if (compiled !== 0) return { headless: 'the desktop app could not be compiled (npm run build)' };
  }
  // The flags reach the app as the variables they override (flags win, as for `coffer serve`).
  const env = {
    ...process.env,
    ...(flags['data-dir'] ? { COFFER_HOME: flags['data-dir'] } : {}),
    ...(flags.port ? { COFFER_PORT: flags.port } : {}),
    ...(flags.network ? { COFFER_NETWORK: flags.network } : {}),
  };
  return runElectron(binary.path, env);
}
