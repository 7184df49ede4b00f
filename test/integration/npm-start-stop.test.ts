import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';
import { tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';

/**
 * `npm start` stopped as a terminal or a process manager stops it: SIGTERM to npm's pid, or Ctrl-C
 * (SIGINT to the whole process group). npm runs the script through a shell and forwards SIGINT and
 * SIGTERM to that shell only; Debian's dash forks the command (the shell stays between npm and node),
 * bash (/bin/sh on macOS) execs it (node is npm's child and gets the forwarded signal as well as the
 * terminal's). Either way the server must stop, once and gracefully, and free its port and data dir.
 * The script compiles to dist/app only where a source is newer than it: the test run's build is not,
 * and is left as it is for the other tests' `coffer` commands loading it (a swap takes two renames).
 */
const SHELLS: { shell: string; env: Record<string, string> }[] = [
  { shell: 'sh', env: {} },
  // npm's `script-shell` setting, as npm reads it from the environment.
  ...(hasBash() ? [{ shell: 'bash', env: { npm_config_script_shell: 'bash' } }] : []),
];

interface NpmStart {
  npm: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function hasBash(): boolean {
  return spawnSync('bash', ['-c', 'true']).status === 0;
}

/** `npm start` on a data dir and port of its own, in a process group of its own (as a terminal gives it). */
async function npmStart(dataDir: string, env: Record<string, string>): Promise<NpmStart> {
  const npm = spawn('npm', ['start', '--', '--data-dir', dataDir, '--port', '0'], {
    cwd: packagePath(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      COFFER_KEYSTORE: 'file',
      COFFER_NO_BROWSER: '1',
      npm_config_update_notifier: 'false',
      ...env,
    },
  });
  const lines: string[] = [];
  createInterface({ input: npm.stderr! }).on('line', (line) => lines.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not start: ${lines.join('\n')}`)), 50_000);
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      lines.push(line);
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    });
    void exited.then(({ code }) => reject(new Error(`npm start exited with ${code}: ${lines.join('\n')}`)));
  });
  return { npm, url, output: () => lines.join('\n'), exited };
}

/**
 * Whether the URL's port still accepts connections after the time is up (asked every 100 ms). A bare
 * TCP connect, closed at once: an HTTP request would hold a keep-alive connection the stop waits for.
 */
async function answersAfter(url: string, ms: number): Promise<boolean> {
  const port = Number(new URL(url).port);
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (!accepted) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

const count = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line)).length;

/** A second serve on the data dir starts: the first one's lock is free. */
async function dataDirIsFree(dataDir: string): Promise<void> {
  const second = await spawnServe(dataDir);
  try {
    expect((await json(fetch(`${second.url}/v1/health`))).ok).toBe(true);
  } finally {
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }
}

describe('npm start, stopped', () => {
  describe.each(SHELLS)('with npm running scripts through $shell', ({ shell, env }) => {
    it('by SIGTERM to npm pid: the server stops gracefully, its port and data dir are free', async () => {
      const dataDir = join(tempDataDir(), 'data');
      let started: NpmStart | undefined;
      // The build the test run made is up to date: npm start leaves it as it is (rewritten, it was
      // swapped under the other tests' `coffer` processes loading it).
      const built = statSync(packagePath('dist', 'app', 'server', 'cli', 'main.js')).mtimeMs;
      try {
        started = await npmStart(dataDir, env);
        expect(statSync(packagePath('dist', 'app', 'server', 'cli', 'main.js')).mtimeMs).toBe(built);
        process.kill(started.npm.pid!, 'SIGTERM');
        expect(await answersAfter(started.url, 5_000), started.output()).toBe(false);
        await started.exited;
        await dataDirIsFree(dataDir);
        expect(count(started.output(), /^SIGTERM: finishing in-flight requests/)).toBe(1);
        expect(count(started.output(), /^stopped$/)).toBe(1);
      } finally {
        // Whatever is left of the process group (the server, when it outlived npm).
        if (started) killGroup(started.npm);
        rmSync(join(dataDir, '..'), { recursive: true, force: true });
      }
    });

    it('by Ctrl-C (SIGINT to the process group): one graceful stop', async () => {
      const dataDir = join(tempDataDir(), 'data');
      let started: NpmStart | undefined;
      try {
        started = await npmStart(dataDir, env);
        process.kill(-started.npm.pid!, 'SIGINT');
        expect(await answersAfter(started.url, 5_000), started.output()).toBe(false);
        const exit = await started.exited;
        await dataDirIsFree(dataDir);
        expect(count(started.output(), /^SIGINT: finishing in-flight requests/)).toBe(1);
        expect(count(started.output(), /^stopped$/)).toBe(1);
        // Where node is npm's child, npm ends with its code; dash dies of the SIGINT after it (130).
        if (shell === 'bash') expect(exit).toEqual({ code: 0, signal: null });
      } finally {
        if (started) killGroup(started.npm);
        rmSync(join(dataDir, '..'), { recursive: true, force: true });
      }
    });
  });
});

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
